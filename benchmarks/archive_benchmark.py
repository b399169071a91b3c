"""Archive benchmark: what an archived game leaves in Redis, per registered ruleset.

For every ruleset of the default registry, plays ``--games`` finished games through the
engine on a Redis store (seeded random legal moves; human seats bound to tokens; every
move carries a fresh random command id, as a client's retry-safe call does; fixed game
seeds, so every code version plays the same games), then:

1. ``before``: the game's keys and bytes (``MEMORY USAGE`` summed) once it has ended;
2. ``archived``: the same right after ``archive_finished`` (services.engine.adapters.retention);
3. ``after read``: the same after a cold GetGame of the archived game (a fresh
   engine and snapshot cache load it, as a restarted or another process would).

Keys are counted by SCAN of the game's own key prefix (``<prefix>:{s<k>}:game:<id>:*``);
each key's own bytes are listed for the last game.
Runs unchanged on older code, so before/after figures compare.

Run: ``python -m benchmarks.archive_benchmark [--redis-url URL] [--games 2]``
from the repository root (embedded Redis if no URL / REDIS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import os
import random
import statistics
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.eventlog_benchmark import redis_url
from services.engine.adapters import RedisEventStore
from services.engine.adapters.retention import archive_finished
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.logging_setup import configure_logging
from tests.game_samples import samples_of

SEATS = 4
"""Seats per game (every shipped game takes 4)."""


def options_of(ruleset: str) -> dict[str, Any]:
    """The options a ``ruleset`` game is played with: its standard setup (hidden
    information: commitments and reveals in the log), as its folder's samples declare."""
    return dict(samples_of(ruleset).bench_setup(standard=True).options)


async def play_game(engine: Engine, ruleset: str, seed: int) -> str:
    """A finished ``ruleset`` game of SEATS token-bound human seats, played by seeded
    random legal moves, each with its own random command id; its id."""
    seats = [
        SeatSpec(SeatKind.HUMAN, f"p{i}", hashlib.sha256(f"t{seed}-{i}".encode()).hexdigest())
        for i in range(SEATS)
    ]
    options = options_of(ruleset)
    game = (await engine.create_game(ruleset, seats, options, uuid.uuid4().hex)).game_id
    rng = random.Random(seed)
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        action = rng.choice(list(snapshot.ruleset.legal_actions(snapshot.state, seat)))
        await engine.submit_action(game, seat, action, snapshot.version, uuid.uuid4().hex)
        snapshot = await engine.load(game)
    return game


def _fixed_seeds() -> Callable[[], str]:
    """Game seeds in a fixed order: the same games on every code version."""
    numbers = itertools.count()
    return lambda: f"archive-benchmark-{next(numbers)}"


async def footprint(store: RedisEventStore, game: str) -> tuple[int, int, list[str]]:
    """(keys, bytes, ``kind=bytes`` of each key) of the game's own keys."""
    pattern = store.keys.events(game).removesuffix(":events") + ":*"
    names = sorted([str(k) async for k in store.client.scan_iter(match=pattern, count=1000)])
    sizes = []
    for name in names:
        usage: Any = await store.client.memory_usage(name, samples=0)
        sizes.append(int(usage or 0))
    kinds = [f"{n.rsplit(':', 1)[1]}={size:,}" for n, size in zip(names, sizes, strict=True)]
    return len(names), sum(sizes), kinds


async def run(url: str, games: int) -> int:
    registry: RulesetRegistry = default_registry()
    errors = 0
    for ruleset in registry.names():
        prefix = f"bench-archive-{uuid.uuid4().hex[:8]}"
        store = RedisEventStore.from_url(url, prefix=prefix)
        engine = Engine(store, registry, seed_source=_fixed_seeds())
        rows: dict[str, list[tuple[int, int]]] = {"before": [], "archived": [], "after read": []}
        kinds: dict[str, list[str]] = {}
        for seed in range(games):
            game = await play_game(engine, ruleset, seed)
            keys, size, names = await footprint(store, game)
            rows["before"].append((keys, size))
            kinds["before"] = names
            later = datetime.now(UTC) + timedelta(days=2)
            report = await archive_finished(store, registry, timedelta(days=1), later)
            if report.failed or game not in report.archived:
                errors += 1
                print(f"ERROR {ruleset}: not archived: {report.failed}")
            keys, size, names = await footprint(store, game)
            rows["archived"].append((keys, size))
            kinds["archived"] = names
            await Engine(store, registry).load(game)  # a cold read: fresh caches
            keys, size, names = await footprint(store, game)
            rows["after read"].append((keys, size))
            kinds["after read"] = names
        for label, values in rows.items():
            median = statistics.median(v[1] for v in values)
            print(
                f"{ruleset:12} {label:10} keys {values[0][0]}  bytes (median of {len(values)}) "
                f"{median:,.0f}  [{' '.join(kinds[label])}]"
            )
        await store.close()
    print(f"errors: {errors}")
    return 1 if errors else 0


def main() -> None:
    """Entry point: ``python -m benchmarks.archive_benchmark``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args()
    configure_logging("WARNING")
    with redis_url(args.redis_url) as url:
        sys.exit(asyncio.run(run(url, args.games)))


if __name__ == "__main__":
    main()
