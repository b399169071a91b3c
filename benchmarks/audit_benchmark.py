"""Audit benchmark: how fast a finished game's public log is verified, and its size in Redis.

Plays finished 4-seat games of one ruleset (the default, ``--ruleset`` another) in its
standard setup (hidden information: the log holds commitments and reveals; the setups
are the game folder's samples, tests/game_samples.py) through the engine on a Redis
store, by seeded random legal moves, then:

1. Audit speed: ``audit_log`` (what VerifyGame and ``teoti replay --verify`` run: chain,
   public fold, commitments and reveals, seed and setup re-derivation) over the game's
   whole log, in events per second of wall-clock time and of the process's CPU time (the
   CPU figure is steadier on a shared machine); min / median / max over ``--runs`` runs
   per game.
2. Size: ``MEMORY USAGE`` of every key of the game (events stream, head, command ids,
   seed, sealed secrets, token bindings, snapshot), summed, in bytes.

Errors (a game that does not verify, a failed play) are counted and printed; the exit
code is 1 if there was any. Runs unchanged on older code without the sealed/tokens keys
(they are measured when the store has them), so before/after figures compare.

Run: ``python -m benchmarks.audit_benchmark [--redis-url URL] [--games 3] [--runs 5]
[--first-game] [--ruleset NAME]``
from the repository root (embedded Redis if no URL / REDIS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
import uuid
from typing import Any

from benchmarks.eventlog_benchmark import redis_url
from services.engine.adapters import RedisEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import default_registry, default_ruleset
from services.logging_setup import configure_logging
from tests.game_samples import game_names, samples_of

SEATS = [SeatSpec(SeatKind.BOT, f"bot{i}") for i in range(4)]
KEY_KINDS = ("events", "head", "commands", "secret", "sealed", "tokens", "snapshot")


async def play_game(
    store: RedisEventStore, engine: Engine, seed: int, options: dict[str, Any], ruleset: str
) -> str:
    """A finished ``ruleset`` game played by seeded random legal moves; its id."""
    game = (await engine.create_game(ruleset, SEATS, options)).game_id
    rng = random.Random(seed)
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        action = rng.choice(list(snapshot.ruleset.legal_actions(snapshot.state, seat)))
        await engine.submit_action(game, seat, action, snapshot.version)
        snapshot = await engine.load(game)
    return game


async def game_bytes(store: RedisEventStore, game: str) -> int:
    """MEMORY USAGE summed over the game's own keys (those this code version has)."""
    total = 0
    for kind in KEY_KINDS:
        name = getattr(store.keys, kind, None)
        if name is None:
            continue
        usage: Any = await store.client.memory_usage(name(game), samples=0)
        total += int(usage or 0)
    return total


def spread(values: list[float]) -> str:
    """min / median / max."""
    return f"{min(values):,.0f} / {statistics.median(values):,.0f} / {max(values):,.0f}"


async def run(
    url: str, games: int, runs: int, options: dict[str, Any], ruleset: str = default_ruleset()
) -> int:
    prefix = f"bench-audit-{uuid.uuid4().hex[:8]}"
    store = RedisEventStore.from_url(url, prefix=prefix)
    registry = default_registry()
    seeds = iter(range(1_000_000))  # same games on every code version: fixed game seeds
    engine = Engine(store, registry, seed_source=lambda: f"audit-benchmark-{next(seeds)}")
    errors = 0
    speeds: list[float] = []
    cpu_speeds: list[float] = []
    sizes: list[float] = []
    lengths: list[float] = []
    for seed in range(games):
        try:
            game = await play_game(store, engine, seed, options, ruleset)
        except Exception as exc:  # a benchmark counts and reports, it does not stop
            errors += 1
            print(f"ERROR playing game {seed}: {exc!r}")
            continue
        events = await store.read(game)
        head = await store.head(game)
        lengths.append(len(events))
        sizes.append(await game_bytes(store, game))
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            report = audit_log(game, events, registry, head)
            elapsed = time.perf_counter() - start
            cpu_speeds.append(len(events) / max(time.process_time() - cpu, 1e-9))
            if not report.ok:
                errors += 1
                print(f"ERROR game {seed} does not verify: {report.problems[:2]}")
            speeds.append(len(events) / elapsed)
    await store.close()
    if speeds:
        print(f"finished 4-seat games {options}: {len(lengths)}, events per game {spread(lengths)}")
        print(
            f"audit speed, wall (events/s, min / median / max of {len(speeds)}): {spread(speeds)}"
        )
        print(
            f"audit speed, CPU  (events/s, min / median / max of {len(speeds)}): {spread(cpu_speeds)}"
        )
        print(f"size in Redis (bytes per game, min / median / max): {spread(sizes)}")
    print(f"errors: {errors}")
    return 1 if errors else 0


def main() -> None:
    """Entry point: ``python -m benchmarks.audit_benchmark``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--first-game", action="store_true", help="the game's first (default) setup"
    )
    parser.add_argument("--ruleset", default=default_ruleset(), choices=game_names())
    args = parser.parse_args()
    configure_logging("WARNING")
    with redis_url(args.redis_url) as url:
        setup = samples_of(args.ruleset).bench_setup(standard=not args.first_game)
        code = asyncio.run(run(url, args.games, args.runs, dict(setup.options), args.ruleset))
        sys.exit(code)


if __name__ == "__main__":
    main()
