"""Golden games: fixed seeds must keep playing exactly the recorded, readable playthroughs.

Seeded random Archaeology games, one setup per ruin, over 2-5 seats and every variant
(``long_expedition``, ``sand_hell``, ``lucky_beginner``), are written out one line per
action and per event in ``golden/<setup>.seed<N>.txt`` (format and machinery:
tests/golden.py, shared with every game). They pin the rules' behaviour, hidden values
included, so that a refactor or a speed-up that changes any game is caught even when every
invariant still holds.

A deliberate rules change (or a corrected number in components.json, E1) changes the
playthroughs: regenerate them with
``.venv/bin/python -m services.games.archaeology.tests.test_golden_games --update``, read the diff
(``git diff services/games/archaeology/tests/golden``) and say in the commit which rule or number
changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.golden import GoldenGames

from .builders import RULES

GOLDEN = GoldenGames(
    rules=RULES,
    game="archaeology",
    directory=Path(__file__).resolve().parent / "golden",
    module="services.games.archaeology.tests.test_golden_games",
    setups={
        "pyramid_2": (2, {"ruin": "pyramid"}),
        "tomb_long_expedition_2": (2, {"ruin": "tomb", "long_expedition": True}),
        "temple_long_expedition_lucky_beginner_3": (
            3,
            {"ruin": "temple", "long_expedition": True, "lucky_beginner": True},
        ),
        "sphinx_lucky_beginner_5": (5, {"ruin": "sphinx", "lucky_beginner": True}),
        "mine_sand_hell_4": (4, {"ruin": "mine", "sand_hell": True}),
        "buried_ruins_sand_hell_lucky_beginner_5": (
            5,
            {"ruin": "buried_ruins", "sand_hell": True, "lucky_beginner": True},
        ),
    },
    seeds=range(2),
)
CASES = GOLDEN.cases
SCHEMAS = Path(__file__).resolve().parents[4] / "docs" / "event-schemas" / "archaeology"


@pytest.mark.parametrize(("setup", "seed"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_fixed_seeds_play_exactly_the_recorded_games(setup: str, seed: int) -> None:
    GOLDEN.check(setup, seed)


def test_the_setups_cover_every_ruin_and_variant_and_seat_count() -> None:
    setups = GOLDEN.setups.values()
    assert {options["ruin"] for _, options in setups} == set(RULES.comp.ruins)
    assert {seats for seats, _ in setups} == set(
        range(RULES.comp.min_seats, RULES.comp.max_seats + 1)
    )
    for variant in ("long_expedition", "sand_hell", "lucky_beginner"):
        assert any(options.get(variant) for _, options in setups), variant


def test_the_golden_games_between_them_show_every_registered_event_type() -> None:
    """Every Archaeology event type of the schema registry (docs/event-schemas) happens in
    at least one golden game, so each is pinned by a playthrough."""
    registered = {p.name.split(".")[0] for p in SCHEMAS.glob("*.schema.json")}
    shown = {
        line.split()[2].split("/")[0]
        for setup, seed in CASES
        for line in GOLDEN.path(setup, seed).read_text(encoding="utf-8").splitlines()
        if line.startswith("event ")
    }
    assert registered and registered <= shown, registered - shown


def test_playthroughs_do_not_depend_on_the_hash_seed() -> None:
    """Set and dict orders of str keys change with PYTHONHASHSEED: none may leak into a line."""
    setup, seed = "buried_ruins_sand_hell_lucky_beginner_5", 1
    played = GOLDEN.play_in_subprocess(setup, seed, "4242")
    assert played == GOLDEN.path(setup, seed).read_text(encoding="utf-8")


def test_every_golden_file_is_a_case() -> None:
    assert GOLDEN.files_match_cases()


if __name__ == "__main__":
    raise SystemExit(GOLDEN.main(sys.argv[1:]))
