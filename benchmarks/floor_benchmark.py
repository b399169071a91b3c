"""The floor under the split deployment: its hops with no work, against boardgame.io (issue 16).

The peer benchmark's split deployment answers a move through four processes: the
player's client, the gateway (grpc.aio, the public face), the engine (on the engine
link) and Redis (the durable append before any answer). This benchmark keeps those
processes and hops and takes away everything else: a message of ``--bytes`` bytes goes
from a grpc.aio client on a long-lived stream (one channel per caller, as each seat has)
to a gateway that forwards it on one engine-link connection (services.engine.transport.link_frames
framing, the request's number in front) to an engine that appends it to a Redis stream
with one ``EVALSHA`` (a Lua ``XADD``, as the engine's compare-and-append is one script
call) and answers the gateway, which answers the client. No rules, no hashing, no JSON,
no protobuf beyond gRPC's own framing, no logging: what any game service built this way
on these libraries pays per move before it does anything.

Interleaved with boardgame.io 0.50 in memory on the Nim game (the peer benchmark's
server and driver, ``benchmarks/peer``; skipped with a message when Node is absent), at
``--matches`` concurrent callers: round trips/s, p50/p99 latency and server CPU per round
trip (gateway + engine, utime+stime of every thread from ``/proc/<pid>/stat``; Redis
apart), min / median / max over ``--reps`` repetitions and the floor ÷ boardgame.io
ratios of each pair. Every error (a wrong or missing echo, a failed call) is counted and
printed; exit status 1 if any.

Run from the repository root::

    .venv/bin/python -m benchmarks.floor_benchmark [--seconds 4] [--reps 3]
        [--matches 1,10,100] [--bytes 300] [--teoti-only]
        [--depths redis,engine,gateway]   # also stop at the engine, or at the gateway
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import struct
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from benchmarks.bare_grpc import serve_stream_method
from benchmarks.peer_benchmark import (
    Cell,
    bgio_server,
    cpu_seconds,
    peer_ready,
    percentile_ms,
    run_bgio,
    spread,
)
from services.embedded_redis import EmbeddedRedis
from services.engine.transport.link_frames import BATCH, FrameReader, frame
from services.event_loop import run_service

METHOD = "/bench.Floor/Move"
STREAM_KEY = "floor:log"
APPEND_SCRIPT = "return redis.call('XADD', KEYS[1], 'MAXLEN', '~', 10000, '*', 'e', ARGV[1])"
"""One script call per move, as the engine's compare-and-append is: the stream is
trimmed so a long run does not fill the embedded Redis's memory."""
REQUEST_ID = struct.Struct(">I")
START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 30.0
MAX_PAYLOAD = 65_536
"""Largest ``--bytes``: well inside the link's frame limit (MAX_FRAME)."""
DEPTHS = ("redis", "engine", "gateway")
"""How deep a floor message goes before it is answered: through the engine to Redis (the
split deployment's path, system ``floor``), to the engine only (``floor-engine``: no
durable append), or the gateway only (``floor-gateway``: the public gRPC face alone)."""
MAX_FRAME = 1 << 20


# --- engine: link frames in, one EVALSHA each, link frames out -------------------------


