"""Clocks benchmark: what a clock costs a move, and how fast the timekeeper times out.

1. Move latency: ``Engine.submit_action`` on 2-seat Nim games, without clocks and with a
   base + increment time control (one more event per append, the deadline written by the
   same script), in ms: min / median / max over ``--moves`` moves each.
2. Timeouts: ``--games`` clocked games whose deadlines have all passed, timed out by
   two timekeepers racing on the same Redis (one pass each, then passes until none is
   left): wall-clock seconds and timeouts per second. Every game must end with exactly
   one ``SeatTimedOut``.

Errors (a failed move, a game timed out twice or never) are counted and printed; the
exit code is 1 if there was any.

Run: ``python -m benchmarks.clocks_benchmark [--redis-url URL] [--moves 500]
[--games 500]`` from the repository root (embedded Redis if no URL / REDIS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta

from benchmarks.eventlog_benchmark import redis_url
from services.engine.adapters import RedisEventStore
from services.engine.adapters.deadlines import RedisDeadlines
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from services.engine.entrypoints.timekeeper import Timekeeper, TimekeeperSettings
from services.logging_setup import configure_logging

SEATS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]
LIVE = TimeControl(base_ms=600_000, increment_ms=5_000, policy=TimeoutPolicy.FORFEIT)


class SetClock:
    """The engine's clock, moved by the benchmark (timeouts without waiting)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _registry() -> RulesetRegistry:
    from tests.nim import NimRuleset

    registry = default_registry()
    registry.register("nim", NimRuleset)
    return registry


async def move_latencies(
    engine: Engine, moves: int, control: TimeControl | None, errors: list[str]
) -> list[float]:
    """Seconds per submit_action, playing fresh games one stone at a time."""
    latencies: list[float] = []
    game = ""
    while len(latencies) < moves:
        if not game:
            game = (await engine.create_game("nim", SEATS, {}, time_control=control)).game_id
        snapshot = await engine.load(game)
        if snapshot.is_terminal():
            game = ""
            continue
        (seat,) = snapshot.seats_to_act()
        start = time.perf_counter()
        try:
            await engine.submit_action(game, seat, {"take": 1})
        except Exception as exc:  # counted, not fatal: the figures say how many failed
            errors.append(f"move: {exc!r}")
            game = ""
            continue
        latencies.append(time.perf_counter() - start)
    return latencies


def _line(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (
        f"  {name:<12} min {min(ms):.3f} ms  median {statistics.median(ms):.3f} ms  "
        f"max {max(ms):.3f} ms  ({len(ms)} moves)"
    )


async def run(url: str, moves: int, games: int) -> int:
    errors: list[str] = []
    store = RedisEventStore.from_url(url, prefix=f"bench-clk-{uuid.uuid4().hex[:8]}")
    clock = SetClock()
    registry = _registry()
    engine = Engine(store, registry, clock=clock, seed_source=fixed_seed("bench"))
    try:
        plain = await move_latencies(engine, moves, None, errors)
        clocked = await move_latencies(engine, moves, LIVE, errors)
        print("move latency (submit_action, 2-seat Nim, sequential):")
        print(_line("no clock", plain))
        print(_line("base+incr", clocked))
        print(f"  median ratio {statistics.median(clocked) / statistics.median(plain):.2f}x")

        due = [
            (await engine.create_game("nim", SEATS, {}, time_control=LIVE)).game_id
            for _ in range(games)
        ]
        clock.now += timedelta(milliseconds=LIVE.base_ms)
        deadlines = RedisDeadlines(store.client, store.keys)
        settings = TimekeeperSettings(batch=max(games, 1))
        other = Engine(store, registry, clock=clock, seed_source=fixed_seed("bench"))
        keepers = [Timekeeper(engine, deadlines, settings), Timekeeper(other, deadlines, settings)]
        start = time.perf_counter()
        done = sum(await asyncio.gather(*(k.run_once() for k in keepers)))
        while (more := await keepers[0].run_once()) > 0:
            done += more
        elapsed = time.perf_counter() - start
        for game in due:
            count = [e.type for e in await store.read(game)].count("SeatTimedOut")
            if count != 1:
                errors.append(f"game {game}: {count} SeatTimedOut")
        print(f"timeouts ({games} due games, two timekeepers racing):")
        print(
            f"  {done} appended in {elapsed:.3f} s: {done / elapsed if elapsed else 0:.0f} "
            "timeouts/s"
        )
    finally:
        await store.close()
    print(f"errors: {len(errors)}")
    for error in errors[:20]:
        print(f"  {error}")
    return 1 if errors else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--moves", type=int, default=500)
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    configure_logging("WARNING")
    with redis_url(args.redis_url) as url:
        sys.exit(asyncio.run(run(url, args.moves, args.games)))


if __name__ == "__main__":
    main()
