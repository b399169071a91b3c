"""Workers are numbered from 1 wherever a player reads them (the move list, the log, the
terminal), as people count: the action's index 0 is "worker 1". The actions and events
keep their 0-based indices (a permanent public contract); only the words change."""

from __future__ import annotations

from services.engine.domain.ruleset import DomainEvent
from services.games.teotihuacan.rules.action_words import describe_action_at
from services.games.teotihuacan.rules.components import components
from services.games.teotihuacan.rules.describe import (
    describe_action,
    describe_event,
    workers_words,
)
from services.games.teotihuacan.tui.words import action_words, event_words

from .builders import RULES, new_game


def test_the_move_list_numbers_workers_from_1() -> None:
    assert describe_action({"type": "move", "worker": 0, "steps": 1}) == (
        "Move worker 1 1 board on"
    )
    assert describe_action({"type": "move", "worker": 3, "steps": 2}) == (
        "Move worker 4 2 boards on"
    )
    palace = components().board(1).name
    assert describe_action({"type": "teleport", "worker": 0, "board": 1}) == (
        f"Move worker 1 straight to {palace}"
    )
    assert describe_action({"type": "power_up", "worker": 0}) == "Power up worker 1"
    assert workers_words([0]) == "worker 1"
    assert workers_words([0, 2]) == "workers 1, 3"


def test_the_described_legal_moves_number_workers_from_1() -> None:
    state = new_game(seats=2)
    worker = state.players[0].workers[0]
    move = describe_action_at(state, 0, {"type": "move", "worker": 0, "steps": 1})
    assert move.startswith(f"Move worker 1 (power {worker.power}) from ")
    power_up = describe_action_at(state, 0, {"type": "power_up", "worker": 0})
    assert power_up.startswith("Power up worker 1 (on ")
    for words in (move, power_up):
        assert "worker 0" not in words


def test_the_terminal_numbers_workers_from_1() -> None:
    view = dict(RULES.view(new_game(seats=2), 0))
    moved = action_words({"type": "move", "worker": 0, "steps": 1}, view, 0)
    assert moved.startswith("move worker 1 (")
    along = {"type": "move", "worker": 0, "steps": 1, "with_workers": [1, 2]}
    assert action_words(along, view, 0).endswith(" with workers 2, 3")
    alone = {"type": "move", "worker": 0, "steps": 1, "with_workers": [1]}
    assert action_words(alone, view, 0).endswith(" with worker 2")
    teleported = action_words({"type": "teleport", "worker": 1, "board": 1}, view, 0)
    assert teleported.startswith("teleport worker 2 (")
    assert action_words({"type": "power_up", "worker": 0}, view, 0).startswith(
        "power up worker 1 ("
    )
    assert action_words({"type": "power_up", "worker": 9}, view, 0) == "power up worker 10"


def test_teotibot_s_mastery_reason_numbers_its_workers_from_1() -> None:
    payload = {
        "seat": 1,
        "tile": "mastery",
        "step": "main",
        "board": 7,
        "worker": 0,
        "reason": "mastery: worker 0 can act there",
    }
    chosen = DomainEvent("TeotibotActionChosen", payload)
    assert (
        describe_event(chosen) == "Teotibot's mastery tile: main (mastery: worker 1 can act there)"
    )
    assert event_words(chosen, ["ann", "Teotibot"]).endswith("mastery: worker 1 can act there")
    assert payload["reason"] == "mastery: worker 0 can act there"  # the payload is untouched
