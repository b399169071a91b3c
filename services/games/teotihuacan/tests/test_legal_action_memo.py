"""The legal actions reused from the last decision equal the ones computed afresh."""

from __future__ import annotations

import random

import pytest

from services.engine.domain.ruleset import SetupRequest
from services.games.teotihuacan.rules import flow
from services.games.teotihuacan.rules.frozen import replace

from .builders import RULES, fold


@pytest.mark.parametrize("first_game", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_memoized_legal_actions_match_a_fresh_listing(seed: int, first_game: bool) -> None:
    rng = random.Random(seed)
    state = fold(
        RULES.setup(SetupRequest(seat_count=2 + seed % 3, options={"first_game": first_game}), rng)
    )
    while not RULES.is_terminal(state):
        seat = rng.choice(RULES.seats_to_act(state))
        legal = list(RULES.legal_actions(state, seat))
        # A copy is another object: nothing memoized for it, everything is listed again.
        assert list(RULES.legal_actions(replace(state), seat)) == legal
        _events, state = RULES.apply(state, seat, rng.choice(legal), rng)


@pytest.mark.parametrize(
    "options", [{"first_game": True}, {"first_game": False}, {"solo": True}], ids=str
)
@pytest.mark.parametrize("seed", range(3))
def test_remembered_decision_matches_a_fresh_one(seed: int, options: dict[str, bool]) -> None:
    """The pending task, rules and seats ``apply`` leaves in the memo, or that the first
    question about a state put there, are those of the state asked afresh (simultaneous
    starting-tile choices of the standard setup, Teotibot's turns and the game's end
    included)."""
    rng = random.Random(seed)
    seats = 2 if options.get("solo") else 2 + seed % 3
    state = fold(RULES.setup(SetupRequest(seat_count=seats, options=options), rng))
    simultaneous = 0
    while True:
        remembered = flow._decision(state)
        flow._MEMO.decision = None
        task = flow.pending_task(state)
        fresh = flow._decision(state)
        assert remembered == fresh and remembered[0] is task
        if task is None:
            assert RULES.is_terminal(state) and RULES.seats_to_act(state) == ()
            break
        assert remembered[1] is flow.rules_of(task)
        simultaneous += len(fresh[2]) > 1
        seat = rng.choice(RULES.seats_to_act(state))
        legal = list(RULES.legal_actions(state, seat))
        _events, state = RULES.apply(state, seat, rng.choice(legal), rng)
    assert simultaneous or options != {"first_game": False}
