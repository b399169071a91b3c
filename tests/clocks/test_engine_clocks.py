"""Clocks through the engine on the in-memory store, with an injected clock."""

from __future__ import annotations

import pytest

from services.engine.adapters import InMemoryEventStore
from services.engine.adapters.deadlines import MemoryDeadlines
from services.engine.domain.audit import audit_log
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import RuleViolation, VersionConflict
from services.engine.domain.game import GameSnapshot, SeatKind, SeatSpec, fold
from services.engine.domain.timing.seat_clocks import epoch_ms, timeout_events
from services.engine.domain.timing.time_control import (
    TimeControl,
    TimeControlInvalid,
    TimeoutPolicy,
    TimeoutPolicyUnsupported,
)
from services.engine.entrypoints.timekeeper import Timekeeper
from tests.clocks.helpers import START_MS, FakeClock, clock_registry

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann"), SeatSpec(SeatKind.HUMAN, "bob")]
LIVE = TimeControl(base_ms=60_000, increment_ms=5_000, policy=TimeoutPolicy.FORFEIT)


def make(clock: FakeClock) -> tuple[Engine, InMemoryEventStore, Timekeeper]:
    store = InMemoryEventStore()
    engine = Engine(store, clock_registry(), clock=clock, seed_source=fixed_seed("s1"))
    return engine, store, Timekeeper(engine, MemoryDeadlines(store.deadlines))


async def test_creation_records_the_time_control_and_starts_the_first_clock() -> None:
    clock = FakeClock()
    engine, store, _ = make(clock)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    events = await store.read(game)
    assert [e.type for e in events] == ["GameCreated", "PileSet", "ClockStarted", "ClocksUpdated"]
    assert events[2].payload == {
        "base_ms": 60_000,
        "increment_ms": 5_000,
        "move_deadline_ms": 0,
        "timeout_policy": "forfeit",
    }
    clocks = events[3].payload["clocks"]
    assert clocks[0] == {
        "seat": 0,
        "remaining_ms": 60_000,
        "running_since_ms": START_MS,
        "deadline_ms": START_MS + 60_000,
    }
    assert clocks[1]["running_since_ms"] is None
    assert store.deadlines[game] == START_MS + 60_000


async def test_a_move_charges_its_time_and_adds_the_increment() -> None:
    clock = FakeClock()
    engine, store, _ = make(clock)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    clock.at(10_000)
    await engine.submit_action(game, 0, {"take": 1})
    last = (await store.read(game))[-1]
    assert last.type == "ClocksUpdated"
    assert last.payload["charged"] == [{"seat": 0, "used_ms": 10_000}]
    assert last.payload["clocks"][0]["remaining_ms"] == 60_000 - 10_000 + 5_000
    assert last.payload["clocks"][1]["deadline_ms"] == START_MS + 10_000 + 60_000
    snapshot = await engine.load(game)
    assert snapshot.clock is not None
    assert snapshot.clock.clocks[0].remaining_ms == 55_000
    assert store.deadlines[game] == START_MS + 70_000
    # The public log alone folds to the same clocks.
    public = fold(game, await store.read(game), clock_registry())
    assert public.clock == snapshot.clock


async def test_deadline_reached_times_out_once_and_forfeit_ranks_last() -> None:
    clock = FakeClock()
    engine, store, keeper = make(clock)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    clock.at(59_999)
    assert await keeper.run_once() == 0  # not yet due
    clock.at(60_000)
    assert await keeper.run_once() == 1
    assert await keeper.run_once() == 0  # claimed and handled: never twice
    types = [e.type for e in await store.read(game)]
    assert types.count("SeatTimedOut") == 1
    assert types[-3:] == ["SeatTimedOut", "SeatForfeited", "ClocksUpdated"]
    snapshot = await engine.load(game)
    assert snapshot.bot_seats_to_act() == (0,)
    assert store.turn_requests[-1].seat == 0
    with pytest.raises(RuleViolation) as info:
        await engine.submit_action(game, 0, {"take": 1})
    assert info.value.rule == "seat_forfeited"
    # The zombie (bot credential) and the other player finish the game.
    key = engine.bot_credential.secret
    while not (snapshot := await engine.load(game)).is_terminal():
        seat = snapshot.seats_to_act()[0]
        await engine.submit_action(game, seat, {"take": 1}, bot_key=key if seat == 0 else "")
    result = snapshot.result()
    assert result is not None and result.ranking[-1] == 0
    assert game not in store.deadlines  # finished: no clock runs


async def test_a_move_just_before_the_deadline_wins() -> None:
    clock = FakeClock()
    engine, store, keeper = make(clock)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    clock.at(59_999)
    await engine.submit_action(game, 0, {"take": 1})
    clock.at(60_001)
    assert await keeper.run_once() == 0
    assert "SeatTimedOut" not in [e.type for e in await store.read(game)]
    assert store.deadlines[game] == START_MS + 59_999 + 60_000


class RacingEngine(Engine):
    """An engine on which the player's move lands between the timekeeper's load and its
    append (the race a real timekeeper can lose)."""

    race = False

    async def load(self, game_id: str) -> GameSnapshot:
        snapshot = await super().load(game_id)
        if self.race:
            self.race = False
            await self.submit_action(game_id, 0, {"take": 1})
        return snapshot


async def test_a_move_appended_first_drops_the_timeout() -> None:
    clock = FakeClock()
    store = InMemoryEventStore()
    engine = RacingEngine(store, clock_registry(), clock=clock, seed_source=fixed_seed("s1"))
    keeper = Timekeeper(engine, MemoryDeadlines(store.deadlines))
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    clock.at(61_000)
    engine.race = True
    assert await keeper.run_once() == 0
    types = [e.type for e in await store.read(game)]
    assert "SeatTimedOut" not in types and "StonesTaken" in types


