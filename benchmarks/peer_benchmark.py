"""Peer benchmark: this service against boardgame.io on the same Nim game (issue 16).

Each system plays the same trivial game (a pile of 10..20 stones, seats take 1..3 in
turn, the drivers always take 1) with its own client, at 1, 10 and 100 concurrent
matches, interleaved A B A B over ``--reps`` repetitions:

- **teoti**: split ``teoti engine`` and ``teoti gateway`` processes on one Redis (hash
  chains, Lua compare-and-append; the gateway's commands on the engine link, as
  deployed), the test Nim ruleset
  registered with ``--extra-ruleset nim=tests.nim:NimRuleset`` (as the e2e tests do). The driver is
  :class:`TeotiClient` over gRPC, one channel per seat, one message per move
  (``TeotiClient.play``: a ``SubmitAction`` with ``return_view``, whose reply says whose
  turn it is) on the seat's long-lived ``Play`` stream, the analog of boardgame.io's
  socket; ``--unary`` plays with one unary ``SubmitAction`` call per move instead
  (``teoti-unary``), ``--stream-and-unary`` measures both, interleaved. The driver runs
  on uvloop, as every ``teoti`` command runs its client (``--client-loop asyncio`` for
  the standard loop).
- **boardgame.io** 0.50 (``benchmarks/peer``, installed with ``npm ci`` when Node is
  present; skipped with a message otherwise): its server with the default in-memory
  storage, driven by its own socket.io client from Node, one client per seat; moves run
  on the server only (``client: false``), so a move's latency is a real round trip.

A finished match is replaced by a new one, on both sides, so the server CPU includes one
match creation per 10..20 moves on both sides alike. Every seat's client is connected
before the timed window (teoti: ``TeotiClient.connect``, its connection and Play stream),
as boardgame.io's driver connects every socket before it starts. For every cell it reports moves/s,
p50/p99 latency (ms) and server CPU per accepted move (ms, utime+stime from
``/proc/<pid>/stat`` of the server processes, read just before and after the timed
window; for teoti gateway+engine, and Redis apart), then min/median/max over the
repetitions, and the teoti/boardgame.io ratios of each interleaved pair. Every error is
counted and printed by kind. Loopback only; each cell lasts ``--seconds`` plus set-up.

Run from the repository root::

    .venv/bin/python -m benchmarks.peer_benchmark [--seconds 5] [--reps 3] [--matches 1,10,100]
        [--unary]   # teoti with a unary SubmitAction call per move, not the Play stream
        [--stream-and-unary]   # both, interleaved window by window
        [--three-calls]   # also teoti with GetGame + ListLegalActions + SubmitAction per move
        [--deployment serve]   # teoti serve (engine in the gateway's process), not split
    .venv/bin/python -m benchmarks.peer_benchmark --many-games 1000 [--connections 50]
                          # 1,000 concurrent games through one gateway, teoti alone

(``--redis-url`` for a Redis of its own, else an embedded redis-server: REDIS_URL is not
used, since a shared Redis's CPU would count other clients' work; ``--json FILE`` keeps
the raw figures.) Exit status 1 if any error was counted.

The embedded Redis is the one each deployment has: ``--deployment serve`` gets a Unix
socket in its own data folder, as ``teoti serve`` gives a newcomer (it starts the Redis
itself only to read its CPU), and ``split`` a loopback TCP port, Redis being a network
service there. ``--embedded-redis unix|tcp`` overrides that (an A/B of the transport).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO

import grpc
import redis

from services.client import SeatInfo, TeotiClient
from services.embedded_redis import EmbeddedRedis, free_port
from services.engine.adapters.redis_client import redact_url
from services.event_loop import run_service

ROOT = Path(__file__).resolve().parent.parent
BOT_SECRET = secrets.token_hex(32)
"""The bot credential the split processes share (they refuse to start without one)."""
PEER_DIR = ROOT / "benchmarks" / "peer"
NIM_OPTIONS = {"max_take": 3}
NIM_RULESET = "nim=tests.nim:NimRuleset"
START_TIMEOUT_S = 60.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
NO_CREATION_QUOTA = ("--creates-per-hour", "0", "--rate-limit", "1000")
"""The cells' gateway: no creation quota, and 1,000 calls/s per seat token (so 10,000
per address), since every seat of the benchmark plays from one address: at 100 matches
`teoti serve` makes about 3,000 calls/s, over the default address ceiling of 2,000/s that
200 players on their own addresses would never share. The limiter still runs (its
bookkeeping is part of a move's CPU)."""
NO_LIMITS = ("--rate-limit", "0", "--creates-per-hour", "0")
"""The many-games mode's gateway: its thousand games all come from one address, whose
share of calls without a seat token (CreateGame) is bounded per address."""
CALL_TIMEOUT_S = 30.0


def error_kind(error: Exception) -> str:
    """A short name of an error: gRPC status and details, or type and message."""
    if isinstance(error, grpc.aio.AioRpcError):
        return f"{error.code().name}: {(error.details() or '')[:100]}"
    return f"{type(error).__name__}: {str(error)[:100]}"


@dataclass
class Cell:
    """One timed window of one system at one concurrency."""

    system: str
    matches: int
    rep: int
    moves: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0
    p50_ms: float | None = None
    p99_ms: float | None = None
    server_cpu_s: float = 0.0  # gateway+engine, or the Node server
    redis_cpu_s: float = 0.0  # teoti only

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def cpu_ms_per_move(self) -> float | None:
        return self.server_cpu_s * 1000 / self.moves if self.moves else None

    @property
    def cpu_with_redis_ms_per_move(self) -> float | None:
        total = self.server_cpu_s + self.redis_cpu_s
        return total * 1000 / self.moves if self.moves else None


def cpu_seconds(pids: Sequence[int]) -> float:
    """utime+stime of ``pids`` in seconds (/proc/<pid>/stat fields 14 and 15)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # fields 14, 15 counted from 1
    return total / CLOCK_TICKS


def percentile_ms(ordered: list[float], q: float) -> float | None:
    """The q-th percentile (0..100) of sorted latencies in seconds, in milliseconds."""
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))] * 1000


# --- teoti ---------------------------------------------------------------------------


class Service:
    """A ``teoti`` service subprocess (logs to a file in ``log_dir``)."""

    def __init__(self, args: list[str], log_path: Path) -> None:
        self._log: IO[bytes] = log_path.open("ab")
        self.log_path = log_path
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *args],
            cwd=ROOT,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "TEOTI_BOT_SECRET": BOT_SECRET},
        )

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


@contextlib.contextmanager
def teoti_services(
    redis_url: str,
    log_dir: Path,
    gateway_limits: Sequence[str] = NO_CREATION_QUOTA,
    deployment: str = "split",
) -> Iterator[tuple[str, list[int], int]]:
    """Yield (gateway target, server pids, redis pid): of a split deployment ([gateway,
    engine]), or with ``deployment="serve"`` of ``teoti serve`` (gateway, engine and bot
    worker in one process, the engine called in-process).

    ``gateway_limits`` are the gateway's limit flags: by default its rate limit per client
    stays on (its bookkeeping is part of a move's CPU), raised for one address playing
    every seat, and the creation quota is off (see NO_CREATION_QUOTA). A split
    gateway sends its commands on the engine link (the engine's ``--link-port``).
    """
    prefix = f"peer-{uuid.uuid4().hex[:8]}"
    common = ["--redis-url", redis_url, "--key-prefix", prefix, "--extra-ruleset", NIM_RULESET]
    redis_pid = int(redis.Redis.from_url(redis_url).info("server")["process_id"])
    if deployment == "serve":
        port = free_port()
        # The web face as a newcomer gets it, on a port of its own (8080 may be taken by
        # another service or benchmark on the machine).
        web = ["--web-port", str(free_port())]
        serve = Service(
            ["serve", "--port", str(port), *web, *common, *gateway_limits],
            log_dir / "serve.log",
        )
        try:
            yield f"127.0.0.1:{port}", [serve.process.pid], redis_pid
        finally:
            serve.stop()
        return
    engine_port, link_port, gateway_port = free_port(), free_port(), free_port()
    engine = Service(
        ["engine", "--port", str(engine_port), "--link-port", str(link_port), *common],
        log_dir / "engine.log",
    )
    gateway = Service(
        [
            "gateway",
            *("--port", str(gateway_port), "--engine", f"127.0.0.1:{link_port}"),
            *common,
            *gateway_limits,
        ],
        log_dir / "gateway.log",
    )
    try:
        yield f"127.0.0.1:{gateway_port}", [gateway.process.pid, engine.process.pid], redis_pid
    finally:
        gateway.stop()
        engine.stop()


async def wait_for_teoti(target: str) -> None:
    """Wait until the gateway answers and can reach the engine (a game is created)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            async with TeotiClient(target, timeout_s=2) as client:
                await client.create_game(
                    [SeatInfo("human", "a"), SeatInfo("human", "b")], "nim", NIM_OPTIONS
                )
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


class GameOver(Exception):
    """The seat found the game ended (three-call mode): not an error, start another."""


class TeotiMatch:
    """One Nim game after another, played by two seats, each on its own channel, or on
    clients of a shared ``pool`` (which the match then does not close)."""

    def __init__(
        self,
        target: str,
        three_calls: bool = False,
        pool: Sequence[TeotiClient] = (),
        unary: bool = False,
    ) -> None:
        # A connection per seat, as boardgame.io's clients each have their own socket
        # (gRPC channels to one target otherwise share one connection and its rate limit).
        self.owned = not pool
        self.seats = list(pool) or [
            TeotiClient(
                target, CALL_TIMEOUT_S, channel_options=OWN_CONNECTION, play_stream=not unary
            )
            for _ in range(2)
        ]
        self.three_calls = three_calls
        self.game_id = ""
        self.tokens: dict[int, str] = {}
        self.to_act = 0

    async def new_game(self) -> None:
        created = await self.seats[0].create_game(
            [SeatInfo("human", "a"), SeatInfo("human", "b")], "nim", NIM_OPTIONS
        )
        self.game_id, self.tokens, self.to_act = created.game_id, created.seat_tokens, 0

    async def play(self, cell: Cell, latencies: list[float], stop_at: float) -> None:
        while time.monotonic() < stop_at:
            seat = self.to_act
            start = time.perf_counter()
            try:
                finished, next_seat = await self._move(seat)
            except GameOver:
                await self._replace(cell)
                continue
            except Exception as error:  # counted and printed, never hidden
                kind = error_kind(error)
                cell.errors += 1
                cell.error_kinds[kind] = cell.error_kinds.get(kind, 0) + 1
                await self._replace(cell)
                continue
            latencies.append(time.perf_counter() - start)
            cell.moves += 1
            if finished:
                await self._replace(cell)
            else:
                self.to_act = next_seat

    async def _move(self, seat: int) -> tuple[bool, int]:
        """Play ``seat``'s move: (game finished, seat to act next)."""
        client, token = self.seats[seat], self.tokens[seat]
        if not self.three_calls:
            moved = await client.play(self.game_id, seat, token, {"take": 1})
            finished = moved.game.finished
            return finished, (-1 if finished else moved.game.seats_to_act[0])
        # What a client did before return_view: read its view and its legal actions, act.
        # The seats alternate; a game's end shows in the next seat's GetGame (one more
        # call per game, counted in the CPU, not as a move).
        view = await client.get_game(self.game_id, seat, token)
        if view.finished:
            raise GameOver
        (first, *_) = await client.legal_actions(self.game_id, seat, token)
        await client.submit_action(self.game_id, seat, token, first.action)
        return False, 1 - seat

    async def _replace(self, cell: Cell) -> None:
        try:
            await self.new_game()
        except Exception as error:
            kind = f"create {error_kind(error)}"
            cell.errors += 1
            cell.error_kinds[kind] = cell.error_kinds.get(kind, 0) + 1
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        if self.owned:
            for client in self.seats:
                await client.close()


async def run_teoti(
    target: str,
    pids: list[int],
    redis_pid: int,
    matches: int,
    seconds: float,
    rep: int,
    three_calls: bool = False,
    connections: int = 0,
    unary: bool = False,
) -> Cell:
    """One timed window of ``matches`` concurrent teoti matches (``three_calls``: GetGame,
    ListLegalActions and SubmitAction per move, as clients did before return_view;
    ``connections`` > 0: every seat plays on one of that many shared client connections
    instead of its own; ``unary``: a SubmitAction call per move instead of a message on
    the seat's Play stream)."""
    system = "teoti-3calls" if three_calls else "teoti-unary" if unary else "teoti"
    cell = Cell(system, matches, rep)
    pool = [
        TeotiClient(target, CALL_TIMEOUT_S, channel_options=OWN_CONNECTION, play_stream=not unary)
        for _ in range(connections)
    ]
    players = [
        TeotiMatch(
            target,
            three_calls,
            [pool[(2 * i) % connections], pool[(2 * i + 1) % connections]],
            unary,
        )
        if pool
        else TeotiMatch(target, three_calls, unary=unary)
        for i in range(matches)
    ]
    try:
        await asyncio.gather(*(p.new_game() for p in players))
        # Every seat's connection and Play stream up before the clock starts, as
        # boardgame.io's driver connects every match's sockets before it says "ready":
        # otherwise at 100 matches the 100 second seats' first moves each wait for their
        # connection to be made, about 1% of a window's moves, and that is its p99.
        clients = {id(c): c for p in players for c in p.seats}
        connected = await asyncio.gather(
            *(c.connect() for c in clients.values()), return_exceptions=True
        )
        for failed in (r for r in connected if isinstance(r, Exception)):
            kind = f"connect {error_kind(failed)}"  # counted; its seat connects on its move
            cell.errors += 1
            cell.error_kinds[kind] = cell.error_kinds.get(kind, 0) + 1
        latencies: list[float] = []
        cpu0, redis0 = cpu_seconds(pids), cpu_seconds([redis_pid])
        start = time.monotonic()
        await asyncio.gather(*(p.play(cell, latencies, start + seconds) for p in players))
        cell.elapsed_s = time.monotonic() - start
        cell.server_cpu_s = cpu_seconds(pids) - cpu0
        cell.redis_cpu_s = cpu_seconds([redis_pid]) - redis0
    finally:
        await asyncio.gather(*(p.close() for p in players), *(c.close() for c in pool))
    latencies.sort()
    cell.p50_ms, cell.p99_ms = percentile_ms(latencies, 50), percentile_ms(latencies, 99)
    return cell


# --- boardgame.io --------------------------------------------------------------------


def peer_ready() -> str:
    """'' if boardgame.io can run (installing it with ``npm ci`` if needed), else why not."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "Node.js (node and npm) is not installed"
    if not (PEER_DIR / "node_modules" / "boardgame.io").is_dir():
        print("installing boardgame.io: npm ci in benchmarks/peer ...", flush=True)
        try:
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund"],
                cwd=PEER_DIR,
                capture_output=True,
                text=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            return "npm ci took more than 10 minutes"
        if done.returncode != 0:
            return f"npm ci failed: {done.stderr.strip()[-500:]}"
    return ""


@contextlib.contextmanager
def bgio_server(log_dir: Path) -> Iterator[tuple[str, int]]:
    """Yield (host:port, pid) of a boardgame.io server with in-memory storage."""
    port = free_port()
    log = (log_dir / "bgio-server.log").open("ab")
    process = subprocess.Popen(
        ["node", "server.js", str(port)],
        cwd=PEER_DIR,
        stdout=subprocess.PIPE,
        stderr=log,
        env={**os.environ, "NODE_ENV": "production"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if b"listening" not in line:
            raise RuntimeError(f"boardgame.io server did not start; see {log_dir}")
        yield f"127.0.0.1:{port}", process.pid
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def run_bgio(address: str, pid: int, matches: int, seconds: float, rep: int) -> Cell:
    """One timed window of ``matches`` concurrent boardgame.io matches (driver.js)."""
    cell = Cell("boardgame.io", matches, rep)
    driver = subprocess.Popen(
        ["node", "driver.js", address, str(matches), str(seconds)],
        cwd=PEER_DIR,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert driver.stdin is not None and driver.stdout is not None
    try:
        line = driver.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"boardgame.io driver failed: {line} {driver.stderr}")
        cpu0 = cpu_seconds([pid])
        driver.stdin.write("go\n")
        driver.stdin.flush()
        line = driver.stdout.readline()
        if not line.strip():
            assert driver.stderr is not None
            raise RuntimeError(f"boardgame.io driver died: {driver.stderr.read()[-2000:]}")
        result = json.loads(line)
        cell.server_cpu_s = cpu_seconds([pid]) - cpu0
    finally:
        try:
            driver.wait(30)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()
    cell.moves, cell.errors = result["moves"], result["errors"]
    cell.error_kinds = result["error_kinds"]
    cell.elapsed_s = result["elapsed_s"]
    cell.p50_ms, cell.p99_ms = result["p50_ms"], result["p99_ms"]
    return cell


# --- report --------------------------------------------------------------------------


def spread(values: Sequence[float | None]) -> str:
    """'min / median / max' of the values that exist."""
    present = [v for v in values if v is not None]
    if not present:
        return "-"
    fmt = "{:.3g}".format
    return f"{fmt(min(present))} / {fmt(statistics.median(present))} / {fmt(max(present))}"


SYSTEMS = ("teoti", "teoti-unary", "teoti-3calls", "boardgame.io")
METRICS: list[tuple[str, str]] = [
    ("moves/s", "moves_per_s"),
    ("p50 ms", "p50_ms"),
    ("p99 ms", "p99_ms"),
    ("server CPU ms/move", "cpu_ms_per_move"),
    ("  + Redis", "cpu_with_redis_ms_per_move"),
]


def report(cells: list[Cell]) -> None:
    """Print every cell, then min/median/max per system and the paired ratios."""
    print("\nevery window:")
    for c in cells:
        cpu = c.cpu_ms_per_move
        print(
            f"  rep {c.rep} {c.system:>12} x{c.matches:<3} {c.moves:6d} moves "
            f"{c.moves_per_s:8.1f}/s p50 {c.p50_ms or 0:7.2f} p99 {c.p99_ms or 0:7.2f} ms "
            f"cpu {cpu or 0:.3f} ms/move (+redis {c.cpu_with_redis_ms_per_move or 0:.3f}) "
            f"errors {c.errors}"
        )
        for kind, count in c.error_kinds.items():
            print(f"      error x{count}: {kind}")
    print("\nmin / median / max over the repetitions:")
    for matches in sorted({c.matches for c in cells}):
        print(f"  {matches} concurrent matches")
        for label, attr in METRICS:
            row = f"    {label:<20}"
            for system in [s for s in SYSTEMS if any(c.system == s for c in cells)]:
                values = [
                    getattr(c, attr) for c in cells if c.system == system and c.matches == matches
                ]
                row += f" {system}: {spread(values):<26}"
            pairs = paired(cells, matches)
            ratios = [
                getattr(a, attr) / getattr(b, attr)
                for a, b in pairs
                if getattr(a, attr) is not None and getattr(b, attr)
            ]
            if ratios:
                row += f" teoti/bgio: {spread(ratios)}"
            print(row)
    total = sum(c.errors for c in cells)
    print(f"\nerrors: {total} in all")


def paired(cells: list[Cell], matches: int) -> list[tuple[Cell, Cell]]:
    """(teoti, boardgame.io) cells of the same repetition at ``matches`` (teoti: its
    Play-stream cells, else, with ``--unary``, its unary ones)."""
    ours_system = "teoti" if any(c.system == "teoti" for c in cells) else "teoti-unary"
    ours = {c.rep: c for c in cells if c.system == ours_system and c.matches == matches}
    theirs = {c.rep: c for c in cells if c.system == "boardgame.io" and c.matches == matches}
    return [(ours[r], theirs[r]) for r in sorted(ours) if r in theirs]


# --- main ----------------------------------------------------------------------------


async def run_many(args: argparse.Namespace, redis_url: str, log_dir: Path) -> list[Cell]:
    """``--many-games N``: N concurrent games through one gateway, teoti alone, the seats
    sharing ``--connections`` client connections; one window per repetition."""
    cells: list[Cell] = []
    services = teoti_services(redis_url, log_dir, NO_LIMITS, args.deployment)
    with services as (target, pids, redis_pid):
        await wait_for_teoti(target)
        for rep in range(1, args.reps + 1):
            cell = await run_teoti(
                target,
                pids,
                redis_pid,
                args.many_games,
                args.seconds,
                rep,
                connections=args.connections,
                unary=args.unary,
            )
            print(
                f"rep {rep} teoti x{args.many_games}: {cell.moves_per_s:.0f} moves/s, "
                f"{cell.errors} errors",
                flush=True,
            )
            cells.append(cell)
    return cells


def teoti_modes(args: argparse.Namespace) -> list[tuple[bool, bool]]:
    """The teoti windows of one repetition, in order, as (three_calls, unary)."""
    modes = [(False, False), (False, True)] if args.stream_and_unary else [(False, args.unary)]
    return [*modes, (True, True)] if args.three_calls else modes


async def run(args: argparse.Namespace, redis_url: str, log_dir: Path) -> list[Cell]:
    concurrencies = [int(m) for m in args.matches.split(",")]
    why_not = "" if args.teoti_only else peer_ready()
    if why_not:
        print(f"boardgame.io SKIPPED: {why_not}; measuring teoti alone", flush=True)
    cells: list[Cell] = []
    with contextlib.ExitStack() as stack:
        target, pids, redis_pid = stack.enter_context(
            teoti_services(
                redis_url,
                log_dir,
                deployment=args.deployment,
            )
        )
        await wait_for_teoti(target)
        peer = None if why_not or args.teoti_only else stack.enter_context(bgio_server(log_dir))
        for rep in range(1, args.reps + 1):
            for matches in concurrencies:
                for three_calls, unary in teoti_modes(args):
                    cell = await run_teoti(
                        target,
                        pids,
                        redis_pid,
                        matches,
                        args.seconds,
                        rep,
                        three_calls,
                        unary=unary,
                    )
                    print(
                        f"rep {rep} {cell.system} x{matches}: {cell.moves_per_s:.0f} moves/s",
                        flush=True,
                    )
                    cells.append(cell)
                if peer is not None:
                    cell = await asyncio.to_thread(
                        run_bgio, peer[0], peer[1], matches, args.seconds, rep
                    )
                    print(
                        f"rep {rep} boardgame.io x{matches}: {cell.moves_per_s:.0f} moves/s",
                        flush=True,
                    )
                    cells.append(cell)
    return cells


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="timed window per cell")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions (>= 3)")
    parser.add_argument("--matches", default="1,10,100", help="concurrent matches, comma list")
    parser.add_argument(
        "--redis-url",
        help="a Redis of its own (default: an embedded one; a shared Redis's CPU would count "
        "other clients' work)",
    )
    parser.add_argument(
        "--embedded-redis",
        choices=("auto", "unix", "tcp"),
        default="auto",
        help="how the embedded Redis listens: auto (the default) a Unix socket for "
        "--deployment serve, as teoti serve's own, and loopback TCP for split",
    )
    parser.add_argument("--teoti-only", action="store_true", help="skip boardgame.io")
    parser.add_argument(
        "--deployment",
        choices=("split", "serve"),
        default="split",
        help="split: teoti gateway + teoti engine processes (as deployed on Kubernetes); "
        "serve: teoti serve, one process calling its engine in-process",
    )
    parser.add_argument(
        "--unary",
        action="store_true",
        help="play teoti with one unary SubmitAction call per move instead of a message on "
        "each seat's long-lived Play stream",
    )
    parser.add_argument(
        "--stream-and-unary",
        action="store_true",
        help="measure teoti both ways (Play stream, then unary calls) in every repetition",
    )
    parser.add_argument(
        "--three-calls",
        action="store_true",
        help="also play teoti with GetGame + ListLegalActions + SubmitAction per move "
        "(as clients did before return_view) to show what one call per move saves",
    )
    parser.add_argument(
        "--many-games",
        type=int,
        default=0,
        help="instead: this many concurrent games (e.g. 1000) through one gateway, teoti "
        "alone, its per-client limits off (every game comes from one address)",
    )
    parser.add_argument(
        "--connections",
        type=int,
        default=50,
        help="client connections the seats share in --many-games mode",
    )
    parser.add_argument(
        "--client-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the teoti driver's event loop: uvloop, as every teoti command runs its "
        "client (services/event_loop.py), or asyncio's own",
    )
    parser.add_argument("--json", help="write every window's figures to this file")
    args = parser.parse_args(argv)
    log_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"teoti-peer-{uuid.uuid4().hex[:8]}"
    log_dir.mkdir(parents=True)
    print(f"service logs in {log_dir}", flush=True)
    with contextlib.ExitStack() as stack:
        unix = args.embedded_redis == "unix" or (
            args.embedded_redis == "auto" and args.deployment == "serve"
        )
        url = args.redis_url or stack.enter_context(EmbeddedRedis(unix_socket=unix)).url
        print(f"redis at {redact_url(url)}", flush=True)
        driver = (run_many if args.many_games else run)(args, url, log_dir)
        cells = run_service(driver) if args.client_loop == "uvloop" else asyncio.run(driver)
    report(cells)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [
                    {
                        **asdict(c),
                        "moves_per_s": c.moves_per_s,
                        "cpu_ms_per_move": c.cpu_ms_per_move,
                    }
                    for c in cells
                ],
                indent=1,
            )
        )
    return 1 if any(c.errors for c in cells) else 0


if __name__ == "__main__":
    raise SystemExit(main())
