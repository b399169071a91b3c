"""Leaving a game (issue 32): ResignSeat and ClaimSeatForBot in the engine, on the
in-memory store with an injected clock (services.engine.domain.leaving, leaving_plan).

From the rules (docs/events.md, "Leaving a game"): a 2-seat game ends with the resigning
seat last; a 3+ seat game keeps going with the seat out (ranked last among those in, a
zombie makes its moves); a game declaring ``resignation`` decides for itself; a seat out
or a game over refuses; a claim needs a clock run out or an absence.
"""

from __future__ import annotations

import pytest

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import InvalidArgument, NotAuthorized, RuleViolation
from services.engine.domain.game import SeatKind, SeatSpec, fold
from services.engine.domain.leaving import ABSENCE_MS
from services.engine.domain.records import TurnRequest
from services.engine.domain.ruleset import Resignation, default_resignation
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from tests.clocks.helpers import FakeClock
from tests.leaving_samples import leaving_registry


def registry() -> RulesetRegistry:
    return leaving_registry()


def humans(n: int) -> list[SeatSpec]:
    return [SeatSpec(SeatKind.HUMAN, f"p{i}") for i in range(n)]


def make() -> tuple[Engine, InMemoryEventStore, FakeClock]:
    clock = FakeClock()
    store = InMemoryEventStore()
    engine = Engine(store, registry(), clock=clock, seed_source=fixed_seed("s1"))
    return engine, store, clock


async def audited(engine: Engine, store: InMemoryEventStore, game: str) -> None:
    """The public log audits clean and folds, from a fresh reader, to the engine's game."""
    events = await store.read(game)
    report = audit_log(game, events, registry())
    assert report.ok, report.problems
    public = fold(game, events, registry())
    mine = await engine.load(game)
    assert public.is_terminal() == mine.is_terminal()
    assert public.result() == mine.result()
    assert public.control == mine.control


def test_the_platform_default_ends_a_game_of_two_and_puts_a_seat_out_of_more() -> None:
    assert default_resignation((0, 1)) is Resignation.GAME_ENDS
    assert default_resignation((0,)) is Resignation.GAME_ENDS
    assert default_resignation((0, 1, 2)) is Resignation.SEAT_OUT
    assert default_resignation((0, 1, 2, 3, 4)) is Resignation.SEAT_OUT


async def test_resigning_a_two_seat_game_ends_it_with_the_other_seat_winning() -> None:
    engine, store, _ = make()
    game = (await engine.create_game("nim", humans(2), {"max_take": 3})).game_id
    before = await engine.load(game)

    result = await engine.resign_seat(game, 0, command_id="r1")

    written = await store.read(game, before.version)
    assert [e.type for e in written] == ["SeatResigned", "SeatForfeited", "SeedRevealed"]
    assert written[0].payload == {"seat": 0, "outcome": "game_ended"}
    assert all(e.metadata.seat == -1 for e in written)  # no seat's move
    assert result.version == before.version + 3
    after = await engine.load(game)
    assert after.is_terminal() and after.seats_to_act() == ()
    game_result = after.result()
    assert game_result is not None and game_result.ranking == (1, 0)
    assert after.revealed_seed == "s1"
    await audited(engine, store, game)


async def test_a_resignation_reveals_every_secret_left() -> None:
    engine, store, _ = make()
    game = (await engine.create_game("nim", humans(2), {"lucky": True})).game_id
    assert (await engine.load(game)).unrevealed()

    await engine.resign_seat(game, 1)

    after = await engine.load(game)
    assert after.unrevealed() == ()
    types = [e.type for e in await store.read(game)]
    assert types[-2:] == ["SecretsRevealed", "SeedRevealed"]
    await audited(engine, store, game)