async def _engine(redis_url: str, durable: bool, ready: Connection) -> None:
    import redis.asyncio as aioredis

    store = aioredis.Redis.from_url(redis_url)
    sha = await store.script_load(APPEND_SCRIPT)
    loop = asyncio.get_running_loop()

    class Link(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport: asyncio.Transport = transport  # type: ignore[assignment]
            self.frames = FrameReader(MAX_FRAME)
            self.appending: set[asyncio.Task[None]] = set()

        def data_received(self, data: bytes) -> None:
            for _kind, payload in self.frames.feed(data):
                task = loop.create_task(self.append(payload))
                self.appending.add(task)
                task.add_done_callback(self.appending.discard)

        async def append(self, payload: bytes) -> None:
            if durable:
                await store.evalsha(sha, 1, STREAM_KEY, payload[REQUEST_ID.size :])
            self.transport.write(frame(BATCH, payload))

    server = await loop.create_server(Link, "127.0.0.1", 0)
    ready.send(server.sockets[0].getsockname()[1])
    await asyncio.Event().wait()


# --- gateway: grpc.aio streams in, one engine-link connection out -----------------------


class _EngineLink:
    """One link connection to the engine, its answers matched to requests by number."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[bytes]] = {}
        self.next_id = 0
        self.writer: asyncio.StreamWriter | None = None
        self.reading: asyncio.Task[None] | None = None

    async def open(self, port: int) -> None:
        reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.reading = asyncio.get_running_loop().create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        frames = FrameReader(MAX_FRAME)
        while data := await reader.read(65536):
            for _kind, payload in frames.feed(data):
                (number,) = REQUEST_ID.unpack_from(payload)
                self.waiting.pop(number).set_result(payload[REQUEST_ID.size :])

    async def send(self, message: bytes) -> bytes:
        assert self.writer is not None
        self.next_id = number = (self.next_id + 1) & 0xFFFFFFFF
        answer = asyncio.get_running_loop().create_future()
        self.waiting[number] = answer
        self.writer.write(frame(BATCH, REQUEST_ID.pack(number) + message))
        answered: bytes = await answer
        return answered


async def _gateway(engine_port: int | None, ready: Connection) -> None:
    link = _EngineLink()
    if engine_port is not None:
        await link.open(engine_port)

    async def move(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        async for message in requests:
            yield message if engine_port is None else await link.send(message)

    await serve_stream_method("bench.Floor", "Move", move, ready)


def _serve_engine(redis_url: str, durable: bool, ready: Connection) -> None:
    run_service(_engine(redis_url, durable, ready))


def _serve_gateway(engine_port: int | None, ready: Connection) -> None:
    run_service(_gateway(engine_port, ready))


def _started(
    name: str, target: Callable[..., None], args: tuple[Any, ...], processes: list[Any]
) -> int:
    """Start ``target(*args, pipe)`` in a spawned process (added to ``processes``) and
    return the port it sends on ``pipe``. Raises RuntimeError if it dies or stays silent
    for START_TIMEOUT_S (e.g. the engine cannot reach Redis)."""
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe(duplex=False)
    process = context.Process(target=target, args=(*args, theirs), name=name, daemon=True)
    process.start()
    processes.append(process)
    theirs.close()  # the child's end: recv() then fails once the child has died
    if not mine.poll(START_TIMEOUT_S):
        raise RuntimeError(f"the floor's {name} did not start in {START_TIMEOUT_S:g} s")
    try:
        port: int = mine.recv()
    except EOFError:
        raise RuntimeError(f"the floor's {name} died while starting") from None
    return port


@contextlib.contextmanager
def floor_services(redis_url: str, depth: str = "redis") -> Iterator[tuple[int, list[int]]]:
    """Yield (gateway port, [gateway pid, engine pid]) of the two floor processes, a
    message going as deep as ``depth`` (one of :data:`DEPTHS`) before it is answered."""
    if depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(DEPTHS)}")
    processes: list[Any] = []
    try:
        durable = depth == "redis"
        engine_port = _started("engine", _serve_engine, (redis_url, durable), processes)
        onward = None if depth == "gateway" else engine_port
        gateway_port = _started("gateway", _serve_gateway, (onward,), processes)
        engine, gateway = processes
        yield gateway_port, [gateway.pid, engine.pid]
    finally:
        for process in processes:
            process.kill()
            process.join(5)


# --- the client: callers on their own channels, one message at a time ----------------


class _Caller:
    """One caller: its own channel (a connection of its own) and stream, opened and
    warmed by one round trip before a window starts, as the peer benchmark's seats
    connect before theirs."""

    def __init__(self, port: int, payload: bytes) -> None:
        import grpc

        self.payload = payload
        options = [("grpc.use_local_subchannel_pool", 1)]
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options)
        self.call = self.channel.stream_stream(METHOD)()

    async def round_trip(self, cell: Cell) -> float | None:
        """One message and its echo: the seconds it took, or None (an error counted)."""
        import grpc

        start = time.perf_counter()
        try:
            await asyncio.wait_for(self.call.write(self.payload), CALL_TIMEOUT_S)
            echoed = await asyncio.wait_for(self.call.read(), CALL_TIMEOUT_S)
        except (grpc.aio.AioRpcError, TimeoutError, asyncio.InvalidStateError) as error:
            kind = error.code().name if isinstance(error, grpc.aio.AioRpcError) else repr(error)
        else:
            if echoed == self.payload:
                return time.perf_counter() - start
            kind = "wrong or missing echo"
        cell.errors += 1
        cell.error_kinds[kind] = cell.error_kinds.get(kind, 0) + 1
        return None

    async def run(self, stop_at: float, latencies: list[float], cell: Cell) -> None:
        """Round trips, one at a time, until ``stop_at`` (monotonic) or an error."""
        while time.monotonic() < stop_at:
            took = await self.round_trip(cell)
            if took is None:
                return
            latencies.append(took)
            cell.moves += 1

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


async def run_floor(
    port: int,
    pids: list[int],
    redis_pid: int | None,
    matches: int,
    seconds: float,
    rep: int,
    payload: bytes,
    system: str = "floor",
) -> Cell:
    """One timed window of ``matches`` concurrent callers on the floor, each connected
    and warmed by one round trip before the clock starts (a failure there is counted
    too); Redis's CPU is read only when its ``redis_pid`` is given (a local process)."""
    cell = Cell(system, matches, rep)
    latencies: list[float] = []
    callers = [_Caller(port, payload) for _ in range(matches)]
    try:
        warmed = await asyncio.gather(*(c.round_trip(cell) for c in callers))
        ready = [c for c, took in zip(callers, warmed, strict=True) if took is not None]
        redis_pids = [] if redis_pid is None else [redis_pid]
        cpu0, redis0 = cpu_seconds(pids), cpu_seconds(redis_pids)
        started = time.perf_counter()
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(c.run(stop_at, latencies, cell) for c in ready))
        cell.elapsed_s = time.perf_counter() - started
        cell.server_cpu_s = cpu_seconds(pids) - cpu0
        cell.redis_cpu_s = cpu_seconds(redis_pids) - redis0
    finally:
        await asyncio.gather(*(c.close() for c in callers))
    latencies.sort()
    cell.p50_ms, cell.p99_ms = percentile_ms(latencies, 50), percentile_ms(latencies, 99)
    return cell


