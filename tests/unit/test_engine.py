"""Engine behaviour over the in-memory store with the Nim test ruleset."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import (
    GameNotFound,
    InvalidArgument,
    InvalidOptions,
    RuleViolation,
    UnknownRuleset,
    VersionConflict,
)
from services.engine.domain.game import SeatKind, SeatSpec, fold
from services.engine.domain.records import CommandRecord, StoredEvent, TurnRequest
from services.engine.domain.rulesets import RulesetRegistry, default_ruleset

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann"), SeatSpec(SeatKind.HUMAN, "bob")]


def make_engine(registry: RulesetRegistry, store: InMemoryEventStore | None = None) -> Engine:
    return Engine(
        store or InMemoryEventStore(),
        registry,
        clock=lambda: datetime(2024, 5, 1, tzinfo=UTC),
        seed_source=fixed_seed("s1"),
    )


async def test_create_records_game_created_then_setup(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    result = await engine.create_game("nim", HUMANS, {"max_take": 2})
    events = await engine.store.read(result.game_id)
    assert [e.type for e in events] == ["GameCreated", "PileSet"]
    assert events[0].payload == {
        "ruleset": "nim",
        "seats": [
            {"kind": "human", "name": "ann", "open": True, "player": ""},
            {"kind": "human", "name": "bob", "open": True, "player": ""},
        ],
        "options": {"max_take": 2},
        "seed_commitment": hashlib.sha256(b"s1").hexdigest(),
        "rated": False,
    }
    assert events[0].schema_version == 5
    assert "s1" not in json.dumps([e.payload for e in events])  # the seed stays secret
    assert await engine.store.secret_seed(result.game_id) == "s1"
    assert events[0].metadata.recorded_at == "2024-05-01T00:00:00+00:00"
    snapshot = await engine.load(result.game_id)
    assert snapshot.version == 2 and snapshot.seats_to_act() == (0,)


async def test_setup_is_deterministic_for_a_seed(registry: RulesetRegistry) -> None:
    a = make_engine(registry)
    b = make_engine(registry)
    ga = await a.create_game("nim", HUMANS, {})
    gb = await b.create_game("nim", HUMANS, {})
    pa = (await a.store.read(ga.game_id))[1].payload
    pb = (await b.store.read(gb.game_id))[1].payload
    assert pa == pb


async def test_submit_applies_and_refuses_wrong_seat(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    result = await engine.submit_action(game, 0, {"take": 1})
    assert (result.version, result.first_version) == (3, 3)
    with pytest.raises(RuleViolation) as info:
        await engine.submit_action(game, 0, {"take": 1})
    assert info.value.rule == "not_your_turn"
    with pytest.raises(RuleViolation) as info:
        await engine.submit_action(game, 1, {"take": 99})
    assert info.value.rule == "nim.take_range"
    with pytest.raises(InvalidArgument):
        await engine.submit_action(game, 7, {"take": 1})
    assert await engine.store.version(game) == 3


async def test_stale_expected_version_is_a_conflict(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    await engine.submit_action(game, 0, {"take": 1}, expected_version=2)
    with pytest.raises(VersionConflict) as info:
        await engine.submit_action(game, 1, {"take": 1}, expected_version=2)
    assert (info.value.expected, info.value.actual) == (2, 3)


async def test_command_id_makes_commands_idempotent(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    created = await engine.create_game("nim", HUMANS, {}, command_id="create-1")
    again = await engine.create_game("nim", HUMANS, {}, command_id="create-1")
    assert again == created
    first = await engine.submit_action(created.game_id, 0, {"take": 1}, command_id="a")
    retry = await engine.submit_action(created.game_id, 0, {"take": 1}, command_id="a")
    assert retry == first
    assert await engine.store.version(created.game_id) == 3


async def test_bot_seats_get_turn_requests(registry: RulesetRegistry) -> None:
    store = InMemoryEventStore()
    engine = make_engine(registry, store)
    seats = [SeatSpec(SeatKind.HUMAN, "ann"), SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {})).game_id
    assert store.turn_requests == []
    await engine.submit_action(game, 0, {"take": 1})
    assert store.turn_requests == [TurnRequest(game, 1, 3)]


async def test_errors_for_unknown_things(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    with pytest.raises(UnknownRuleset):
        await engine.create_game("chess", HUMANS, {})
    with pytest.raises(InvalidOptions):
        await engine.create_game("nim", HUMANS, {"max_take": 0})
    with pytest.raises(InvalidArgument):
        await engine.create_game("nim", [], {})
    with pytest.raises(GameNotFound):
        await engine.submit_action("nope", 0, {"take": 1})
    with pytest.raises(GameNotFound):
        await engine.load("bad id with spaces")


async def test_game_over_refuses_actions_and_fold_matches(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 30})).game_id
    snapshot = await engine.load(game)
    await engine.submit_action(game, 0, {"take": snapshot.state.pile})
    with pytest.raises(RuleViolation) as info:
        await engine.submit_action(game, 1, {"take": 1})
    assert info.value.rule == "game_over"
    final = await engine.load(game)
    assert final.is_terminal()
    assert fold(game, await engine.store.read(game), registry).state == final.state


def test_the_default_ruleset_is_registered_lazily(registry: RulesetRegistry) -> None:
    assert default_ruleset() in registry.names()


async def test_engine_remembers_its_own_appends_exactly_as_the_log_folds(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 1})).game_id
    seat = 0
    while True:
        cached = engine._snapshots.cached(game)
        assert cached is not None
        assert cached == fold(game, await engine.store.read(game), registry)
        if cached.is_terminal():
            break
        await engine.submit_action(game, seat, {"take": 1})
        seat = 1 - seat
    assert cached.revealed_seed == "s1"  # the SeedRevealed written with the last move


class CountingStore(InMemoryEventStore):
    """Counts the calls that ask the store about a game's log."""

    def __init__(self) -> None:
        super().__init__()
        self.lookups = 0

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        self.lookups += 1
        return await super().read(game_id, from_version, limit)

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        self.lookups += 1
        return await super().command_result(game_id, command_id)