async def test_resigning_a_three_seat_game_puts_the_seat_out_and_a_zombie_plays() -> None:
    engine, store, _ = make()
    game = (await engine.create_game("nim", humans(3), {"max_take": 3})).game_id
    before = await engine.load(game)

    await engine.resign_seat(game, 0)

    written = await store.read(game, before.version)
    assert [e.type for e in written] == ["SeatResigned", "SeatForfeited"]
    assert written[0].payload["outcome"] == "forfeited"
    after = await engine.load(game)
    assert not after.is_terminal()
    assert after.played_by_bot(0) and after.bot_seats_to_act() == (0,)
    assert store.turn_requests[-1] == TurnRequest(game, 0, after.version)  # the worker's cue
    with pytest.raises(RuleViolation) as refused:
        await engine.submit_action(game, 0, {"take": 1})
    assert refused.value.rule == "seat_forfeited"
    # The zombie finishes for seat 0; the game ends by its rules, seat 0 ranked last.
    bot_key = engine.bot_credential.secret
    while not (snapshot := await engine.load(game)).is_terminal():
        seat = snapshot.seats_to_act()[0]
        await engine.submit_action(game, seat, {"take": 1}, bot_key=bot_key if seat == 0 else "")
    final = (await engine.load(game)).result()
    assert final is not None and final.ranking[-1] == 0
    await audited(engine, store, game)


async def test_the_last_two_in_a_bigger_game_end_it_when_one_resigns() -> None:
    engine, store, _ = make()
    game = (await engine.create_game("nim", humans(3), {"max_take": 3})).game_id
    await engine.resign_seat(game, 2)
    await engine.resign_seat(game, 0)

    after = await engine.load(game)
    assert after.is_terminal()
    result = after.result()
    assert result is not None and result.ranking == (1, 0, 2)  # the first out lowest
    await audited(engine, store, game)


async def test_a_game_declaring_its_resignation_hands_the_seat_to_its_bot_for_good() -> None:
    engine, store, _ = make()
    game = (await engine.create_game("handnim", humans(2), {})).game_id
    before = await engine.load(game)

    await engine.resign_seat(game, 0)

    written = await store.read(game, before.version)
    assert [e.type for e in written] == ["SeatResigned", "SeatTakenOver"]
    assert written[0].payload["outcome"] == "taken_over"
    after = await engine.load(game)
    assert not after.is_terminal() and after.played_by_bot(0)
    with pytest.raises(RuleViolation) as refused:  # no reclaim after resigning
        await engine.submit_action(game, 0, {"take": 1})
    assert refused.value.rule == "seat_resigned"
    await audited(engine, store, game)


@pytest.mark.parametrize("policy", [TimeoutPolicy.FORFEIT, TimeoutPolicy.BOT_TAKEOVER])
async def test_a_clocked_resignation_stops_the_seats_clock_and_audits(
    policy: TimeoutPolicy,
) -> None:
    engine, store, clock = make()
    control = TimeControl(base_ms=60_000, increment_ms=1_000, policy=policy)
    game = (await engine.create_game("botnim", humans(3), {}, time_control=control)).game_id
    clock.advance(4_000)
    before = await engine.load(game)

    await engine.resign_seat(game, 0)

    written = await store.read(game, before.version)
    assert [e.type for e in written] == ["SeatResigned", "SeatForfeited", "ClocksUpdated"]
    assert written[2].payload["charged"] == [{"seat": 0, "used_ms": 4_000}]
    after = await engine.load(game)
    assert after.clock is not None and after.clock.forfeited == (0,)
    assert after.clock.clocks[0].deadline_ms is None
    assert store.deadlines.get(game) is None  # the zombie is to act: no clock runs
    await audited(engine, store, game)


async def test_a_clocked_two_seat_resignation_ends_the_game_and_its_clocks() -> None:
    engine, store, clock = make()
    control = TimeControl(base_ms=60_000, policy=TimeoutPolicy.FORFEIT)
    game = (await engine.create_game("nim", humans(2), {}, time_control=control)).game_id
    clock.advance(2_000)
    await engine.submit_action(game, 0, {"take": 1})
    clock.advance(3_000)

    await engine.resign_seat(game, 0)  # seat 1 is to act; seat 0 resigns anyway

    types = [e.type for e in await store.read(game)]
    assert types[-4:] == ["SeatResigned", "SeatForfeited", "SeedRevealed", "ClocksUpdated"]
    after = await engine.load(game)
    assert after.is_terminal() and after.clock is not None
    assert after.clock.next_deadline() is None
    assert store.deadlines.get(game) is None
    await audited(engine, store, game)


