"""``teoti serve`` says where to play (issue 33): one plain line on standard error among
its JSON logs, ``open http://127.0.0.1:<web port>/ to play``, logged too; none when the
web face is off (``--web-port 0``). Real processes."""

from __future__ import annotations

import signal
import uuid
from pathlib import Path

import pytest

from services.cli.service_options import web_url
from tests.serve_process import log_events, serving, wait_for
from tests.web_serve import teoti_serve


def test_serve_prints_the_url_to_open(redis_url: str) -> None:
    with teoti_serve(redis_url, f"url-{uuid.uuid4().hex[:10]}") as served:
        logged = wait_for(served.log, "teoti_serve_open", served.process)
        assert logged["url"] == f"{served.web}/"
        lines = served.log.read_text().splitlines()
        assert lines.count(f"open {served.web}/ to play") == 1, lines[-5:]


@pytest.mark.slow
def test_serve_without_a_web_face_prints_no_url(tmp_path: Path) -> None:
    with serving(tmp_path / "redis", tmp_path / "serve.log") as served:
        wait_for(served.log, "teoti_serve_ready", served.process)
        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(60) == 0
    assert "open http" not in served.log.read_text()
    assert not [e for e in log_events(served.log) if e.get("event") == "teoti_serve_open"]


def test_the_url_names_a_host_a_browser_can_open() -> None:
    assert web_url("127.0.0.1", 8080) == "http://127.0.0.1:8080/"
    assert web_url("0.0.0.0", 8080) == "http://127.0.0.1:8080/"
    assert web_url("::", 8081) == "http://127.0.0.1:8081/"
    assert web_url("::1", 8080) == "http://[::1]:8080/"
    assert web_url("example.org", 80) == "http://example.org:80/"
