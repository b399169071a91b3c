"""Golden games: fixed seeds must keep playing exactly the recorded, readable playthroughs.

Each seeded random game of each setup is written out, one line per action and per event,
in ``golden/<setup>.seed<N>.txt`` (the format and the machinery: tests/golden.py). It pins
the rules' behaviour, so that a refactor, a speed-up or the mypyc-compiled build
(docs/performance.md) that changes any game is caught even when every invariant still
holds, and the failure shows the first lines that differ.

A deliberate rules change changes the playthroughs: regenerate them with
``.venv/bin/python -m services.games.teotihuacan.tests.test_golden_games --update``, read the diff
(``git diff services/games/teotihuacan/tests/golden``) and say in the commit which rule changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.golden import GoldenGames

from .builders import RULES

GOLDEN = GoldenGames(
    rules=RULES,
    game="teotihuacan",
    directory=Path(__file__).resolve().parent / "golden",
    module="services.games.teotihuacan.tests.test_golden_games",
    setups={
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
    },
    seeds=range(4),
)
CASES = GOLDEN.cases


@pytest.mark.parametrize(("setup", "seed"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_fixed_seeds_play_exactly_the_recorded_games(setup: str, seed: int) -> None:
    GOLDEN.check(setup, seed)


@pytest.mark.parametrize("hash_seed", ["1", "4242"])
def test_playthroughs_do_not_depend_on_the_hash_seed(hash_seed: str) -> None:
    """Set and dict orders of str keys change with PYTHONHASHSEED: none may leak into a line."""
    setup, seed = "standard_3", 1
    played = GOLDEN.play_in_subprocess(setup, seed, hash_seed)
    assert played == GOLDEN.path(setup, seed).read_text(encoding="utf-8")


def test_every_golden_file_is_a_case() -> None:
    assert GOLDEN.files_match_cases()


if __name__ == "__main__":
    raise SystemExit(GOLDEN.main(sys.argv[1:]))