async def test_refusals_name_the_rule_and_change_nothing() -> None:
    engine, _, _ = make()
    game = (await engine.create_game("nim", humans(3), {})).game_id
    await engine.resign_seat(game, 1)
    version = (await engine.load(game)).version

    with pytest.raises(RuleViolation) as refused:
        await engine.resign_seat(game, 1)
    assert refused.value.rule == "seat_out"
    with pytest.raises(InvalidArgument):
        await engine.resign_seat(game, 7)
    assert (await engine.load(game)).version == version

    await engine.resign_seat(game, 0)  # the last two: the game ends
    with pytest.raises(RuleViolation) as over:
        await engine.resign_seat(game, 2)
    assert over.value.rule == "game_over"

    bots = await engine.create_game("nim", [*humans(1), SeatSpec(SeatKind.BOT, "b")], {})
    with pytest.raises(RuleViolation) as bot_seat:
        await engine.resign_seat(bots.game_id, 1)
    assert bot_seat.value.rule == "seat_is_bot"


async def test_a_resignation_command_id_is_idempotent_and_bound_to_its_seat() -> None:
    engine, store, _ = make()
    game = (await engine.create_game("nim", humans(3), {})).game_id
    first = await engine.resign_seat(game, 0, command_id="leave")
    again = await engine.resign_seat(game, 0, command_id="leave")
    assert (again.version, again.first_version) == (first.version, first.first_version)
    assert len(await store.read(game)) == first.version
    # Another seat's id space is its own: the same id is a fresh resignation there.
    other = await engine.resign_seat(game, 1, command_id="leave")
    assert other.first_version == first.version + 1


async def test_a_seat_absent_long_enough_may_be_claimed_and_reclaimed() -> None:
    engine, store, clock = make()
    game = (await engine.create_game("botnim", humans(3), {})).game_id
    clock.advance(ABSENCE_MS - 1)
    with pytest.raises(RuleViolation) as early:
        await engine.claim_seat_for_bot(game, 0, claimed_by=1)
    assert early.value.rule == "seat_not_absent"
    with pytest.raises(RuleViolation) as not_to_act:
        await engine.claim_seat_for_bot(game, 2, claimed_by=1)
    assert not_to_act.value.rule == "seat_not_absent"
    clock.advance(1)
    before = await engine.load(game)

    await engine.claim_seat_for_bot(game, 0, claimed_by=1, command_id="c1")

    written = await store.read(game, before.version)
    assert [e.type for e in written] == ["SeatClaimedForBot", "SeatTakenOver"]
    claim = written[0].payload
    assert claim["seat"] == 0 and claim["claimed_by"] == 1 and claim["reason"] == "absent"
    assert claim["absence_ms"] == ABSENCE_MS
    after = await engine.load(game)
    assert after.played_by_bot(0) and after.bot_seats_to_act() == (0,)
    with pytest.raises(RuleViolation) as twice:
        await engine.claim_seat_for_bot(game, 0, claimed_by=2)
    assert twice.value.rule == "seat_played_by_bot"
    await audited(engine, store, game)

    # Its player comes back: the next move reclaims the seat (SeatReclaimed first).
    await engine.submit_action(game, 0, {"take": 1})
    back = await engine.load(game)
    assert not back.played_by_bot(0)
    types = [e.type for e in await store.read(game, after.version)]
    assert types[0] == "SeatReclaimed"
    await audited(engine, store, game)


async def test_a_claim_without_a_bot_of_its_own_forfeits_the_seat() -> None:
    engine, store, clock = make()
    game = (await engine.create_game("nim", humans(2), {})).game_id
    clock.advance(ABSENCE_MS)
    await engine.claim_seat_for_bot(game, 0, claimed_by=1)
    after = await engine.load(game)
    assert after.control.forfeited == (0,)
    await audited(engine, store, game)


