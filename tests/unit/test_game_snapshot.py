"""GameSnapshot's cheap copy and its fold of events this process hashed itself."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import CorruptLog
from services.engine.domain.game import GameSnapshot, SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.records import PrivateRecords
from services.engine.domain.rulesets import RulesetRegistry

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann"), SeatSpec(SeatKind.HUMAN, "bob")]


async def a_game(registry: RulesetRegistry, moves: int) -> tuple[Engine, GameSnapshot]:
    engine = Engine(
        InMemoryEventStore(),
        registry,
        clock=lambda: datetime(2024, 5, 1, tzinfo=UTC),
        seed_source=fixed_seed("s1"),
    )
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    for move in range(moves):
        await engine.submit_action(game, move % 2, {"take": 1})
    return engine, await engine.load(game)


async def test_updated_is_replace(registry: RulesetRegistry) -> None:
    _, snapshot = await a_game(registry, 1)
    changed = snapshot.updated(version=9, revealed_seed="x")
    assert changed == dataclasses.replace(snapshot, version=9, revealed_seed="x")
    assert type(changed) is GameSnapshot and changed is not snapshot
    assert snapshot.version == 3 and snapshot.revealed_seed is None  # the original stays
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.version = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="no fields"):
        snapshot.updated(versoin=9)


async def test_events_hashed_here_fold_alike_and_still_need_their_versions(
    registry: RulesetRegistry,
) -> None:
    engine, start = await a_game(registry, 0)
    game = start.game_id
    await engine.submit_action(game, 0, {"take": 1})
    await engine.submit_action(game, 1, {"take": 1})
    events = (await engine.store.read(game))[start.version :]
    assert start.evolve(events, hashed_here=True) == start.evolve(events)
    tampered = [dataclasses.replace(events[0], hash="0" * 64), *events[1:]]
    with pytest.raises(CorruptLog, match="breaks the chain"):
        start.evolve(tampered)  # a log read back is always checked
    with pytest.raises(CorruptLog, match="version"):
        start.evolve(events[1:], hashed_here=True)


async def test_a_fold_without_new_records_keeps_the_seats_bound_to_the_known_ones(
    registry: RulesetRegistry,
) -> None:
    """``evolve`` without service-only records skips binding seats again: every snapshot's
    seats already carry the token hashes its records hold (here from a fold of the log
    with the game's bindings, as the gateway's cache has them)."""
    store = InMemoryEventStore()
    engine = Engine(store, registry, seed_source=fixed_seed("bound"))
    seats = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    start = GameReader(store, registry)
    before = await start.load(game)
    assert before.private.token_hashes and [s.token_hash for s in before.seats] == [
        "a" * 64,
        "b" * 64,
    ]
    await engine.submit_action(game, 0, {"take": 1})
    events = (await store.read(game))[before.version :]
    moved = before.evolve(events)
    assert moved == before.evolve(events, PrivateRecords())  # binding again changes nothing
    assert moved.seats == before.seats and moved.commitments == before.commitments == {}
