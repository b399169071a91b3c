"""The split stack as real processes for end-to-end tests: ``teoti engine`` (with its
engine link), ``teoti gateway`` (gRPC and web faces), ``teoti bot`` and ``teoti director``
on one Redis under a key prefix of their own, and the test Nim ruleset in each.

The all-in-one counterpart is tests/serve_process.py (``serving``); :class:`Deployment`
names what a test needs of either: where to call, and the logs to read afterwards.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.faults import Proc
from tests.serve_process import wait_for
from tests.web_serve import free_port

NIM = ("--extra-ruleset", "nim=tests.nim:NimRuleset")


@dataclass(frozen=True)
class Deployment:
    """A running stack: ``grpc_target`` (``host:port``), ``web`` (the web face's base
    URL), its processes' ``logs`` and the ``stored`` files holding what it wrote to
    Redis (an embedded Redis's append-only file; none on a shared Redis), all complete
    once the stack has stopped."""

    grpc_target: str
    web: str
    logs: tuple[Path, ...]
    stored: tuple[Path, ...] = ()


async def _logged(proc: Proc, event: str) -> dict[str, object]:
    """The first ``event`` record of ``proc``'s JSON log (AssertionError if it exits
    first or after 60 s)."""
    assert proc.process is not None
    return await asyncio.to_thread(wait_for, proc.log, event, proc.process)


@asynccontextmanager
async def split_stack(redis_url: str, folder: Path) -> AsyncIterator[Deployment]:
    """Engine, gateway (web face on), bot worker and director as ``teoti`` processes on
    ``redis_url`` under a fresh key prefix, logging at INFO into ``folder``. All four
    start at once (their imports are most of a start): the engine link on a port
    chosen here, which the others dial until it listens; the gateway's gRPC and web
    ports picked when it binds and read back from its log. Yields once the engine and
    the gateway serve; on exit each gets SIGTERM and must exit 0 (a crash or a hang at
    shutdown fails the test)."""
    common = ["--redis-url", redis_url, "--key-prefix", f"split-{uuid.uuid4().hex[:8]}"]
    link_port = free_port()
    link = f"127.0.0.1:{link_port}"
    engine = Proc(
        ["engine", "--port", "0", "--link-port", str(link_port), *common, *NIM],
        folder / "engine.log",
        "INFO",
    )
    gateway = Proc(
        ["gateway", "--port", "0", "--web-port", "any", "--engine", link, *common, *NIM],
        folder / "gateway.log",
        "INFO",
    )
    workers = [
        Proc([role, "--engine", link, *common, *NIM], folder / f"{role}.log", "INFO")
        for role in ("bot", "director")
    ]
    procs = [engine, gateway, *workers]
    try:
        for proc in procs:
            proc.start()
        _engine, serving = await asyncio.gather(
            _logged(engine, "engine_serving"), _logged(gateway, "gateway_serving")
        )
        yield Deployment(
            f"127.0.0.1:{serving['port']}",
            f"http://127.0.0.1:{serving['web_port']}",
            tuple(proc.log for proc in procs),
        )
    finally:
        # The gateway and workers (together) before the engine they write through.
        await asyncio.gather(*(asyncio.to_thread(proc.stop) for proc in procs[1:]))
        await asyncio.to_thread(engine.stop)
    for proc in procs:
        assert proc.process is not None
        assert proc.process.returncode == 0, proc.log.read_text()[-2000:]
