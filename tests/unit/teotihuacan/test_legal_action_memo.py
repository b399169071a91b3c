"""The legal actions reused from the last decision equal the ones computed afresh."""

from __future__ import annotations

import random

import pytest

from services.engine.rules.teotihuacan.frozen import replace
from services.engine.ruleset import SetupRequest

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
