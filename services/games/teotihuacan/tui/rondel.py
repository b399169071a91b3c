"""The rondel: the eight action boards in play order, every worker on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from services.games.teotihuacan.rules.components import components
from services.games.teotihuacan.tui.words import board_name, discovery_words
from services.tui.widgets.common import Panel, legend, seat_mark


def workers_on(state: Mapping[str, Any], board: int, names: Sequence[str]) -> Text:
    """Workers on ``board``: ``A2`` = seat A at power 2, ``A2*`` locked, ``n`` neutral."""
    seats = len(names)
    text = Text()
    for seat, player in enumerate(state["players"]):
        for worker in player["workers"]:
            if worker["board"] == board:
                suffix = f"{worker['power']}" + ("*" if worker["locked"] else "")
                text.append_text(seat_mark(seat, seats, suffix))
                text.append(" ")
    for colour, at in state.get("neutral_workers", []):
        if at == board:
            text.append_text(seat_mark(colour, seats))
            text.append(" ")
    return text


def worship_words(state: Mapping[str, Any], board: int) -> str:
    """What waits at the board's worship area (discovery tile, royal tiles)."""
    info = components().board(board)
    if info.worship is None:
        return ""
    discoveries: list[int] = state.get("worship_discoveries", [])
    tile = discoveries[board] if board < len(discoveries) else -1
    found = f"disc. {discovery_words(tile)}" if tile >= 0 else "no disc."
    if info.worship == "royal_tiles":
        return f"royal tiles | {found}"
    temple = info.worship_temple or "any"
    return f"{temple} temple | {found}"


def render_rondel(state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
    """One row per rondel position: board, workers, worship space."""
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", style="dim")
    table.add_column(min_width=13)
    table.add_column(min_width=14)
    table.add_column(style="italic")
    for position, board in enumerate(state["rondel"], start=1):
        table.add_row(
            str(position),
            f"{board_name(board)}",
            workers_on(state, board, names),
            worship_words(state, board),
        )
    key = legend(names)
    key.append("   A2 = seat A's worker at power 2, * = locked", style="dim")
    return Group(table, key)


class RondelPanel(Panel):
    """The rondel of action boards (clockwise from the Palace)."""

    TITLE = "Rondel"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """Boards and workers."""
        return render_rondel(state, names)
