"""What the load benchmarks share: services as real processes, an error tally that
prints every error, percentiles, and a higher open-files limit.

The services run as ``python -m services.cli`` subprocesses (split as production runs
them), on the Redis at ``--redis-url`` / ``REDIS_URL`` or an embedded one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[1]
BOT_SECRET = secrets.token_hex(32)
"""The bot credential the split processes share (they refuse to start without one)."""
NIM = ["--extra-ruleset", "nim=tests.nim:NimRuleset"]
UNLIMITED = [
    *("--rate-limit", "0", "--creates-per-hour", "0", "--max-watchers-per-client", "0"),
    *("--max-streams-per-address", "0", "--accounts-per-hour", "0", "--lobby-per-hour", "0"),
]
"""The benchmark is one client address: the gateway's limits per client would stop it.
The process's own stream budget (16,000, below its 20,000 calls) still holds."""
CLIENT_CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]
"""Each client channel its own TCP connection (grpc shares one between equal channels)."""


def raise_open_files(want: int = 65536) -> int:
    """Raise this process's RLIMIT_NOFILE soft limit toward ``want`` (at most the hard
    limit); returns the new soft limit. Children (the services) inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(want, hard) if hard != resource.RLIM_INFINITY else want
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def percentile(samples: list[float], q: float) -> float:
    """The q-th percentile (0..100) of ``samples`` (seconds), in milliseconds."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))] * 1000


class Errors:
    """Every error of a run: counted by kind, and each one printed (up to ``shown``
    in full and the first of each kind, then a count per kind), so no error hides in
    the figures."""

    def __init__(self, shown: int = 20) -> None:
        self.kinds: Counter[str] = Counter()
        self._shown = shown

    def add(self, where: str, error: BaseException) -> None:
        """Record one error raised at ``where``."""
        code = (
            error.code().name if isinstance(error, grpc.aio.AioRpcError) else type(error).__name__
        )
        kind = f"{where}: {code}"
        self.kinds[kind] += 1
        # The first of each kind too: a rare kind is not hidden behind a common one.
        if sum(self.kinds.values()) <= self._shown or self.kinds[kind] == 1:
            print(f"  ERROR {kind}: {error!r}"[:400], flush=True)

    @property
    def total(self) -> int:
        """Errors recorded."""
        return sum(self.kinds.values())

    def report(self) -> None:
        """Print the total and the count per kind."""
        print(f"errors: {self.total}")
        for kind, count in self.kinds.most_common():
            print(f"  {count:>7}  {kind}")


@contextlib.contextmanager
def redis_url(url: str | None) -> Iterator[str]:
    """The given URL, else an embedded redis-server for the run."""
    if url:
        yield url
        return
    from services.embedded_redis import EmbeddedRedis

    with EmbeddedRedis() as server:
        yield server.url


class Service:
    """One ``teoti`` service process, its output in a temporary log file."""

    def __init__(self, args: list[str]) -> None:
        self.port = free_port()
        self.args = [*args, "--port", str(self.port)]
        self.log = Path(tempfile.mkstemp(prefix=f"teoti-bench-{args[0]}-", suffix=".log")[1])
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Service:
        """Start the process (returns at once; see :func:`serving`)."""
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "services.cli", "--log-level", "WARNING", *self.args],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "TEOTI_BOT_SECRET": BOT_SECRET},
            )
        return self

    def stop(self) -> None:
        """Terminate and wait (kill after 20 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    @property
    def target(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self.port}"


async def serving(service: Service, seconds: float = 120) -> None:
    """Wait until ``service`` answers health checks as SERVING (or fail, with its log)."""
    deadline = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(service.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if service.process is not None and service.process.poll() is not None:
                break
            with contextlib.suppress(grpc.aio.AioRpcError):
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            await asyncio.sleep(0.2)
    raise RuntimeError(f"{service.args[0]} did not start:\n{service.log.read_text()[-3000:]}")


@contextlib.asynccontextmanager
async def split_processes(
    url: str, name: str, gateways: int = 1
) -> AsyncIterator[tuple[Service, list[Service]]]:
    """An engine process and ``gateways`` gateway processes writing through it, split as
    deployed, on the Redis at ``url`` under a fresh key prefix (``bench-<name>-…``), with
    the test Nim ruleset and no per-client limits (:data:`UNLIMITED`); yields (engine,
    gateways) once every one answers SERVING. Every process is stopped on exit."""
    common = ["--redis-url", url, "--key-prefix", f"bench-{name}-{uuid.uuid4().hex[:8]}", *NIM]
    link_port = free_port()
    engine = Service(["engine", "--link-port", str(link_port), *common]).start()
    started: list[Service] = []
    try:
        await serving(engine)
        for _ in range(gateways):
            started.append(
                Service(
                    ["gateway", "--engine", f"127.0.0.1:{link_port}", *common, *UNLIMITED]
                ).start()
            )
        for gateway in started:
            await serving(gateway)
        yield engine, started
    finally:
        for gateway in started:
            gateway.stop()
        engine.stop()


def key_prefix(service: Service) -> str:
    """The ``--key-prefix`` ``service`` was started with."""
    return service.args[service.args.index("--key-prefix") + 1]


@contextlib.asynccontextmanager
async def split_services(
    url: str, name: str, channels: int
) -> AsyncIterator[list[grpc.aio.Channel]]:
    """An engine and a gateway process (:func:`split_processes`); yields ``channels``
    client channels to the gateway, each its own connection. Everything is closed and
    stopped on exit."""
    async with split_processes(url, name) as (_engine, (gateway,)):
        opened = [
            grpc.aio.insecure_channel(gateway.target, options=CLIENT_CHANNEL_OPTIONS)
            for _ in range(channels)
        ]
        try:
            yield opened
        finally:
            for channel in opened:
                await channel.close()
