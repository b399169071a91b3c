"""RULES.md §1: the first-game setup."""

from __future__ import annotations

import pytest

from services.engine.domain.ruleset import InvalidOptions, SetupRequest
from services.games.teotihuacan.rules.state import NOT_IN_PLAY

from .builders import RULES, new_game


def test_four_seat_first_game_layout_by_turn_position() -> None:
    state = new_game(seats=4, seed=3)
    first, second, third, fourth = (state.players[s] for s in state.turn_order)
    # Seat 1: 1 starting cocoa + 5, green step 1 gives +1 cocoa.
    assert (first.cocoa, first.wood, first.stone, first.gold) == (7, 1, 2, 4)
    assert first.temples == (0, 0, 1)
    assert [(w.board, w.power) for w in first.workers_in_play()] == [(6, 2), (2, 1), (8, 1)]
    # Seat 2: 2 + 5 cocoa, red step (+1 VP), blue step taking stone.
    assert (second.cocoa, second.wood, second.stone, second.gold, second.vp) == (7, 4, 2, 0, 1)
    assert second.temples == (1, 1, 0)
    # Seat 3: Avenue step, 2 + 4 cocoa, blue step taking gold.
    assert (third.cocoa, third.wood, third.stone, third.gold, third.avenue) == (6, 3, 4, 1, 1)
    assert [(w.board, w.power) for w in third.workers_in_play()] == [(1, 1), (2, 1), (7, 1)]
    # Seat 4: 3 cocoa, two green steps (one from the technology), +1 cocoa each.
    assert (fourth.cocoa, fourth.wood, fourth.gold) == (5, 2, 5)
    assert fourth.temples == (0, 0, 2)
    assert fourth.technologies == (2,)
    for player in (first, second, third, fourth):
        assert player.workers[3].board == NOT_IN_PLAY and player.workers[3].power == 3
    assert state.neutral_workers == ()
    assert (state.light, state.dark) == (0, 12)


@pytest.mark.parametrize(
    ("seats", "colours", "dark", "last_cocoa"),
    [(2, 2, 10, 3 + 5), (3, 1, 11, 3 + 4)],  # last seat: 3 cocoa + its first-game cocoa
)
def test_neutral_workers_and_dark_marker_for_fewer_seats(
    seats: int, colours: int, dark: int, last_cocoa: int
) -> None:
    state = new_game(seats=seats, seed=11)
    neutral_colours = {colour for colour, _ in state.neutral_workers}
    assert neutral_colours == set(range(seats, seats + colours))
    for colour in neutral_colours:
        boards = [b for c, b in state.neutral_workers if c == colour]
        assert len(boards) == 3 and len(set(boards)) == 3
    assert state.dark == dark
    assert state.players[state.turn_order[-1]].cocoa == last_cocoa


def test_first_seat_is_drawn_and_waits_for_its_turn() -> None:
    firsts = {new_game(seats=4, seed=seed).turn_order[0] for seed in range(20)}
    assert len(firsts) > 1
    state = new_game(seats=4, seed=5)
    assert RULES.seats_to_act(state) == (state.turn_order[0],)


@pytest.mark.parametrize("seats", [1, 5])
def test_seat_count_outside_two_to_four_is_refused(seats: int) -> None:
    import random

    with pytest.raises(InvalidOptions):
        RULES.setup(SetupRequest(seat_count=seats), random.Random(0))


def test_unknown_option_is_refused() -> None:
    import random

    with pytest.raises(InvalidOptions) as refused:
        RULES.setup(SetupRequest(seat_count=2, options={"no_such": True}), random.Random(0))
    assert "RULES.md §7" in refused.value.message
