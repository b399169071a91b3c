"""Teotibot's action pyramid (solo, RULES.md §8): which action each dice roll picks.

Shown only in a solo game. Positions are 1 on top, 2-3 in the middle row and 4-6 on the
bottom row; beside each row, the dice sums that pick its positions (position 5 is never
picked directly: tiles slide into it). Below: the set-aside tile and the direction tiles,
which decide how the pyramid slides after a tile is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from services.games.teotihuacan.rules.solo.action_pyramid import position_for
from services.tui.widgets.common import Panel

ROWS = ((1,), (2, 3), (4, 5, 6))
CELL = 18
"""Characters per tile on the screen ("[4 mask collection]" fits)."""


def dice_sums(position: int) -> list[int]:
    """The sums of two dice (2-12) that pick ``position`` (empty for position 5)."""
    return [total for total in range(2, 13) if position_for(total) == position]


def dice_words(position: int) -> str:
    """``"6-8→1"``: the dice sums that pick ``position`` (they are consecutive); ``""`` if none."""
    sums = dice_sums(position)
    if not sums:
        return ""
    span = f"{sums[0]}-{sums[-1]}" if len(sums) > 1 else str(sums[0])
    return f"{span}→{position}"


def tile_words(tile: str) -> str:
    """An action tile's name for the screen (``mask_collection`` → ``mask collection``)."""
    return tile.replace("_", " ")


def render_teotibot(state: Mapping[str, Any]) -> RenderableType:
    """The pyramid row by row, the dice sums per position, set-aside tile and directions."""
    tiles: Sequence[str] = state.get("teotibot_tiles", [])
    text = Text()
    width = CELL * 3
    for row in ROWS:
        cells = Text()
        for position in row:
            cells.append(f"[{position} ", style="dim")
            cells.append(tile_words(tiles[position - 1]), style="bold")
            cells.append("] ", style="dim")
        pad = max(0, (width - len(cells.plain)) // 2)
        text.append(" " * pad)
        text.append_text(cells)
        sums = ", ".join(words for words in map(dice_words, row) if words)
        text.append(" " * max(1, width - pad - len(cells.plain)))
        text.append(f"dice {sums}\n" if sums else "\n", style="dim")
    directions: Sequence[str] = state.get("teotibot_directions", [])
    text.append("Set aside: ")
    text.append(tile_words(str(state.get("teotibot_set_aside", ""))), style="bold")
    if directions:
        text.append("   slides: ")
        text.append(directions[0], style="bold")
        text.append(f" next, then {', '.join(directions[1:])}" if directions[1:] else " next")
    return text


class TeotibotPanel(Panel):
    """Teotibot's action pyramid; hidden unless the game is a solo game."""

    TITLE = "Teotibot's action pyramid"

    def show(self, state: Mapping[str, Any], names: Sequence[str]) -> None:
        """Show the pyramid in a solo game; hide the panel otherwise."""
        self.display = bool(state.get("teotibot_tiles"))
        if self.display:
            super().show(state, names)

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The pyramid."""
        return render_teotibot(state)
