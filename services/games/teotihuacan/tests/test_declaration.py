"""Teotihuacan's declaration (services/games/teotihuacan/__init__.py): the service's
default game, installed under its folder name."""

from __future__ import annotations

from services.engine.domain.rulesets import default_ruleset, installed_games
from services.games.teotihuacan import GAME


def test_it_is_the_default_game() -> None:
    assert GAME.default and default_ruleset() == "teotihuacan"


def test_it_is_installed_under_its_folder_name() -> None:
    assert GAME in installed_games() and GAME.name == "teotihuacan"