# --- report and main -------------------------------------------------------------------

METRICS: list[tuple[str, str]] = [
    ("round trips/s", "moves_per_s"),
    ("p50 ms", "p50_ms"),
    ("p99 ms", "p99_ms"),
    ("server CPU ms", "cpu_ms_per_move"),
    ("  + Redis", "cpu_with_redis_ms_per_move"),
]


def system_of(depth: str) -> str:
    """The report's name for the floor at ``depth``."""
    return "floor" if depth == "redis" else f"floor-{depth}"


def report(cells: Sequence[Cell]) -> None:
    """Print every window, then min/median/max per system and each floor system ÷
    boardgame.io ratios, repetition by repetition."""
    print("\nevery window (a floor round trip is one boardgame.io move):")
    for c in cells:
        print(
            f"  rep {c.rep} {c.system:>13} x{c.matches:<3} {c.moves:6d} round trips "
            f"{c.moves_per_s:8.1f}/s p50 {c.p50_ms or 0:7.3f} p99 {c.p99_ms or 0:7.3f} ms "
            f"cpu {c.cpu_ms_per_move or 0:.3f} ms (+redis {c.cpu_with_redis_ms_per_move or 0:.3f})"
            f" errors {c.errors}"
        )
        for kind, count in c.error_kinds.items():
            print(f"      error x{count}: {kind}")
    print("\nmin / median / max over the repetitions (ratios: the system ÷ boardgame.io):")
    systems = [
        s for s in (*map(system_of, DEPTHS), "boardgame.io") if any(c.system == s for c in cells)
    ]
    for matches in sorted({c.matches for c in cells}):
        print(f"  {matches} concurrent callers / matches")
        by_system = {
            s: {c.rep: c for c in cells if c.system == s and c.matches == matches} for s in systems
        }
        bgio = by_system.get("boardgame.io", {})
        for label, attr in METRICS:
            print(f"    {label}")
            for system, mine in by_system.items():
                row = f"      {system:<14} {spread([getattr(c, attr) for c in mine.values()]):<26}"
                ratios = [
                    getattr(mine[r], attr) / getattr(bgio[r], attr)
                    for r in mine
                    if system != "boardgame.io"
                    and r in bgio
                    and getattr(mine[r], attr)
                    and getattr(bgio[r], attr)
                ]
                if ratios:
                    row += f" ratio {spread(ratios)}"
                print(row)
    errors = sum(c.errors for c in cells)
    print(f"\nerrors: {errors}" + (" in all" if errors == 0 else ""))