async def test_a_claim_of_a_clock_run_out_applies_the_timeout_as_the_timekeeper_would() -> None:
    engine, store, clock = make()
    control = TimeControl(move_deadline_ms=10_000, policy=TimeoutPolicy.FORFEIT)
    game = (await engine.create_game("nim", humans(3), {}, time_control=control)).game_id
    clock.advance(10_000)
    before = await engine.load(game)

    await engine.claim_seat_for_bot(game, 0, claimed_by=2)

    written = await store.read(game, before.version)
    assert [e.type for e in written] == [
        "SeatClaimedForBot",
        "SeatTimedOut",
        "SeatForfeited",
        "ClocksUpdated",
    ]
    assert written[0].payload["reason"] == "timed_out"
    await audited(engine, store, game)


async def test_claim_refusals() -> None:
    engine, _, clock = make()
    game = await engine.create_game("nim", [*humans(2), SeatSpec(SeatKind.BOT, "b")], {})
    clock.advance(ABSENCE_MS)
    for seat, by, rule in ((0, 0, "claim_own_seat"), (2, 0, "seat_is_bot"), (0, 2, "claimer_out")):
        with pytest.raises(RuleViolation) as refused:
            await engine.claim_seat_for_bot(game.game_id, seat, claimed_by=by)
        assert refused.value.rule == rule
    with pytest.raises(InvalidArgument):
        await engine.claim_seat_for_bot(game.game_id, 9, claimed_by=1)


async def test_a_seat_resigned_to_a_bot_may_not_claim_another() -> None:
    # Resigning for good (the game's bot takes the seat over) leaves the game: that
    # player claims no other seat, as a forfeited one does not.
    engine, _, clock = make()
    game = (await engine.create_game("handnim", humans(3), {})).game_id
    await engine.resign_seat(game, 0)
    clock.advance(ABSENCE_MS)
    with pytest.raises(RuleViolation) as refused:
        await engine.claim_seat_for_bot(game, 1, claimed_by=0)
    assert refused.value.rule == "claimer_out"


async def test_a_bot_seat_move_still_needs_the_bot_credential() -> None:
    """Resigning does not open a seat to anyone: the zombie moves under the credential."""
    engine, _, _ = make()
    game = (await engine.create_game("nim", humans(3), {})).game_id
    await engine.resign_seat(game, 0)
    with pytest.raises((NotAuthorized, RuleViolation)):
        await engine.submit_action(game, 0, {"take": 1}, bot_key="not-the-credential")


async def test_the_last_person_resigning_against_bots_ends_the_game() -> None:
    """The engine's bots never play on alone: a person against two bot seats who resigns
    loses at once, whatever the seat count."""
    engine, store, _ = make()
    seats = [*humans(1), SeatSpec(SeatKind.BOT, "b1"), SeatSpec(SeatKind.BOT, "b2")]
    game = (await engine.create_game("nim", seats, {})).game_id

    await engine.resign_seat(game, 0)

    after = await engine.load(game)
    result = after.result()
    assert after.is_terminal() and result is not None and result.ranking[-1] == 0
    await audited(engine, store, game)


async def test_a_claim_command_id_is_bound_to_the_claimed_seat() -> None:
    engine, _, clock = make()
    game = (await engine.create_game("botnim", humans(3), {})).game_id
    clock.advance(ABSENCE_MS)
    await engine.claim_seat_for_bot(game, 0, claimed_by=1, command_id="away")
    again = await engine.claim_seat_for_bot(game, 0, claimed_by=1, command_id="away")
    assert again.first_version == 3  # the original claim's answer, nothing appended
    with pytest.raises(RuleViolation) as reused:
        await engine.claim_seat_for_bot(game, 2, claimed_by=1, command_id="away")
    assert reused.value.rule == "command_id_reused"
