"""Golden games: fixed seeds must keep producing exactly the same events.

One fingerprint (SHA-256 over every event's type, schema version and canonical payload)
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
    "first_game_4": "94ec71c9ea8aaefd4fbc22bea55b4ff9887a1682d91f5bb3c0612f00d1e7648b",
    "standard_3": "82f820657c99d963d18ef7d1136ea999b42e0b871a70149a29a05e90ec36674f",
    "draft_dark_advanced_2": "358cbf441aeed9b78b538d60bdd6736697b8247f1960e3e0dacc13c460cb63cd",
    "solo": "41cf907a2769041bd2b2ab2a95d5e354c1084ec55098017c8b3b0169c6ab9de5",
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
            digest.update(b"\n")
    return digest.hexdigest()


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_fixed_seeds_play_exactly_the_recorded_games(setup: str) -> None:
    seats, options = SETUPS[setup]
    assert fingerprint(seats, options) == FINGERPRINTS[setup]


if __name__ == "__main__":
    for name, (seats, options) in SETUPS.items():
        print(f'    "{name}": "{fingerprint(seats, options)}",')
