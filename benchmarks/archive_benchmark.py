"""Archive benchmark: what an archived game leaves in Redis, and what reading it costs.

For every ruleset of the default registry, at 4 seats and at its most seats, plays
``--games`` finished games through the engine on a Redis store (seeded random legal
moves; human seats bound to tokens; every move carries a fresh random command id, as a
client's retry-safe call does; fixed game seeds, so every code version plays the same
games), then for each game:

1. ``before``: the game's keys and bytes (``MEMORY USAGE`` summed) once it has ended,
   and what the same log and command ids take as a ``z2`` blob (the format before);
2. cold loads before archiving: a fresh engine (no cache) loads the game from its stream
   with its snapshot key deleted first, so the whole log is read and folded;
3. ``archived``: keys, bytes and the blob's own length right after ``archive_finished``
   (services.engine.adapters.retention);
4. cold loads after: a fresh engine loads the archived game (``z3``: decompressed, every
   hash recomputed and checked against the head, folded).

Loads are timed ``--reps`` times each (min / median / max in ms, wall clock and this
process's CPU time: on a shared machine the minimum and the CPU time are the steadier
figures); every failure (a game
not archived, a load that raises, a log that reads back different) is counted and
printed, and the exit status is 1 if there was any.

``--train N`` instead plays N games per ruleset (other seeds than the measured ones)
and writes each ruleset's zstd dictionary (``--dict-size`` bytes) as ``<id>.zdict`` in the
folder its game declares (``GameDeclaration.archive_dictionaries``), ``<id>`` the highest
id shipped plus one (:mod:`services.engine.adapters.archive_dicts`). ``--no-dict``
measures without the shipped dictionaries.

Run: ``python -m benchmarks.archive_benchmark [--redis-url URL] [--games 3] [--reps 5]``
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
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import zstandard

from benchmarks.eventlog_benchmark import redis_url
from services.engine.adapters import RedisEventStore, archive_dicts
from services.engine.adapters.archive import encode_z2
from services.engine.adapters.archive_compact import encode_body
from services.engine.adapters.retention import archive_finished
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.logging_setup import configure_logging
from tests.game_samples import samples_of

SEATS = 4
"""Seats of every measured game; a game seating more is measured at its most too."""


def seat_counts(registry: RulesetRegistry, ruleset: str) -> tuple[int, ...]:
    """The seat counts a ``ruleset`` game is measured at: SEATS, and its most seats if
    more (issue 34's size targets are at 4 and at 5 seats)."""
    most = registry.declaration(ruleset).max_seats
    return (SEATS, most) if most > SEATS else (SEATS,)


def options_of(ruleset: str) -> dict[str, Any]:
    """The options a ``ruleset`` game is played with: its standard setup (hidden
    information: commitments and reveals in the log), as its folder's samples declare."""
    return dict(samples_of(ruleset).bench_setup(standard=True).options)


async def play_game(engine: Engine, ruleset: str, seed: int, seats: int = SEATS) -> str:
    """A finished ``ruleset`` game of ``seats`` token-bound human seats, played by seeded
    random legal moves, each with its own random command id; its id."""
    specs = [
        SeatSpec(SeatKind.HUMAN, f"p{i}", hashlib.sha256(f"t{seed}-{i}".encode()).hexdigest())
        for i in range(seats)
    ]
    options = options_of(ruleset)
    game = (await engine.create_game(ruleset, specs, options, uuid.uuid4().hex)).game_id
    rng = random.Random(seed)
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        action = rng.choice(list(snapshot.ruleset.legal_actions(snapshot.state, seat)))
        await engine.submit_action(game, seat, action, snapshot.version, uuid.uuid4().hex)
        snapshot = await engine.load(game)
    return game


def _fixed_seeds(label: str = "archive-benchmark") -> Callable[[], str]:
    """Game seeds in a fixed order: the same games on every code version."""
    numbers = itertools.count()
    return lambda: f"{label}-{next(numbers)}"


async def footprint(store: RedisEventStore, game: str) -> tuple[int, int]:
    """(keys, bytes by ``MEMORY USAGE``) of the game's own keys."""
    pattern = store.keys.events(game).removesuffix(":events") + ":*"
    names = [str(k) async for k in store.client.scan_iter(match=pattern, count=1000)]
    total = 0
    for name in names:
        usage: Any = await store.client.memory_usage(name, samples=0)
        total += int(usage or 0)
    return len(names), total


async def _log_of(store: RedisEventStore, game: str) -> tuple[list[Any], dict[str, str]]:
    """The game's stream entries and command ids as stored."""
    entries: Any = await store.client.xrange(store.keys.events(game))
    commands: Any = await store.client.hgetall(store.keys.commands(game))
    return [(str(i), dict(f)) for i, f in entries], {str(k): str(v) for k, v in commands.items()}


async def cold_loads(
    store: RedisEventStore, registry: RulesetRegistry, game: str, reps: int, drop_snapshot: bool
) -> tuple[list[float], list[float]]:
    """(wall, this process's CPU) milliseconds of ``reps`` loads of ``game`` by a fresh
    engine each (no cache). CPU time leaves out other processes' load on a shared
    machine, and Redis's own work (a stream read costs Redis more than a GET)."""
    walls, cpus = [], []
    for _ in range(reps):
        if drop_snapshot:
            await store.delete_snapshot(game)
        start, cpu = time.perf_counter(), time.process_time()
        await Engine(store, registry).load(game)
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return walls, cpus


def _spread(values: list[float]) -> str:
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


async def measure(
    url: str, ruleset: str, seats: int, games: int, reps: int, registry: RulesetRegistry
) -> int:
    """Play, archive and load ``games`` games; print one row per game; the error count."""
    errors = 0
    prefix = f"bench-archive-{uuid.uuid4().hex[:8]}"
    store = RedisEventStore.from_url(url, prefix=prefix)
    engine = Engine(store, registry, seed_source=_fixed_seeds())
    for seed in range(games):
        game = await play_game(engine, ruleset, seed, seats)
        entries, commands = await _log_of(store, game)
        z2 = len(encode_z2(entries, commands))
        keys_before, bytes_before = await footprint(store, game)
        events_before = await store.read(game)
        before = await cold_loads(store, registry, game, reps, drop_snapshot=True)
        later = datetime.now(UTC) + timedelta(days=2)
        report = await archive_finished(store, registry, timedelta(days=1), later)
        if report.failed or game not in report.archived:
            errors += 1
            print(f"ERROR {ruleset}: not archived: {report.failed}")
            continue
        blob = int(await store.client.strlen(store.keys.archive(game)))
        keys_after, bytes_after = await footprint(store, game)
        try:
            after = await cold_loads(store, registry, game, reps, drop_snapshot=False)
            if await store.read(game) != events_before:
                raise AssertionError("the archived log reads back different")
        except Exception as exc:  # counted and shown: the run goes on
            errors += 1
            print(f"ERROR {ruleset}: archived game {game} does not load: {exc!r}")
            continue
        print(
            f"{ruleset:12} {seats} seats  events {len(entries):5}  "
            f"before: {keys_before} keys {bytes_before:9,} B (z2 blob {z2:8,} B)  "
            f"archived: {keys_after} keys {bytes_after:7,} B (z3 blob {blob:7,} B, "
            f"{z2 / blob:4.1f}x smaller than z2)"
        )
        for label, was, now in (("wall", before[0], after[0]), ("cpu ", before[1], after[1])):
            print(
                f"    cold load {label} ms min/median/max  before {_spread(was)}  "
                f"after {_spread(now)}  ratio of mins {min(now) / min(was):.2f}, "
                f"of medians {statistics.median(now) / statistics.median(was):.2f}"
            )
    await store.close()
    return errors


async def train(url: str, games: int, dict_size: int, registry: RulesetRegistry) -> None:
    """Write each ruleset's dictionary, trained on ``games`` games' ``z3`` bodies."""
    next_id = max(archive_dicts.shipped(), default=0) + 1
    for ruleset in registry.names():
        store = RedisEventStore.from_url(url, prefix=f"train-archive-{uuid.uuid4().hex[:8]}")
        engine = Engine(store, registry, seed_source=_fixed_seeds("archive-dictionary"))
        samples: list[bytes] = []
        for seed in range(games):
            counts = seat_counts(registry, ruleset)
            seats = counts[seed % len(counts)]
            game = await play_game(engine, ruleset, 10_000 + seed, seats)
            body = encode_body(*await _log_of(store, game))
            # Training takes many small samples: a body's 4 KiB pieces.
            samples += [body[i : i + 4096] for i in range(0, len(body), 4096)]
        await store.close()
        trained = zstandard.train_dictionary(dict_size, samples, dict_id=next_id, level=19)
        folder = archive_dicts.folder_of(registry.declaration(ruleset))
        if folder is None:
            print(f"{ruleset}: its game declares no archive_dictionaries folder; not written")
            continue
        path = folder / f"{next_id}.zdict"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(trained.as_bytes())
        print(f"{path}: {len(trained.as_bytes()):,} B from {games} games")
        next_id += 1


async def run(url: str, games: int, reps: int, only: str = "") -> int:
    registry: RulesetRegistry = default_registry()
    errors = 0
    for ruleset in registry.names():
        if only and ruleset != only:
            continue
        for seats in seat_counts(registry, ruleset):
            errors += await measure(url, ruleset, seats, games, reps, registry)
    print(f"errors: {errors}")
    return 1 if errors else 0


def main() -> None:
    """Entry point: ``python -m benchmarks.archive_benchmark``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--train", type=int, default=0, metavar="GAMES")
    parser.add_argument("--dict-size", type=int, default=16 * 1024)
    parser.add_argument("--no-dict", action="store_true")
    parser.add_argument("--ruleset", default="", help="measure this ruleset only")
    args = parser.parse_args()
    configure_logging("WARNING")
    if args.no_dict:
        archive_dicts.disable()
    with redis_url(args.redis_url) as url:
        if args.train:
            asyncio.run(train(url, args.train, args.dict_size, default_registry()))
            sys.exit(0)
        sys.exit(asyncio.run(run(url, args.games, args.reps, args.ruleset)))


if __name__ == "__main__":
    main()
