"""docs/web.md's curl examples, run as written against a real ``teoti serve``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.web_serve import teoti_serve

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "web.md"


def _curl_blocks() -> str:
    text = GUIDE.read_text()
    section = text.split("## Try it with curl", 1)[1].split("\n## ", 1)[0]
    return "\n".join(re.findall(r"```sh\n(.*?)```", section, re.S))


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
def test_the_guides_curl_examples_work(redis_url: str) -> None:
    for tool in ("curl", "jq"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (.ci/run installs it with apt-get)")
    script = _curl_blocks()
    assert "WEB=http://127.0.0.1:8080/" in script
    with teoti_serve(redis_url, f"guide-{uuid.uuid4().hex[:10]}") as served:
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script.replace("http://127.0.0.1:8080", served.web)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr + run.stdout
    lines = run.stdout.splitlines()
    assert "bad_seat_token" in lines, run.stdout
    assert "event: message" in lines and "id: 1" in lines, run.stdout
    assert lines[-1] == "true", "VerifyGame: the log checks out"
    assert '"version":' in run.stdout.replace(" ", ""), run.stdout


def _python_example() -> str:
    text = GUIDE.read_text()
    section = text.split("## Play over a WebSocket", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return str(block)


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
def test_the_guides_websocket_example_works(redis_url: str) -> None:
    script = _python_example()
    assert 'WEB = "127.0.0.1:8080"' in script
    with teoti_serve(redis_url, f"guide-ws-{uuid.uuid4().hex[:10]}") as served:
        host = served.web.removeprefix("http://")
        run = subprocess.run(
            [sys.executable, "-c", script.replace("127.0.0.1:8080", host)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr + run.stdout
    lines = run.stdout.splitlines()
    assert len([line for line in lines if " plays: " in line]) == 3, run.stdout
    assert lines[-2:] == ["bad_seat_token", "malformed_request"], run.stdout
