"""Counted words in the list of moves read as a person writes them: one worker, two
workers, one time, two times, two power-ups (never "worker(s)", "time(s)",
"power-up(s)")."""

from __future__ import annotations

from services.games.teotihuacan.rules.action_words import describe_action_at, discovery_name
from services.games.teotihuacan.rules.components import components
from services.games.teotihuacan.rules.describe import describe_action

from .builders import new_game


def test_workers_moved_alongside_read_singular_for_one_and_plural_for_two() -> None:
    one = {"type": "move", "worker": 0, "steps": 2, "with_workers": [1]}
    two = {"type": "move", "worker": 0, "steps": 2, "with_workers": [1, 2]}
    assert describe_action(one) == "Move worker 1 2 boards on, with worker 2 alongside"
    assert describe_action(two) == "Move worker 1 2 boards on, with workers 2, 3 alongside"
    state = new_game(seats=2)
    at_one = describe_action_at(state, 0, one)
    at_two = describe_action_at(state, 0, two)
    assert at_one.endswith(", with worker 2 alongside")
    assert at_two.endswith(", with workers 2, 3 alongside")


def test_royal_trades_read_singular_for_one_and_plural_for_two() -> None:
    assert describe_action({"type": "royal_trade", "times": 1}) == (
        "Trade 1 time with the royal tile"
    )
    assert describe_action({"type": "royal_trade", "times": 2}) == (
        "Trade 2 times with the royal tile"
    )


def test_power_up_tiles_read_in_the_plural_for_two() -> None:
    tiles = components().raw["discovery_tiles"]
    power_ups = [t for t, data in enumerate(tiles) if data["kind"] == "power_up"]
    assert power_ups
    for tile in power_ups:
        assert discovery_name(tile) == f"{tiles[tile]['amount']} power-ups"
