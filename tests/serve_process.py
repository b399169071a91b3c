"""A real ``teoti serve`` process for tests: started with no Redis URL (it runs its own
embedded Redis in a data folder), its JSON log read as it is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.web_serve import ROOT, free_port


def log_events(log: Path) -> list[dict[str, Any]]:
    """The JSON log lines written so far (a line still being written is skipped)."""
    found = []
    for line in log.read_text().splitlines():
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return found


def wait_for(log: Path, event: str, process: subprocess.Popen[bytes]) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for record in log_events(log):
            if record.get("event") == event:
                return record
        if process.poll() is not None:
            raise AssertionError(f"teoti serve exited: {log.read_text()[-2000:]}")
        time.sleep(0.1)
    raise AssertionError(f"no {event} in the log: {log.read_text()[-2000:]}")


@dataclass(frozen=True)
class Served:
    """A ``teoti serve`` started with no Redis URL: its gRPC port, data folder and log."""

    port: int
    data: Path
    log: Path
    process: subprocess.Popen[bytes]
    web_port: int = 0
    """The web face's port (0: started without it)."""


@contextmanager
def serving(
    data: Path, log: Path, host: str | None = None, port: int | None = None, web: bool = False
) -> Iterator[Served]:
    """``teoti serve`` with no Redis given anywhere (it starts its own in ``data``), on
    ``host`` (the CLI's default if None) and ``port`` (a free one if None), once it
    serves; with ``web`` its web face too, on a port it picks when it binds (named by
    ``teoti_serve_ready``); killed on exit if still running."""
    port = port or free_port()
    where = ("--host", host) if host is not None else ()
    web_port = "any" if web else "0"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER_NODES")}
    args = [
        *(sys.executable, "-m", "services.cli", "--log-level", "INFO", "serve"),
        *where,
        *("--port", str(port), "--web-port", web_port, "--data-dir", str(data)),
        *("--extra-ruleset", "nim=tests.nim:NimRuleset"),
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            args, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, stdout=out, stderr=out
        )
    try:
        ready = wait_for(log, "teoti_serve_ready" if web else "serving", process)
        yield Served(port, data, log, process, int(ready.get("web_port") or 0))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