async def test_bot_takeover_then_the_player_reclaims() -> None:
    clock = FakeClock()
    engine, store, keeper = make(clock)
    control = TimeControl(move_deadline_ms=3_600_000, policy=TimeoutPolicy.BOT_TAKEOVER)
    game = (await engine.create_game("botnim", HUMANS, {}, time_control=control)).game_id
    clock.at(3_600_000)
    assert await keeper.run_once() == 1
    snapshot = await engine.load(game)
    assert snapshot.clock is not None and snapshot.clock.taken_over == {0}
    assert snapshot.played_by_bot(0) and snapshot.bot_seats_to_act() == (0,)
    # The bot plays the seat once; then it is seat 0's turn again and the player reclaims.
    await engine.submit_action(game, 0, {"take": 1}, bot_key=engine.bot_credential.secret)
    clock.advance(1_000)
    await engine.submit_action(game, 1, {"take": 1})
    clock.advance(1_000)
    before = (await engine.load(game)).version
    await engine.submit_action(game, 0, {"take": 1})
    batch = [e.type for e in await store.read(game, before)]
    assert batch == ["SeatReclaimed", "StonesTaken", "ClocksUpdated"]
    after = await engine.load(game)
    assert after.clock is not None and after.clock.taken_over == frozenset()
    assert after.clock.clocks[1].deadline_ms == START_MS + 3_602_000 + 3_600_000


async def test_reclaim_is_refused_without_time_to_play() -> None:
    clock = FakeClock()
    engine, _, keeper = make(clock)
    control = TimeControl(base_ms=10_000, policy=TimeoutPolicy.BOT_TAKEOVER)
    game = (await engine.create_game("botnim", HUMANS, {}, time_control=control)).game_id
    clock.at(10_000)
    assert await keeper.run_once() == 1
    with pytest.raises(RuleViolation) as info:
        await engine.submit_action(game, 0, {"take": 1})
    assert info.value.rule == "reclaim_not_allowed"


@pytest.mark.parametrize(
    "control",
    [
        TimeControl(),
        TimeControl(base_ms=-1),
        TimeControl(increment_ms=1_000, move_deadline_ms=60_000),
        TimeControl(base_ms=10),
        TimeControl(move_deadline_ms=10**12),
    ],
)
async def test_invalid_time_controls_are_refused(control: TimeControl) -> None:
    engine, _, _ = make(FakeClock())
    with pytest.raises(TimeControlInvalid):
        await engine.create_game("nim", HUMANS, {}, time_control=control)


async def test_bot_takeover_needs_a_ruleset_bot() -> None:
    engine, _, _ = make(FakeClock())
    control = TimeControl(base_ms=60_000, policy=TimeoutPolicy.BOT_TAKEOVER)
    with pytest.raises(TimeoutPolicyUnsupported):
        await engine.create_game("nim", HUMANS, {}, time_control=control)


async def test_stale_timeout_append_conflicts() -> None:
    clock = FakeClock()
    engine, _, _ = make(clock)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    old = await engine.load(game)
    await engine.submit_action(game, 0, {"take": 1})
    with pytest.raises(VersionConflict):
        await engine.append_system(
            old, timeout_events(0, START_MS, TimeoutPolicy.FORFEIT), [], None, "t:x", clock()
        )


async def test_the_audit_recomputes_every_clock_from_the_public_log() -> None:
    clock = FakeClock()
    engine, store, keeper = make(clock)
    control = TimeControl(move_deadline_ms=3_600_000, policy=TimeoutPolicy.BOT_TAKEOVER)
    game = (await engine.create_game("botnim", HUMANS, {}, time_control=control)).game_id
    clock.at(3_600_000)
    await keeper.run_once()
    clock.advance(7_000)
    await engine.submit_action(game, 0, {"take": 1}, bot_key=engine.bot_credential.secret)
    clock.advance(9_000)
    await engine.submit_action(game, 1, {"take": 1})
    clock.advance(11_000)
    await engine.submit_action(game, 0, {"take": 1})  # reclaimed
    assert audit_log(game, await store.read(game), clock_registry()).ok
    # A clock record that the rules do not give (here: seat 1 granted a day) is reported,
    # although the chain is intact.
    snapshot = await engine.load(game)
    assert snapshot.clock is not None
    forged = snapshot.clock.updated(epoch_ms(clock()), (1,), [True, True])
    forged.payload["clocks"][1]["deadline_ms"] += 86_400_000
    await engine.append_system(snapshot, [forged], [], None, "forged", clock())
    report = audit_log(game, await store.read(game), clock_registry())
    assert not report.ok and report.first_bad_version == snapshot.version + 1
    assert "ClocksUpdated differs" in report.problems[0]


async def test_a_tournament_table_records_a_forfeit_and_ranks_it_last() -> None:
    from services.tournament.conductor import places_of

    clock = FakeClock()
    engine, _store, keeper = make(clock)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=LIVE)).game_id
    clock.at(60_000)
    assert await keeper.run_once() == 1  # ann (seat 0) runs out of time and forfeits
    key = engine.bot_credential.secret
    while not (snapshot := await engine.load(game)).is_terminal():
        seat = snapshot.seats_to_act()[0]
        await engine.submit_action(game, seat, {"take": 1}, bot_key=key if seat == 0 else "")
    table = places_of(snapshot, ("ann", "bob"))
    assert table is not None
    assert table.places == (2, 1) and table.forfeited == ("ann",)
