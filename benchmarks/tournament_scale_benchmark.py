"""A Swiss tournament at the size of a real open one, on the split stack (issue 34).

Every part is its own ``teoti`` process on a Redis Cluster of ``--masters`` embedded
nodes: 2 engines, 2 bot workers, 2 directors and 2 gateways by default. ``--players``
bot players enter a Swiss of ``--rounds`` rounds at ``--table``-seat tables of
``--ruleset``, each game on a short clock. While round ``--kill-round`` plays (once a
tenth of its tables have finished) one process of each kind gets SIGKILL and is
started again ``--down-s`` seconds later. Two watchers follow the tournament through
WatchTournament, one per gateway, resuming after the version they last saw when their
gateway goes away.

At the end the run counts and prints (and exits 1 on any of them):

- errors: calls that failed for a reason other than a killed process's outage (those
  are retried and counted apart), error records in the processes' logs;
- games lost: a paired table whose game is missing, unfinished, created twice, or a
  game in the index that no table names;
- games that do not verify (``VerifyGame`` through a gateway: the chain and the
  revealed seed), a tournament log that does not (VerifyTournament: chain and every
  pairing re-derived from the revealed seed), standings served that differ from the
  standings recomputed from the log alone, a leaderboard without every player's games.

and reports, from the logs (``recorded_at`` of each event) and Redis:

- time per round (RoundPaired to RoundFinished), moves (commands) and events per second;
- move latency: time from one command's events to the next command's in the same game
  (a seat's turn starting to its move appended, bots' thinking and queueing included),
  p50/p99/max over every move;
- pairings published per round, as each watcher received them, and how long after
  RoundPaired was recorded;
- director failover: the longest delay from a game's last event to its TableFinished,
  for games that ended while a director was down, against the median delay otherwise;
- Redis memory per game (used_memory summed over the masters, after minus before).

    .venv/bin/python -m benchmarks.tournament_scale_benchmark               # 2,000 players
    .venv/bin/python -m benchmarks.tournament_scale_benchmark --players 16 --rounds 2

The small size runs in CI (tests/scale/test_tournament_scale_benchmark.py, slow).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import grpc
import redis.asyncio as aioredis
from teoti_client.proto import game_service_pb2 as game_pb
from teoti_client.proto import game_service_pb2_grpc as game_grpc

from benchmarks.harness import Errors, percentile, raise_open_files
from services.embedded_redis import EmbeddedRedisCluster, free_port
from services.engine.adapters import RedisEventStore
from services.engine.adapters.redis_client import RedisConfig
from services.engine.domain.records import StoredEvent
from services.engine.domain.rulesets import default_ruleset
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.tournament.aggregate import fold
from tests.faults import Proc

T = TypeVar("T")

ORGANISER = "scale-organiser-" + uuid.uuid4().hex
OUTAGE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def seconds_between(earlier: str, later: str) -> float:
    """Seconds from one ISO 8601 ``recorded_at`` to another."""
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()


@dataclass
class Tally:
    """What the run counted: errors, outage retries, and the watchers' pairings."""

    errors: Errors = field(default_factory=Errors)
    outage_retries: int = 0
    pairings_seen: dict[str, dict[int, tuple[int, float]]] = field(default_factory=dict)
    """watcher -> round -> (tables in its RoundPaired, monotonic time it arrived)."""
    watcher_resumes: int = 0