async def test_a_command_on_a_current_cache_only_appends(registry: RulesetRegistry) -> None:
    store = CountingStore()
    engine = make_engine(registry, store)
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    store.lookups = 0
    await engine.submit_action(game, 0, {"take": 1}, command_id="a")
    await engine.submit_action(game, 1, {"take": 1}, expected_version=3)
    assert store.lookups == 0
    assert await engine.store.version(game) == 4


async def test_a_stale_cache_never_changes_an_outcome(registry: RulesetRegistry) -> None:
    store = InMemoryEventStore()
    a, b = make_engine(registry, store), make_engine(registry, store)
    game = (await a.create_game("nim", HUMANS, {"max_take": 1})).game_id
    await b.load(game)  # b caches version 2: seat 0 to act
    await a.submit_action(game, 0, {"take": 1})  # now version 3: seat 1 to act
    # Legal on b's stale snapshot, not on the log: refused, nothing written.
    with pytest.raises(RuleViolation) as info:
        await b.submit_action(game, 0, {"take": 1})
    assert info.value.rule == "not_your_turn"
    assert await store.version(game) == 3
    # Refused on b's stale snapshot (v2 says seat 0), legal on the log: applied.
    await b.load(game)
    await a.submit_action(game, 1, {"take": 1})  # version 4: seat 0 to act; b has 3
    assert (await b.submit_action(game, 0, {"take": 1})).version == 5
    # An expected version equal to the stale cached one is stale: a conflict.
    await a.submit_action(game, 1, {"take": 1})  # version 6; b has 5
    with pytest.raises(VersionConflict) as conflict:
        await b.submit_action(game, 0, {"take": 1}, expected_version=5)
    assert (conflict.value.expected, conflict.value.actual) == (5, 6)
    for engine in (a, b):
        assert await engine.load(game) == fold(game, await store.read(game), registry)


async def test_a_command_applied_elsewhere_returns_its_result_and_keeps_the_cache(
    registry: RulesetRegistry,
) -> None:
    store = InMemoryEventStore()
    a, b = make_engine(registry, store), make_engine(registry, store)
    game = (await a.create_game("nim", HUMANS, {})).game_id
    await b.load(game)
    first = await a.submit_action(game, 0, {"take": 1}, command_id="move-1")
    # b retries the same command on its stale cache: the append reports the duplicate.
    assert await b.submit_action(game, 0, {"take": 1}, command_id="move-1") == first
    assert b._snapshots.cached(game) == fold(game, (await store.read(game))[:2], registry)
    assert await b.load(game) == fold(game, await store.read(game), registry)
