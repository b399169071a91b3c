"""Resigning Archaeology (issue 32; the rule: docs/archaeology.md, "Leaving a game"):
2 players end the expedition with the resigning seat last, 3-5 players put the seat
out while a zombie plays its hand. Through the engine, in memory."""

from __future__ import annotations

import asyncio
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.leaving_checks import humans, resign_and_finish, table

RULESET = "archaeology"
OPTIONS = {"ruin": "pyramid"}


async def test_a_two_player_resignation_ends_the_expedition_with_the_other_first() -> None:
    game = await table(RULESET, humans(2), OPTIONS)
    await game.play(10, random.Random(1))

    await game.engine.resign_seat(game.game_id, 0)

    after = await game.check_log()
    result = after.result()
    assert after.is_terminal() and result is not None and result.ranking == (1, 0)
    assert after.unrevealed() == () and after.revealed_seed is not None


async def test_a_five_player_resignation_puts_the_seat_out_and_play_goes_on() -> None:
    game = await table(RULESET, humans(5), OPTIONS)
    await game.play(15, random.Random(2))

    await game.engine.resign_seat(game.game_id, 3)

    after = await game.check_log()
    assert not after.is_terminal() and after.control.forfeited == (3,)
    if 3 in after.seats_to_act():  # the zombie's cue went out with the resignation
        assert after.bot_seats_to_act() == (3,)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 5), moves=st.integers(0, 60), data=st.data())
def test_any_seat_resigning_at_any_point_ranks_last_once_the_expedition_ends(
    seats: int, moves: int, data: st.DataObject
) -> None:
    """Property: whoever resigns whenever, the log folds, audits, and the finished
    expedition's result ranks that seat last."""
    seat = data.draw(st.integers(0, seats - 1))
    asyncio.run(resign_and_finish(RULESET, seats, OPTIONS, moves, seat))