async def retrying(tally: Tally, where: str, call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, again while a gateway or engine is down (a killed process's outage is
    expected here and counted apart); any other failure is an error and is raised."""
    for attempt in range(240):
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() not in OUTAGE or attempt == 239:
                tally.errors.add(where, error)
                raise
            tally.outage_retries += 1
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable")


@dataclass
class Stack:
    """The processes of the split deployment, by kind."""

    engines: list[Proc]
    bots: list[Proc]
    directors: list[Proc]
    gateways: list[Proc]
    gateway_ports: list[int]

    @property
    def all(self) -> list[Proc]:
        """Every process."""
        return [*self.engines, *self.bots, *self.directors, *self.gateways]


def build_stack(args: argparse.Namespace, nodes: str, prefix: str, folder: Path) -> Stack:
    """The ``teoti`` processes (not started) on the cluster ``nodes`` under ``prefix``."""
    common = ["--redis-cluster-nodes", nodes, "--key-prefix", prefix]
    links = [free_port() for _ in range(args.engines)]
    engines_target = ",".join(f"127.0.0.1:{p}" for p in links)
    engines = [
        Proc(
            ["engine", "--port", str(free_port()), "--link-port", str(link), *common],
            folder / f"engine{i}.log",
        )
        for i, link in enumerate(links)
    ]
    bot_args = [
        "bot",
        "--engine",
        engines_target,
        "--concurrency",
        str(args.bot_concurrency),
        "--claim-idle-ms",
        "2000",
        "--max-deliveries",
        "100",
        *common,
    ]
    bots = [Proc(bot_args, folder / f"bot{i}.log") for i in range(args.bots)]
    directors = [
        Proc(["director", "--engine", engines_target, *common], folder / f"director{i}.log")
        for i in range(args.directors)
    ]
    ports = [free_port() for _ in range(args.gateways)]
    gateways = [
        Proc(
            ["gateway", "--port", str(p), "--engine", engines_target, *common],
            folder / f"gateway{i}.log",
        )
        for i, p in enumerate(ports)
    ]
    return Stack(engines, bots, directors, gateways, ports)


async def watch(
    name: str, target: str, tournament_id: str, tally: Tally, stop: asyncio.Event
) -> None:
    """Follow the tournament through one gateway, noting each RoundPaired's arrival;
    resume after the last version seen when the stream breaks (its gateway killed)."""
    seen: dict[int, tuple[int, float]] = tally.pairings_seen.setdefault(name, {})
    after = 0
    while not stop.is_set():
        try:
            async with grpc.aio.insecure_channel(target) as channel:
                stub = pb_grpc.TournamentServiceStub(channel)
                request = pb.WatchTournamentRequest(
                    tournament_id=tournament_id, after_version=after
                )
                async for reply in stub.WatchTournament(request):
                    event = reply.event
                    after = event.version
                    if event.type == "RoundPaired":
                        payload = json.loads(event.payload_json)
                        seen[payload["round"]] = (len(payload["tables"]), time.monotonic())
                    if event.type == "TournamentFinished":
                        return
        except grpc.aio.AioRpcError as error:
            if error.code() not in OUTAGE:
                tally.errors.add(f"watch {name}", error)
                return
            tally.watcher_resumes += 1
            await asyncio.sleep(0.5)


async def register_all(stub: Any, tournament_id: str, players: int, tally: Tally) -> None:
    """Enter ``players`` bot players, a few calls at a time."""
    gate = asyncio.Semaphore(8)

    async def one(n: int) -> None:
        async with gate:
            await retrying(
                tally,
                "RegisterPlayer",
                lambda: stub.RegisterPlayer(
                    pb.RegisterPlayerRequest(
                        tournament_id=tournament_id,
                        player=f"bot-{n:04}",
                        bot=True,
                        organiser_token=ORGANISER,
                    )
                ),
            )

    await asyncio.gather(*(one(n) for n in range(players)))


@dataclass
class Kills:
    """When each kind of process was killed (monotonic and wall clock) and restarted."""

    at: float = 0.0
    wall: str = ""
    back_at: float = 0.0


async def play(
    args: argparse.Namespace,
    stack: Stack,
    stubs: list[Any],
    tally: Tally,
    created_hook: Callable[[str], None],
) -> tuple[str, Kills, float]:
    """Create the tournament (``created_hook`` gets its id), fill and start it, kill one process of each kind during
    ``--kill-round``, and wait for the end. Returns the tournament id, the kill times and
    the seconds from start to finish."""
    config = pb.TournamentConfig(
        name="scale",
        ruleset=args.ruleset,
        options_json=args.options,
        format=pb.TOURNAMENT_FORMAT_SWISS,
        min_seats=args.table,
        max_seats=args.table,
        rounds=args.rounds,
        rated=True,
        time_control=pb.TournamentTimeControl(base_ms=args.clock_s * 1000, increment_ms=1000),
    )
    created = await retrying(
        tally,
        "CreateTournament",
        lambda: stubs[0].CreateTournament(
            pb.CreateTournamentRequest(config=config, command_id="scale", organiser_token=ORGANISER)
        ),
    )
    tid: str = created.tournament.tournament_id
    created_hook(tid)
    await register_all(stubs[0], tid, args.players, tally)
    started = time.monotonic()
    await retrying(
        tally,
        "StartTournament",
        lambda: stubs[1 % len(stubs)].StartTournament(
            pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
        ),
    )
    print(f"started: {args.players} players, {args.rounds} rounds", flush=True)
    kills = Kills()
    deadline = started + args.timeout_s
    polls = 0
    reported: set[int] = set()
    while True:
        got = (await poll_once(stubs[polls % len(stubs)], tid, tally)).tournament
        polls += 1
        for round_ in got.rounds:
            if round_.finished and round_.round not in reported:
                reported.add(round_.round)
                print(
                    f"  round {round_.round} finished at {time.monotonic() - started:.0f} s",
                    flush=True,
                )
        current = [r for r in got.rounds if r.round == args.kill_round]
        if not kills.at and current:
            done = sum(t.finished for t in current[0].tables)
            if done >= max(1, len(current[0].tables) // 10):
                kills = await kill_one_of_each(stack, args.down_s)
        if got.status == "finished":
            return tid, kills, time.monotonic() - started
        if time.monotonic() > deadline:
            raise TimeoutError(f"the tournament did not finish in {args.timeout_s} s")
        await asyncio.sleep(args.poll_s)


async def poll_once(stub: Any, tournament_id: str, tally: Tally) -> Any:
    """GetTournament through ``stub`` (retried through an outage)."""
    request = pb.GetTournamentRequest(tournament_id=tournament_id)
    return await retrying(tally, "GetTournament", lambda: stub.GetTournament(request))


async def kill_one_of_each(stack: Stack, down_s: float) -> Kills:
    """SIGKILL the first engine, bot worker and director and the last gateway (the
    watchers and pollers use both), then start them again after ``down_s``."""
    victims = [stack.engines[0], stack.bots[0], stack.directors[0], stack.gateways[-1]]
    kills = Kills(at=time.monotonic(), wall=datetime.now().astimezone().isoformat())
    for proc in victims:
        proc.kill9()
    print(
        f"  killed an engine, a bot worker, a director and a gateway; back in {down_s} s",
        flush=True,
    )
    await asyncio.sleep(down_s)
    for proc in victims:
        proc.start()
    kills.back_at = time.monotonic()
    return kills


async def used_memory(nodes: str) -> int:
    """``used_memory`` summed over the cluster's masters, in bytes."""
    total = 0
    for node in nodes.split(","):
        host, port = node.rsplit(":", 1)
        client = aioredis.Redis(host=host, port=int(port))
        try:
            total += int((await client.info("memory"))["used_memory"])
        finally:
            await client.aclose()
    return total


@dataclass
class GameFigures:
    """What one game's log says: events, commands, gaps between commands (s), its last
    event's time, and whether the service's audit passed."""

    events: int
    commands: int
    gaps: list[float]
    ended_at: str
    verified: bool


def figures_of(log: Sequence[StoredEvent]) -> tuple[int, list[float]]:
    """Commands in ``log`` and the seconds from each command's last event to the next
    command's first (the engine's own events between count with the command before)."""
    commands = 0
    gaps: list[float] = []
    previous_end = ""
    current = None
    for event in log:
        command = event.metadata.command_id
        if command and command != current:
            commands += 1
            if previous_end:
                gaps.append(seconds_between(previous_end, event.metadata.recorded_at))
            current = command
        previous_end = event.metadata.recorded_at
    return commands, gaps


async def audit_games(
    games: Sequence[str], store: RedisEventStore, game_stubs: list[Any], tally: Tally
) -> dict[str, GameFigures]:
    """Read and audit every game (VerifyGame through the gateways, in turn)."""
    gate = asyncio.Semaphore(8)
    out: dict[str, GameFigures] = {}

    async def one(index: int, game_id: str) -> None:
        async with gate:
            stub = game_stubs[index % len(game_stubs)]
            report = await retrying(
                tally,
                "VerifyGame",
                lambda: stub.VerifyGame(game_pb.VerifyGameRequest(game_id=game_id)),
            )
            log = await store.read(game_id)
        commands, gaps = figures_of(log)
        out[game_id] = GameFigures(
            len(log),
            commands,
            gaps,
            log[-1].metadata.recorded_at,
            report.ok and report.seed_revealed,
        )

    await asyncio.gather(*(one(i, g) for i, g in enumerate(games)))
    return out


def error_records(stack: Stack) -> dict[str, int]:
    """Error-level records per process log (a JSON log line with level error/critical)."""
    counts: dict[str, int] = {}
    for proc in stack.all:
        found = 0
        if proc.log.exists():
            for line in proc.log.read_text(errors="replace").splitlines():
                if (
                    '"level": "error"' in line
                    or '"level": "critical"' in line
                    or line.startswith("Traceback")
                ):
                    found += 1
        if found:
            counts[proc.log.name] = found
    return counts


async def measure(args: argparse.Namespace, folder: Path) -> int:
    """One run on a fresh cluster; prints the report, returns the exit status."""
    raise_open_files()
    prefix = f"tscale-{uuid.uuid4().hex[:8]}"
    tally = Tally()
    with EmbeddedRedisCluster(masters=args.masters) as cluster:
        stack = build_stack(args, cluster.nodes, prefix, folder)
        store = RedisEventStore.from_config(RedisConfig.cluster(cluster.nodes), prefix=prefix)
        targets = [f"127.0.0.1:{p}" for p in stack.gateway_ports]
        channels = [grpc.aio.insecure_channel(t) for t in targets]
        stubs = [pb_grpc.TournamentServiceStub(c) for c in channels]
        game_stubs = [game_grpc.GameServiceStub(c) for c in channels]
        stop = asyncio.Event()
        watchers: list[asyncio.Task[None]] = []
        try:
            for proc in stack.all:
                proc.start()
            memory_before = await used_memory(cluster.nodes)

            def follow(tid: str) -> None:
                watchers.extend(
                    asyncio.create_task(watch(f"gateway{i}", t, tid, tally, stop))
                    for i, t in enumerate(targets)
                )

            tid, kills, total_s = await play(args, stack, stubs, tally, follow)
            await asyncio.wait_for(asyncio.gather(*watchers), 60)
            return await report(
                args,
                tid,
                kills,
                total_s,
                store,
                stubs,
                game_stubs,
                tally,
                stack,
                memory_before,
                cluster.nodes,
            )
        finally:
            stop.set()
            for task in watchers:
                task.cancel()
            for proc in stack.all:
                proc.stop()
            for channel in channels:
                await channel.close()
            await store.close()


async def report(
    args: argparse.Namespace,
    tid: str,
    kills: Kills,
    total_s: float,
    store: RedisEventStore,
    stubs: list[Any],
    game_stubs: list[Any],
    tally: Tally,
    stack: Stack,
    memory_before: int,
    nodes: str,
) -> int:
    """Audit everything, print the figures, and return 0 only if nothing failed."""
    memory_after = await used_memory(nodes)
    log = await store.read(f"t-{tid}")
    paired = {e.payload["round"]: e for e in log if e.type == "RoundPaired"}
    finished = {e.payload["round"]: e for e in log if e.type == "RoundFinished"}
    tables = [t for e in paired.values() for t in e.payload["tables"]]
    games = [t["game_id"] for t in tables]
    recorded = {
        e.payload["game_id"]: e.metadata.recorded_at for e in log if e.type == "TableFinished"
    }
    indexed = sorted(g.game_id for g in await store.list_games())
    audited = await audit_games(games, store, game_stubs, tally)
    verified = await retrying(
        tally,
        "VerifyTournament",
        lambda: stubs[0].VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid)),
    )

    served = (await poll_once(stubs[0], tid, tally)).tournament.standings
    standings_agree = [(r.player, r.rank, r.points) for r in fold(log).standings()] == [
        (r.player, r.rank, r.points) for r in served
    ]
    # A leaderboard lists 500 rows at most: the top ones, each rated for every game.
    shown = min(args.players, 500)
    board = await retrying(
        tally,
        "GetLeaderboard",
        lambda: stubs[0].GetLeaderboard(
            pb.GetLeaderboardRequest(ruleset=args.ruleset, limit=shown)
        ),
    )
    rated = len(board.rows) == shown and all(r.games == args.rounds for r in board.rows)

    lost = len(set(games) ^ set(indexed)) + (len(games) - len(set(games)))
    lost += sum(1 for g in games if g not in recorded)
    bad = [g for g, f in audited.items() if not f.verified]
    expected_tables = args.players // args.table
    commands = sum(f.commands for f in audited.values())
    events = sum(f.events for f in audited.values())
    gaps = [gap for f in audited.values() for gap in f.gaps]
    lags = {g: seconds_between(audited[g].ended_at, recorded[g]) for g in games if g in recorded}
    in_outage = [
        lag
        for g, lag in lags.items()
        if kills.wall and 0 <= seconds_between(kills.wall, audited[g].ended_at) <= args.down_s + 10
    ]
    logged_errors = error_records(stack)

    print(
        f"players: {args.players}, table: {args.table}, rounds: {len(paired)}/{args.rounds}, "
        f"ruleset: {args.ruleset}, processes: {args.masters} Redis masters, "
        f"{args.engines} engines, {args.bots} bot workers, {args.directors} directors, "
        f"{args.gateways} gateways, cpus: {os.cpu_count()}"
    )
    for n in sorted(paired):
        took = (
            seconds_between(paired[n].metadata.recorded_at, finished[n].metadata.recorded_at)
            if n in finished
            else float("nan")
        )
        seen = {w: s[n][0] for w, s in tally.pairings_seen.items() if n in s}
        print(
            f"round {n}: {len(paired[n].payload['tables'])} tables "
            f"(expected {expected_tables}), {took:.1f} s; pairings seen per watcher: {seen}"
        )
    print(
        f"total: {total_s:.1f} s; games: {len(games)}, commands: {commands}, events: {events}; "
        f"moves/s: {commands / total_s:.0f}, events/s: {events / total_s:.0f}"
    )
    print(
        f"move latency (turn to move, ms): p50 {percentile(gaps, 50):.0f} / "
        f"p99 {percentile(gaps, 99):.0f} / max {percentile(gaps, 100):.0f}"
    )
    if lags:
        print(
            f"table recorded after its game ended (s): median "
            f"{statistics.median(lags.values()):.2f}, max {max(lags.values()):.2f}"
        )
    print(
        f"director failover (longest table-recording delay for games ended while one was "
        f"down): {max(in_outage) if in_outage else float('nan'):.2f} s over "
        f"{len(in_outage)} games; killed: {'yes' if kills.at else 'no'}"
    )
    print(
        f"redis memory per game: {(memory_after - memory_before) / max(1, len(games)) / 1024:.0f}"
        f" KiB ({(memory_after - memory_before) / 2**20:.0f} MiB for {len(games)} games)"
    )
    print(f"outage retries: {tally.outage_retries}, watcher resumes: {tally.watcher_resumes}")
    print(
        f"tournament verified: chain {verified.chain_ok}, pairings {verified.pairings_ok}, "
        f"rounds {verified.rounds_checked}"
    )
    print(
        f"standings recomputed from the log agree: {standings_agree}; the leaderboard's "
        f"{shown} rows each rate {args.rounds} games: {rated}"
    )
    print(f"games lost: {lost}; games that do not verify: {len(bad)} {bad[:5]}")
    print(f"error records in logs: {logged_errors}")
    tally.errors.report()
    failed = (
        tally.errors.total
        or lost
        or bad
        or logged_errors
        or not kills.at
        or not (verified.chain_ok and verified.pairings_ok)
        or not (standings_agree and rated)
        or len(paired) != args.rounds
        or any(len(e.payload["tables"]) != expected_tables for e in paired.values())
    )
    return 1 if failed else 0


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--table", type=int, default=4, help="seats per table")
    parser.add_argument("--ruleset", default=default_ruleset())
    parser.add_argument(
        "--options", default='{"first_game": true}', help="ruleset options of every game (JSON)"
    )
    parser.add_argument(
        "--clock-s", type=int, default=600, help="each seat's clock in seconds (+1 s a move)"
    )
    parser.add_argument("--masters", type=int, default=3)
    parser.add_argument("--engines", type=int, default=2)
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--bot-concurrency", type=int, default=32)
    parser.add_argument("--directors", type=int, default=2)
    parser.add_argument("--gateways", type=int, default=2)
    parser.add_argument("--kill-round", type=int, default=2)
    parser.add_argument("--down-s", type=float, default=2.0)
    parser.add_argument("--poll-s", type=float, default=2.0)
    parser.add_argument("--timeout-s", type=float, default=4 * 3600)
    parser.add_argument(
        "--logs",
        type=Path,
        default=None,
        help="folder for the processes' logs (default: a temporary one)",
    )
    args = parser.parse_args(argv)
    args.kill_round = min(args.kill_round, args.rounds)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run once; the exit status is 1 if anything failed (see the module's docstring)."""
    args = parse(argv)
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
        return asyncio.run(measure(args, args.logs))
    with tempfile.TemporaryDirectory(prefix="teoti-tscale-") as folder:
        return asyncio.run(measure(args, Path(folder)))


if __name__ == "__main__":
    sys.exit(main())
