"""A real ``teoti serve`` process for the web face's tests: gRPC and web ports, a Redis
key prefix of its own on the tests' Redis, and the test Nim ruleset registered."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent


async def sse_frames(
    response: httpx.Response,
) -> AsyncIterator[tuple[str, dict[str, Any], str | None]]:
    """Each (event, data as JSON, id or None) frame of a server-sent event stream as it
    arrives, until it closes; asserts the reply is a 200 ``text/event-stream``."""
    assert response.status_code == 200, await response.aread()
    assert response.headers["content-type"].startswith("text/event-stream")
    event, data, ident = "message", "", None
    async for line in response.aiter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line.startswith("id: "):
            ident = line[4:]
        elif line == "" and data:
            yield event, json.loads(data), ident
            event, data, ident = "message", "", None


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Served:
    """A running ``teoti serve``: ``web`` is the web face's base URL, ``log`` its
    standard error (JSON log lines, and the one plain "open URL" line)."""

    web: str
    grpc_target: str
    process: subprocess.Popen[bytes]
    log: Path


READY = "teoti_serve_ready"


def _ready_ports(log: Path) -> tuple[int, int] | None:
    """(gRPC port, web port) from ``teoti_serve_ready`` in the log file, or None yet."""
    for line in log.read_text(errors="replace").splitlines():
        if READY in line:
            with contextlib.suppress(ValueError):
                ready = json.loads(line)
                return int(ready["port"]), int(ready["web_port"])
    return None


@contextlib.contextmanager
def teoti_serve(redis_url: str, key_prefix: str, *extra: str) -> Iterator[Served]:
    """Start ``teoti serve`` on ports the system chooses when it binds (``--port 0
    --web-port any``: a port picked by the test and bound later by serve may be taken
    in between); waits for ``teoti_serve_ready`` (which names them) and for the web
    face's /healthz; SIGTERM after."""
    with tempfile.TemporaryDirectory(prefix="teoti-serve-") as folder:
        log = Path(folder) / "serve.log"
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "services.cli",
                    "serve",
                    "--port",
                    "0",
                    "--web-port",
                    "any",
                    "--redis-url",
                    redis_url,
                    "--key-prefix",
                    key_prefix,
                    "--extra-ruleset",
                    "nim=tests.nim:NimRuleset",
                    "--log-level",
                    "INFO",
                    *extra,
                ],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.DEVNULL,
                stderr=log_file,
            )
        try:
            yield _started(process, log)
            # Both faces stop cleanly on SIGTERM, open streams included.
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            err = log.read_text(errors="replace")
            assert process.returncode == 0, err[-2000:]
            assert "Traceback" not in err, err[-2000:]
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def _started(process: subprocess.Popen[bytes], log: Path) -> Served:
    """The served ports once ``teoti_serve_ready`` is logged and /healthz answers."""
    deadline = time.monotonic() + 60
    web = ""
    ports = None
    while True:
        if process.poll() is not None:
            raise AssertionError(f"teoti serve exited: {log.read_text(errors='replace')[-2000:]}")
        ports = ports or _ready_ports(log)
        if ports is not None:
            web = f"http://127.0.0.1:{ports[1]}"
            try:
                with urllib.request.urlopen(f"{web}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return Served(web, f"127.0.0.1:{ports[0]}", process, log)
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise AssertionError("teoti serve's web face never answered")
        time.sleep(0.1)  # polling a log file and a port: no event to wait on across processes


@contextlib.contextmanager
def serve_in_process(redis_url: str, key_prefix: str, seed: str) -> Iterator[str]:
    """The all-in-one stack ``teoti serve`` runs (gateway, engine, bot worker and the web
    face with the reference client), but in this process, on a thread with its own event
    loop, and with every new game's seed fixed to ``seed``: the same options give the same
    game each run (what a screenshot snapshot needs; ``teoti serve`` has no seed option,
    and should not). Yields the web face's base URL; stops the stack after. Raises
    AssertionError when the stack does not start within 60 s (with its error, if any)."""
    import asyncio
    import queue
    import threading

    from services.app import StoreSettings, all_in_one
    from services.engine.domain.clock import fixed_seed

    started: queue.Queue[tuple[asyncio.AbstractEventLoop, asyncio.Event, int] | BaseException]
    started = queue.Queue()

    async def run() -> None:
        stop = asyncio.Event()
        try:
            async with all_in_one(
                redis_url,
                store=StoreSettings(key_prefix),
                web_address="127.0.0.1:0",
                seed_source=fixed_seed(seed),
            ) as stack:
                assert stack.web_port is not None
                started.put((asyncio.get_running_loop(), stop, stack.web_port))
                await stop.wait()
        except BaseException as error:
            started.put(error)
            raise

    thread = threading.Thread(
        target=asyncio.run, args=(run(),), name="serve-in-process", daemon=True
    )
    thread.start()
    try:
        ready = started.get(timeout=60)
    except queue.Empty:
        raise AssertionError("the in-process stack did not start in 60 s") from None
    if isinstance(ready, BaseException):
        thread.join()
        raise AssertionError(f"the in-process stack did not start: {ready!r}") from ready
    loop, stop, web_port = ready
    try:
        yield f"http://127.0.0.1:{web_port}"
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)
        assert not thread.is_alive(), "the in-process stack did not stop in 30 s"
