"""Each seat's goods, score and markers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from services.games.teotihuacan.tui.words import discovery_words
from services.safe_text import count
from services.tui.widgets.common import Panel, seat_mark


def render_seats(
    state: Mapping[str, Any], names: Sequence[str], you: int | None = None
) -> RenderableType:
    """A table: VP, cocoa, wood, stone, gold, tracks, technologies, tiles."""
    table = Table(box=None, padding=(0, 1), expand=False)
    for column in ("seat", "VP", "cocoa", "wood", "stone", "gold", "tech"):
        # Never narrower than the heading: a squeezed table wraps the tiles, not "s…".
        table.add_column(
            column,
            justify="left" if column == "seat" else "right",
            min_width=len(column) if column != "seat" else 8,
            no_wrap=column != "seat",
        )
    table.add_column("tiles", justify="left", min_width=5, ratio=1)
    current = state.get("current")
    waiting = (state.get("waiting_for") or {}).get("seat")
    for seat, player in enumerate(state["players"]):
        label = seat_mark(seat, len(names))
        label.append(f" {names[seat] if seat < len(names) else seat}")
        if seat == you:
            label.append(" (you)", style="bold")
        if seat == waiting or (waiting is None and seat == current):
            label.append(" <", style="reverse")
        tiles = [discovery_words(t, with_cost=False) for t in player.get("discoveries", [])]
        masks = player.get("masks", [])
        if masks:
            tiles.append(count(len(masks), "mask"))
        table.add_row(
            label,
            str(player["vp"]),
            str(player["cocoa"]),
            str(player["wood"]),
            str(player["stone"]),
            str(player["gold"]),
            str(len(player.get("technologies", []))),
            Text(", ".join(tiles) or "-", overflow="fold"),
        )
    return table


class SeatsPanel(Panel):
    """Score and goods of every seat; ``<`` marks whose decision it is."""

    TITLE = "Seats"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The seats table."""
        return render_seats(state, names, self.you)
