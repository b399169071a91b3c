"""Golden games: fixed seeds must keep producing exactly the same events.

One fingerprint (SHA-256 over every event's type, schema version, canonical payload and
sealed values)
per setup, over a few random games each. It pins the rules' behaviour, so that a
refactor, a speed-up or the mypyc-compiled build (docs/performance.md) that changes any
game is caught even when every invariant still holds.

A deliberate rules change changes the fingerprints: regenerate them with
``.venv/bin/python -m tests.unit.teotihuacan.test_golden_games`` and say in the commit
which rule changed.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from services.engine.ruleset import SetupRequest
from services.engine.store.records import canonical_json

from .builders import RULES

SEEDS = range(4)
SETUPS: dict[str, tuple[int, dict[str, Any]]] = {
    "first_game_4": (4, {"first_game": True}),
    "standard_3": (3, {"first_game": False}),
    "draft_dark_advanced_2": (
        2,
        {
            "first_game": False,
            "draft_starting_tiles": True,
            "dark_eclipse": True,
            "advanced_worship": True,
        },
    ),
    "solo": (2, {"solo": True, "first_game": False}),
}
FINGERPRINTS = {
    "first_game_4": "c3952ae3168226c4519fdb428f45dfcdc74ed723b2604ba01d2c2695c18ed79b",
    "standard_3": "e1ce94a5980ef3a767ccc1f6470b8f65df6584e80ec8f2151687ff8f502dc9bc",
    "draft_dark_advanced_2": "9f40b70b4180560b9702534034564c624e99b3f886cc2c461fb9d78a0b395864",
    "solo": "30554166c77e5d1cbb1dd6f39557da4fda48edabad417544c808116147d228d8",
}


def fingerprint(seats: int, options: dict[str, Any]) -> str:
    """SHA-256 hex of every event of the random games of ``SEEDS`` (choices from the seed)."""
    digest = hashlib.sha256()
    for seed in SEEDS:
        rng = random.Random(seed)
        events = RULES.setup(SetupRequest(seat_count=seats, options=options), rng)
        state: Any = None
        for event in events:
            state = RULES.evolve(state, event)
        while not RULES.is_terminal(state):
            seat = rng.choice(RULES.seats_to_act(state))
            action = rng.choice(list(RULES.legal_actions(state, seat)))
            new_events, state = RULES.apply(state, seat, action, rng)
            events.extend(new_events)
        for event in events:
            digest.update(f"{event.type}/{event.schema_version}/".encode())
            digest.update(canonical_json(event.payload).encode())
            # Hidden values are part of the game too (the log holds only commitments).
            sealed = {k: [v.value, list(v.seats)] for k, v in event.sealed.items()}
            digest.update(canonical_json([sealed, list(event.reveals)]).encode())
            digest.update(b"\n")
    return digest.hexdigest()


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_fixed_seeds_play_exactly_the_recorded_games(setup: str) -> None:
    seats, options = SETUPS[setup]
    assert fingerprint(seats, options) == FINGERPRINTS[setup]


if __name__ == "__main__":
    for name, (seats, options) in SETUPS.items():
        print(f'    "{name}": "{fingerprint(seats, options)}",')