async def run(args: argparse.Namespace, redis_url: str, redis_pid: int) -> list[Cell]:
    """Every window: each depth of the floor, then boardgame.io, repetition by repetition."""
    why_not = "" if args.teoti_only else peer_ready()
    if why_not:
        print(f"boardgame.io SKIPPED: {why_not}; measuring the floor alone", flush=True)
    payload = b"m" * args.bytes
    depths = args.depths.split(",")
    cells: list[Cell] = []
    log_dir = Path(args.log_dir)
    with contextlib.ExitStack() as stack:
        floors = {d: stack.enter_context(floor_services(redis_url, d)) for d in depths}
        peer = None if why_not or args.teoti_only else stack.enter_context(bgio_server(log_dir))
        for rep in range(1, args.reps + 1):
            for matches in args.matches:
                for depth, (port, pids) in floors.items():
                    cell = await run_floor(
                        port, pids, redis_pid, matches, args.seconds, rep, payload, system_of(depth)
                    )
                    cells.append(cell)
                    print(
                        f"rep {rep} {cell.system} x{matches}: {cell.moves_per_s:.0f}/s", flush=True
                    )
                if peer is not None:
                    theirs = await asyncio.to_thread(
                        run_bgio, peer[0], peer[1], matches, args.seconds, rep
                    )
                    cells.append(theirs)
                    print(
                        f"rep {rep} boardgame.io x{matches}: {theirs.moves_per_s:.0f}/s", flush=True
                    )
    return cells


def _bounded(kind: type[int] | type[float], low: float, high: float) -> Callable[[str], Any]:
    """An argparse type: ``kind(text)`` within [low, high], else a usage error."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g}")
        return value

    return parse


def _counts(text: str) -> list[int]:
    """An argparse type: a comma list of concurrencies, each 1..10,000."""
    parse = _bounded(int, 1, 10_000)
    return [parse(part) for part in text.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=_bounded(float, 0.01, 3600), default=4.0, help="timed window per cell"
    )
    parser.add_argument(
        "--reps", type=_bounded(int, 1, 1000), default=3, help="interleaved repetitions (>= 3)"
    )
    parser.add_argument(
        "--matches", type=_counts, default=[1, 10, 100], help="concurrent callers, comma list"
    )
    parser.add_argument(
        "--bytes",
        type=_bounded(int, 1, MAX_PAYLOAD),
        default=300,
        help=f"message size each way (1..{MAX_PAYLOAD})",
    )
    parser.add_argument("--teoti-only", action="store_true", help="skip boardgame.io")
    parser.add_argument(
        "--depths",
        default="redis",
        help="comma list of how deep a message goes: redis (the split path: gateway, "
        "engine, a durable append), engine (no append), gateway (the gRPC face alone)",
    )
    parser.add_argument(
        "--log-dir", default="/tmp/teoti-floor", help="boardgame.io server's log folder"
    )
    args = parser.parse_args(argv)
    unknown = set(args.depths.split(",")) - set(DEPTHS)
    if unknown:
        parser.error(f"--depths: unknown {', '.join(sorted(unknown))}; known: {', '.join(DEPTHS)}")
    Path(args.log_dir).mkdir(parents=True, exist_ok=True)
    with EmbeddedRedis() as server:
        import redis

        redis_pid = int(redis.Redis.from_url(server.url).info("server")["process_id"])
        cells = run_service(run(args, server.url, redis_pid))
    report(cells)
    return 1 if any(c.errors for c in cells) else 0


if __name__ == "__main__":
    raise SystemExit(main())
