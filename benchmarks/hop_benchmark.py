"""What one message round trip costs on the gateway -> engine hop's two transports (issue 16).

An echo server and its client in two processes on loopback, both on uvloop (as every
``teoti`` service runs): a grpc.aio stream-stream call carrying each message and its echo
(the EngineService.ExchangeBatches streams of the ``stream`` transport), and a plain
asyncio TCP connection with the engine link's framing (``link``,
services.engine.transport.link_frames). For ``--concurrency`` callers at once it reports the echo
server's CPU per round trip (utime+stime of its process, every thread, from
``/proc/<pid>/stat``; the client's own CPU apart) and the wall time per round trip, over
``--runs`` runs (min / median / max), and the link ÷ gRPC ratios of each run. Every
error (a wrong or missing echo) is counted and printed; exit status 1 if any.

Run from the repository root::

    .venv/bin/python -m benchmarks.hop_benchmark [--round-trips 20000] [--runs 3]
        [--concurrency 1,10] [--bytes 300]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

from benchmarks.bare_grpc import serve_stream_method
from services.engine.transport.link_frames import BATCH, FrameReader, frame
from services.event_loop import run_service

METHOD = "/bench.Echo/Echo"


@dataclass
class Window:
    """One transport's figures at one concurrency in one run."""

    transport: str
    concurrency: int
    round_trips: int
    errors: int
    server_cpu_s: float
    wall_s: float

    @property
    def cpu_us(self) -> float:
        return self.server_cpu_s / self.round_trips * 1e6

    @property
    def wall_us(self) -> float:
        return self.wall_s / self.round_trips * 1e6


def cpu_seconds(pid: int) -> float:
    """utime + stime of process ``pid`` (every thread), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _grpc_server(ready: Connection) -> None:
    async def echo(requests, context):  # type: ignore[no-untyped-def]
        async for message in requests:
            yield message

    await serve_stream_method("bench.Echo", "Echo", echo, ready)


async def _link_server(ready: Connection) -> None:
    class Echo(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport = transport
            self.reader = FrameReader(1 << 20)

        def data_received(self, data: bytes) -> None:
            for kind, payload in self.reader.feed(data):
                self.transport.write(frame(kind, payload))  # type: ignore[attr-defined]

    server = await asyncio.get_running_loop().create_server(Echo, "127.0.0.1", 0)
    ready.send(server.sockets[0].getsockname()[1])
    await asyncio.Event().wait()


def _serve(transport: str, ready: Connection) -> None:
    run_service(_grpc_server(ready) if transport == "stream" else _link_server(ready))


async def _grpc_caller(port: int, count: int, payload: bytes) -> int:
    import grpc

    errors = 0
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(METHOD)()
        for _ in range(count):
            await call.write(payload)
            errors += await call.read() != payload
        await call.done_writing()
    return errors


async def _link_caller(port: int, count: int, payload: bytes) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    frames = FrameReader(1 << 20)
    errors = 0
    for _ in range(count):
        writer.write(frame(BATCH, payload))
        got: list[tuple[int, bytes]] = []
        while not got:
            data = await reader.read(65536)
            if not data:
                return errors + 1
            got = frames.feed(data)
        errors += got != [(BATCH, payload)]
    writer.close()
    return errors


async def _measure(
    transport: str, port: int, pid: int, concurrency: int, total: int, payload: bytes
) -> Window:
    caller = _grpc_caller if transport == "stream" else _link_caller
    await caller(port, 100, payload)  # warm: connections made, code paths run once
    each = max(total // concurrency, 1)
    cpu, started = cpu_seconds(pid), time.perf_counter()
    outcomes = await asyncio.gather(
        *(caller(port, each, payload) for _ in range(concurrency)), return_exceptions=True
    )
    wall, cpu = time.perf_counter() - started, cpu_seconds(pid) - cpu
    errors = sum(o if isinstance(o, int) else each for o in outcomes)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            print(f"  {transport} x{concurrency}: caller failed: {outcome!r}", flush=True)
    return Window(transport, concurrency, each * concurrency, errors, cpu, wall)


def spread(values: Sequence[float], digits: int = 1) -> str:
    """min / median / max of ``values``, with ``digits`` decimals."""
    picked = (min(values), statistics.median(values), max(values))
    return " / ".join(f"{v:.{digits}f}" for v in picked)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=20_000, help="per window")
    parser.add_argument("--runs", type=int, default=3, help="alternated runs (>= 3)")
    parser.add_argument("--concurrency", default="1,10", help="callers at once, comma list")
    parser.add_argument("--bytes", type=int, default=300, help="message size")
    args = parser.parse_args(argv)
    payload = b"x" * args.bytes
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    context = multiprocessing.get_context("spawn")
    servers = {}
    for transport in ("stream", "link"):
        mine, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(transport, theirs), daemon=True)
        process.start()
        servers[transport] = (process, mine.recv())
    windows: list[Window] = []
    try:
        for run in range(1, args.runs + 1):
            for concurrency in concurrencies:
                for transport in ("stream", "link"):
                    process, port = servers[transport]
                    assert process.pid is not None
                    window = run_service(
                        _measure(
                            transport, port, process.pid, concurrency, args.round_trips, payload
                        )
                    )
                    windows.append(window)
                    print(
                        f"run {run} {transport:6} x{concurrency}: server CPU "
                        f"{window.cpu_us:.1f} us, wall {window.wall_us:.1f} us per round trip, "
                        f"errors {window.errors}",
                        flush=True,
                    )
    finally:
        for process, _ in servers.values():
            process.kill()
    print("\nmin / median / max over the runs, per round trip:")
    for concurrency in concurrencies:
        cells = {
            t: [w for w in windows if w.transport == t and w.concurrency == concurrency]
            for t in ("stream", "link")
        }
        for transport, mine in cells.items():
            print(
                f"  x{concurrency} {transport:6} server CPU us {spread([w.cpu_us for w in mine])}"
                f"   wall us {spread([w.wall_us for w in mine])}"
            )
        ratios = [
            link.cpu_us / grpc.cpu_us
            for link, grpc in zip(cells["link"], cells["stream"], strict=True)
        ]
        print(f"  x{concurrency} link / stream server CPU: {spread(ratios, 3)}")
    errors = sum(w.errors for w in windows)
    print(f"errors: {errors}" + (" in all" if errors == 0 else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
