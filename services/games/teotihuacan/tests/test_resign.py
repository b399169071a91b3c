"""Resigning Teotihuacan (issue 32; the rule: docs/rules-decisions.md, "Leaving a game"):
2 players end the game with the resigning seat last, solo is a loss to Teotibot, 3-4
players put the seat out while a zombie plays on. Through the engine, in memory."""

from __future__ import annotations

import asyncio
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.ruleset import Resignation
from tests.leaving_checks import humans, resign_and_finish, table

RULESET = "teotihuacan"


async def test_a_two_player_resignation_ends_the_game_with_the_other_player_first() -> None:
    game = await table(RULESET, humans(2), {"first_game": True})
    await game.play(12, random.Random(1))

    await game.engine.resign_seat(game.game_id, 1)

    after = await game.check_log()
    assert after.is_terminal() and after.seats_to_act() == ()
    result = after.result()
    assert result is not None and result.ranking == (0, 1)
    assert after.unrevealed() == () and after.revealed_seed is not None


async def test_a_solo_resignation_is_a_loss_to_teotibot() -> None:
    seats = [*humans(1), SeatSpec(SeatKind.BOT, "Teotibot")]
    game = await table(RULESET, seats, {"solo": True, "first_game": True})
    await game.play(6, random.Random(2))

    await game.engine.resign_seat(game.game_id, 0)

    after = await game.check_log()
    result = after.result()
    assert after.is_terminal() and result is not None and result.ranking == (1, 0)


async def test_a_three_player_resignation_puts_the_seat_out_and_the_game_goes_on() -> None:
    game = await table(RULESET, humans(3), {"first_game": True})
    await game.play(9, random.Random(3))

    await game.engine.resign_seat(game.game_id, 2)

    after = await game.check_log()
    assert not after.is_terminal()
    assert after.control.forfeited == (2,) and after.played_by_bot(2)
    events = await game.store.read(game.game_id)
    resigned = next(e for e in events if e.type == "SeatResigned")
    assert resigned.payload == {"seat": 2, "outcome": Resignation.SEAT_OUT.value}


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.sampled_from([2, 3, 4]), moves=st.integers(0, 40), data=st.data())
def test_any_seat_resigning_at_any_point_ranks_last_once_the_game_ends(
    seats: int, moves: int, data: st.DataObject
) -> None:
    """Property: whoever resigns whenever, the log folds, audits, and the finished
    game's result ranks that seat last (a zombie played its moves)."""
    seat = data.draw(st.integers(0, seats - 1))
    asyncio.run(resign_and_finish(RULESET, seats, {"first_game": True}, moves, seat))
