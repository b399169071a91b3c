"""RULES.md §9: every refused command names the broken rule and changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from services.engine.domain.ruleset import RuleViolation
from services.games.teotihuacan.rules.state import state_to_dict

from .builders import RULES, clear_board, new_game, place, turn_of

FOREST = 2


def _refusal(state: Any, seat: int, action: Any) -> RuleViolation:
    before = copy.deepcopy(state_to_dict(state))
    with pytest.raises(RuleViolation) as refused:
        RULES.decide(state, seat, action, random.Random(0))
    assert state_to_dict(state) == before
    return refused.value


def test_wrong_seat_is_refused() -> None:
    state = new_game(seats=3, seed=4)
    other = state.turn_order[1]
    assert _refusal(state, other, {"type": "unlock"}).rule == "not_your_turn"


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        ({"type": "move", "worker": 1, "steps": 1}, "worker_locked"),
        ({"type": "move", "worker": 7, "steps": 1}, "unknown_worker"),
        ({"type": "move", "worker": 3, "steps": 1}, "worker_not_in_play"),
        ({"type": "move", "worker": 0, "steps": 4}, "distance_out_of_range"),
        ({"type": "move", "worker": 0, "steps": 0}, "distance_out_of_range"),
        ({"type": "power_up", "worker": 0}, "wrong_decision"),
        ({"type": "pay_unlock"}, "free_action_not_allowed"),
        ({"kind": "move"}, "malformed_action"),
    ],
)
def test_move_refusals_name_the_rule(action: dict[str, Any], rule: str) -> None:
    state = clear_board(new_game(seats=2, seed=4))
    state = place(state, 0, (FOREST, 1), (3, 1, 0))
    state = place(state, 1, (FOREST, 1))
    state = turn_of(state, 0)
    refused = _refusal(state, 0, action)
    assert refused.rule == rule
    assert "RULES.md" in refused.message or rule == "malformed_action"


def test_ended_game_refuses_everything() -> None:
    state = new_game(seats=2, seed=9)
    rng = random.Random(9)
    while not RULES.is_terminal(state):
        (seat,) = RULES.seats_to_act(state)
        action = rng.choice(list(RULES.legal_actions(state, seat)))
        for event in RULES.decide(state, seat, action, rng):
            state = RULES.evolve(state, event)
    assert _refusal(state, 0, {"type": "unlock"}).rule == "game_ended"
    assert RULES.seats_to_act(state) == ()
