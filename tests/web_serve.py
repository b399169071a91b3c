"""A real ``teoti serve`` process for the web face's tests: gRPC and web ports, a Redis
key prefix of its own on the tests' Redis, and the test Nim ruleset registered."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Served:
    """A running ``teoti serve``: ``web`` is the web face's base URL."""

    web: str
    grpc_target: str
    process: subprocess.Popen[bytes]


@contextlib.contextmanager
def teoti_serve(redis_url: str, key_prefix: str, *extra: str) -> Iterator[Served]:
    """Start ``teoti serve`` (waits until the web face answers /healthz); SIGTERM after."""
    grpc_port, web_port = free_port(), free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "services.cli",
            "serve",
            "--port",
            str(grpc_port),
            "--web-port",
            str(web_port),
            "--redis-url",
            redis_url,
            "--key-prefix",
            key_prefix,
            "--extra-ruleset",
            "nim=tests.nim:NimRuleset",
            "--log-level",
            "WARNING",
            *extra,
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    web = f"http://127.0.0.1:{web_port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                err = process.stderr.read().decode() if process.stderr else ""
                raise AssertionError(f"teoti serve exited: {err[-2000:]}")
            try:
                with urllib.request.urlopen(f"{web}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("teoti serve's web face never answered")
            time.sleep(0.1)
        yield Served(web, f"127.0.0.1:{grpc_port}", process)
        # Both faces stop cleanly on SIGTERM, open streams included.
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 0, err.decode()[-2000:]
        assert b"Traceback" not in err, err.decode()[-2000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()
