"""A service whose Redis does not answer at start says so in one line and exits 1 within
a bounded time, having reported nothing as ready (issue 30, item 16): the real commands,
as subprocesses."""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest

from services.embedded_redis import free_port
from tests.e2e.terminal import TEOTI

START_S = 1.0
"""$TEOTI_REDIS_START_S of these runs (the default, 10 s, is in docs/operations.md)."""

SERVICES = {
    "serve": ["--port", "0", "--web-port", "0"],
    "engine": ["--port", "0"],
    "gateway": ["--port", "0"],
    "bot": [],
    "director": [],
}


async def _run(command: str, redis_url: str) -> tuple[int | None, float, list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_", "TEOTI_"))}
    env["TEOTI_REDIS_START_S"] = str(START_S)
    env["TEOTI_BOT_SECRET"] = "a-test-bot-secret-of-enough-length"
    began = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *TEOTI,
        command,
        "--redis-url",
        redis_url,
        *SERVICES[command],
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return process.returncode, time.monotonic() - began, err.decode().splitlines()


def _logged_events(lines: list[str]) -> list[str]:
    events = []
    for line in lines:
        try:
            events.append(str(json.loads(line).get("event", "")))
        except ValueError:
            continue
    return events


@pytest.mark.parametrize(
    "command",
    # serve's in the default run, every other command's in .ci/run's slow step (each
    # waits about 2 s for the silent Redis).
    [c if c == "serve" else pytest.param(c, marks=pytest.mark.slow) for c in sorted(SERVICES)],
)
async def test_a_redis_that_does_not_answer_is_one_line_and_exit_1(command: str) -> None:
    nobody = f"redis://127.0.0.1:{free_port()}/0"  # a port nothing listens on
    code, took, lines = await _run(command, nobody)
    said = [line for line in lines if not line.startswith("{")]
    assert code == 1, lines
    assert said == [
        f"teoti {command}: error: connection failed: Redis {nobody} did not answer "
        f"within {START_S:g} s; is it running and reachable? (last error: ConnectionError)"
    ], lines
    events = _logged_events(lines)
    assert not [e for e in events if "serving" in e or "ready" in e], events
    assert "Traceback" not in "\n".join(lines)
    # The wait is bounded: the start window plus the interpreter's own start.
    assert took < START_S + 30, took


async def test_serve_listens_on_ports_the_system_chose_and_says_which(
    redis_url: str, key_prefix: str
) -> None:
    """issue 30 item 15: test_web_guide could not listen on a port, because a test picked
    a free port, closed it, and serve bound it later (another process, or one of the
    tests' own outgoing connections, had taken it meanwhile). ``--port 0 --web-port any``
    let the system choose at bind time; teoti_serve_ready says which."""
    from tests.web_serve import teoti_serve

    with teoti_serve(redis_url, key_prefix) as served:
        assert served.web.startswith("http://127.0.0.1:") and not served.web.endswith(":0")
        assert served.grpc_target.startswith("127.0.0.1:")
        assert not served.grpc_target.endswith(":0")
