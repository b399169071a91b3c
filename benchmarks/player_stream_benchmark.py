"""Player streams through the real API: 10,000 WatchPlayer streams, "your turn" delivery.

One ``teoti engine`` and one ``teoti gateway`` process (split as deployed; no per-client
limits, no account quota) on one Redis. This process registers ``--players`` players
(default 10,000), pairs them into Nim games with both seats bound to their players, and
opens one WatchPlayer stream per player over ``--channels`` gRPC connections. Then it
plays ``--rate`` moves a second for ``--seconds`` (each a SubmitAction by the seat whose
turn it is, with its player credential) in random games, and times each ``your_turn``
the move gives the other player: from the moment the move was sent to the moment the
notice arrived on the stream (so the move's own round trip is inside the figure).

Counts as errors: a your_turn never delivered, one delivered twice, one on the wrong
player's stream, a stream that broke, any failed call. Prints min / median / p99 / max.
Run: ``python -m benchmarks.player_stream_benchmark [--players N] [--rate R]
[--seconds S] [--redis-url URL]`` from the repository root (embedded Redis without one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from teoti_client.proto import game_service_pb2 as gpb
from teoti_client.proto import game_service_pb2_grpc as ggrpc
from teoti_client.proto import player_service_pb2 as ppb
from teoti_client.proto import player_service_pb2_grpc as pgrpc

from benchmarks.harness import Errors, percentile, raise_open_files, redis_url, split_services

SETUP_CONCURRENCY = 64
"""Registrations and game creations in flight at once while setting up."""


@dataclass
class Table:
    """One game of two players: their ids and credentials by seat, whose turn it is."""

    game_id: str
    players: tuple[str, str]
    credentials: tuple[str, str]
    to_act: int = 0
    finished: bool = False
    busy: bool = False


@dataclass
class Tally:
    """What the streams saw: arrival times by (game, version), and who got what."""

    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    answered: dict[tuple[str, int], float] = field(default_factory=dict)
    expected: dict[tuple[str, int], str] = field(default_factory=dict)
    arrived: dict[tuple[str, int], list[tuple[str, float]]] = field(default_factory=dict)


def auth(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Player {credential}"),)


async def bounded(count: int, make: Any) -> list[Any]:
    """``make(i)`` for i in range(count), SETUP_CONCURRENCY at a time."""
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(i: int) -> Any:
        async with gate:
            return await make(i)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def setup(stubs: list[Any], games: list[Any], n: int, prefix: str) -> list[Table]:
    """Register ``n`` players and seat them in pairs at Nim games."""

    async def register(i: int) -> tuple[str, str]:
        stub = stubs[i % len(stubs)]
        reply = await stub.RegisterPlayer(
            ppb.PlayerServiceRegisterPlayerRequest(name=f"{prefix}-{i}")
        )
        return reply.player.player_id, reply.credential

    players = await bounded(n, register)

    async def table(i: int) -> Table:
        (a, ann), (b, bob) = players[2 * i], players[2 * i + 1]
        stub = games[i % len(games)]
        seats = [
            gpb.Seat(kind=gpb.SEAT_KIND_HUMAN, bind_to_caller=True),
            gpb.Seat(kind=gpb.SEAT_KIND_HUMAN, open=True),
        ]
        created = await stub.CreateGame(
            gpb.CreateGameRequest(ruleset="nim", seats=seats), metadata=auth(ann)
        )
        await stub.JoinGame(
            gpb.JoinGameRequest(game_id=created.game_id, seat=1), metadata=auth(bob)
        )
        return Table(created.game_id, (a, b), (ann, bob))

    return await bounded(n // 2, table)


async def watch(stub: Any, player: str, credential: str, tally: Tally, errors: Errors) -> None:
    """One player's stream: note each your_turn's arrival (the backlog's too)."""
    try:
        async for reply in stub.WatchPlayer(ppb.WatchPlayerRequest(), metadata=auth(credential)):
            now = time.perf_counter()
            data = json.loads(reply.notice.data_json)
            key = (str(data["game_id"]), int(data["version"]))
            tally.arrived.setdefault(key, []).append((player, now))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        errors.add("stream", exc)


async def move(stub: Any, table: Table, tally: Tally, errors: Errors) -> None:
    """The seat to act takes one stone; record when, and who should hear of it."""
    table.busy = True
    seat = table.to_act
    sent = time.perf_counter()
    try:
        reply = await stub.SubmitAction(
            gpb.SubmitActionRequest(
                game_id=table.game_id, seat=seat, action_json='{"take":1}', return_view=True
            ),
            metadata=auth(table.credentials[seat]),
        )
    except Exception as exc:
        errors.add("move", exc)
        table.finished = True  # leave a game whose move failed
        return
    finally:
        table.busy = False
    answered = time.perf_counter()
    table.finished = reply.game.finished
    table.to_act = 1 - seat
    if not table.finished:
        key = (table.game_id, reply.version)
        tally.sent[key] = sent
        tally.answered[key] = answered
        tally.expected[key] = table.players[1 - seat]


async def run(args: argparse.Namespace, url: str) -> int:
    errors = Errors()
    tally = Tally()
    async with split_services(url, "players", args.channels + 1) as channels:
        control = channels[-1]
        stubs = [pgrpc.PlayerServiceStub(c) for c in channels[:-1]]
        games = [ggrpc.GameServiceStub(c) for c in channels[:-1]]
        t0 = time.perf_counter()
        tables = await setup(stubs, games, args.players, f"p{random.randrange(10**6)}")
        print(
            f"set up {len(tables)} games, {args.players} players in {time.perf_counter() - t0:.1f} s"
        )
        watchers = [
            asyncio.create_task(watch(stubs[i % len(stubs)], p, c, tally, errors))
            for i, (p, c) in enumerate(
                (t.players[s], t.credentials[s]) for t in tables for s in (0, 1)
            )
        ]
        # Every stream open: each game's creation told its first seat's player (Nim's
        # seat 0), so all of them have arrived once every stream read its backlog.
        opened = time.perf_counter()
        # Polls a count that 10,000 stream tasks update (an Event per stream would do).
        while len(tally.arrived) < len(tables) and time.perf_counter() - opened < args.warmup:  # noqa: ASYNC110
            await asyncio.sleep(0.2)
        print(
            f"{len(tally.arrived)} of {len(tables)} games' first your_turn arrived "
            f"{time.perf_counter() - opened:.1f} s after the streams were asked for"
        )
        if len(tally.arrived) < len(tables):
            errors.add("streams not open", RuntimeError(f"after {args.warmup} s"))
        await asyncio.sleep(1.0)
        first = {k for k in tally.arrived}  # the creation's notices: not timed
        mover = ggrpc.GameServiceStub(control)
        rng = random.Random(7)
        start = time.perf_counter()
        total = int(args.rate * args.seconds)
        pending: set[asyncio.Task[None]] = set()
        for n in range(total):
            await asyncio.sleep(max(0.0, start + n / args.rate - time.perf_counter()))
            ready = [
                t for t in rng.sample(tables, min(8, len(tables))) if not (t.finished or t.busy)
            ]
            if not ready:
                continue
            task = asyncio.create_task(move(mover, ready[0], tally, errors))
            pending.add(task)
            task.add_done_callback(pending.discard)
        await asyncio.gather(*pending)
        await asyncio.sleep(args.settle)
        for task in watchers:
            task.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
    latencies, after_reply, round_trips = [], [], []
    for key, player in tally.expected.items():
        got = tally.arrived.get(key, [])
        if not got:
            errors.add("never delivered", RuntimeError(str(key)))
            continue
        if len(got) > 1:
            errors.add("delivered twice", RuntimeError(str(key)))
        if got[0][0] != player:
            errors.add("wrong player", RuntimeError(str(key)))
        latencies.append(got[0][1] - tally.sent[key])
        after_reply.append(max(0.0, got[0][1] - tally.answered[key]))
        round_trips.append(tally.answered[key] - tally.sent[key])
    for key in set(tally.arrived) - set(tally.expected) - first:
        errors.add("unexpected notice", RuntimeError(str(key)))
    print(
        f"streams: {2 * len(tables)}, moves timed: {len(tally.expected)} at {args.rate}/s "
        f"for {args.seconds} s, channels: {args.channels}"
    )
    if latencies:
        print(
            "move sent -> your_turn delivered (ms): "
            f"min {min(latencies) * 1000:.1f} / median {statistics.median(latencies) * 1000:.1f}"
            f" / p99 {percentile(latencies, 99):.1f} / max {max(latencies) * 1000:.1f}"
        )
        for label, samples in (
            ("move answered -> your_turn delivered (ms; 0: before the answer)", after_reply),
            ("the move's own round trip (ms)", round_trips),
        ):
            print(
                f"{label}: min {min(samples) * 1000:.1f} / median "
                f"{statistics.median(samples) * 1000:.1f} / p99 {percentile(samples, 99):.1f}"
                f" / max {max(samples) * 1000:.1f}"
            )
    errors.report()
    return 1 if errors.total else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000, help="an even number")
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--rate", type=float, default=100.0, help="moves per second")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--warmup", type=float, default=120.0, help="at most this long to open the streams"
    )
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    raise_open_files()
    with redis_url(args.redis_url) as url:
        raise SystemExit(asyncio.run(run(args, url)))


if __name__ == "__main__":
    main()
