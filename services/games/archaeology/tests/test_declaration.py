"""Archaeology's declaration (services/games/archaeology/__init__.py) agrees with its data."""

from __future__ import annotations

from services.engine.domain.rulesets import installed_games
from services.games.archaeology import GAME
from services.games.archaeology.rules.components import components


def test_the_declared_seats_are_those_of_the_components_data() -> None:
    data = components()  # the seat counts live in the game's data file (RULES.md A1)
    assert (GAME.min_seats, GAME.max_seats) == (data.min_seats, data.max_seats)


def test_it_is_installed_under_its_folder_name() -> None:
    assert GAME in installed_games() and GAME.name == "archaeology"
