"""Engine.withdraw_seat (issue 30 item 4): a tournament player's withdrawal applies the
game's timeout policy to their seat at once, with the events a timeout appends (without
SeatTimedOut: no deadline passed), and the log still audits (clock events included).
On the in-memory store with an injected clock."""

from __future__ import annotations

import pytest

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import InvalidArgument, RuleViolation
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from tests.clocks.helpers import FakeClock, clock_registry

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann"), SeatSpec(SeatKind.HUMAN, "bob")]
DAY_MS = 86_400_000


def make(clock: FakeClock) -> tuple[Engine, InMemoryEventStore]:
    store = InMemoryEventStore()
    engine = Engine(store, clock_registry(), clock=clock, seed_source=fixed_seed("s1"))
    return engine, store


@pytest.mark.parametrize(
    ("policy", "ruleset", "settled_by"),
    [
        (TimeoutPolicy.FORFEIT, "nim", "SeatForfeited"),
        (TimeoutPolicy.BOT_TAKEOVER, "botnim", "SeatTakenOver"),
    ],
)
async def test_withdrawal_applies_the_timeout_policy_now(
    policy: TimeoutPolicy, ruleset: str, settled_by: str
) -> None:
    clock = FakeClock()
    engine, store = make(clock)
    control = TimeControl(move_deadline_ms=DAY_MS, policy=policy)
    game = (await engine.create_game(ruleset, HUMANS, {}, time_control=control)).game_id
    before = await engine.load(game)
    assert before.seats_to_act() == (0,)  # seat 0's clock runs: a day
    clock.at(5_000)  # long before its deadline

    result = await engine.withdraw_seat(game, 0)

    batch = await store.read(game, before.version)
    assert [e.type for e in batch] == [settled_by, "ClocksUpdated"]
    assert batch[0].payload == {"seat": 0}
    assert result.first_version == before.version + 1 and result.version == before.version + 2
    assert batch[1].payload["charged"] == [{"seat": 0, "used_ms": 5_000}]
    after = await engine.load(game)
    assert after.clock is not None and after.clock.clocks[0].deadline_ms is None
    assert after.played_by_bot(0) and after.bot_seats_to_act() == (0,)
    assert store.deadlines.get(game) is None  # no clock runs while the bot is to play
    report = audit_log(game, await store.read(game), clock_registry())
    assert report.ok, report.problems


async def test_withdrawal_is_idempotent_and_a_forfeited_seat_stays_with_the_bot() -> None:
    clock = FakeClock()
    engine, store = make(clock)
    control = TimeControl(move_deadline_ms=DAY_MS, policy=TimeoutPolicy.FORFEIT)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=control)).game_id
    # Seat 1 is not to act: withdrawing it stops no running clock and charges nothing.
    first = await engine.withdraw_seat(game, 1)
    again = await engine.withdraw_seat(game, 1)
    assert again.version == again.first_version == first.version  # nothing appended
    assert [e.type for e in await store.read(game)].count("SeatForfeited") == 1
    await engine.submit_action(game, 0, {"take": 1})
    with pytest.raises(RuleViolation) as refused:
        await engine.submit_action(game, 1, {"take": 1})  # the player cannot come back
    assert refused.value.rule == "seat_forfeited"
    assert (await engine.load(game)).bot_seats_to_act() == (1,)
    assert audit_log(game, await store.read(game), clock_registry()).ok


async def test_nothing_to_settle_in_an_unclocked_game_or_a_bot_seat() -> None:
    engine, _ = make(FakeClock())
    unclocked = (await engine.create_game("nim", HUMANS, {})).game_id
    version = (await engine.load(unclocked)).version
    assert (await engine.withdraw_seat(unclocked, 0)).version == version
    control = TimeControl(move_deadline_ms=DAY_MS, policy=TimeoutPolicy.FORFEIT)
    seats = [SeatSpec(SeatKind.HUMAN, "ann"), SeatSpec(SeatKind.BOT, "robot")]
    mixed = (await engine.create_game("nim", seats, {}, time_control=control)).game_id
    version = (await engine.load(mixed)).version
    assert (await engine.withdraw_seat(mixed, 1)).version == version
    with pytest.raises(InvalidArgument):
        await engine.withdraw_seat(mixed, 2)
