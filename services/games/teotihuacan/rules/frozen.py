"""The shared frozen-dataclass helpers (:mod:`services.engine.domain.rules_support.frozen`),
re-exported under the name the Teotihuacan modules import, and the two copies of the game state that
nearly every event and every decision make."""

from __future__ import annotations

from services.engine.domain.rules_support.frozen import (
    replace,
    with_field,
    with_fields,
    with_item,
    without,
)

from .state import GameState, Player
from .tasks import Task

__all__ = [
    "replace",
    "with_agenda",
    "with_field",
    "with_fields",
    "with_item",
    "with_player",
    "without",
]


def with_player(state: GameState, seat: int, player: Player) -> GameState:
    """Copy of ``state`` with seat ``seat``'s player replaced (``seat`` must exist)."""
    return with_field(state, "players", with_item(state.players, seat, player))


def with_agenda(state: GameState, agenda: tuple[Task, ...]) -> GameState:
    """Copy of ``state`` with the pending tasks replaced (the end of every decision)."""
    return with_field(state, "agenda", agenda)
