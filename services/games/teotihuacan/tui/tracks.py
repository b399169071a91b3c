"""The three temples, the Avenue of the Dead, the Pyramid track and the calendar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from services.games.teotihuacan.rules.components import TEMPLES
from services.games.teotihuacan.tui.words import TEMPLE_STYLE
from services.safe_text import count
from services.tui.widgets.common import Panel, seat_mark

TEMPLE_STEPS = 12
AVENUE_STEPS = 10
PYRAMID_STEPS = 11


def _track(label: Text, positions: Sequence[int], steps: int, names: Sequence[str]) -> list[Any]:
    row: list[Any] = [label]
    for step in range(steps):
        cell = Text()
        for seat, at in enumerate(positions):
            if at == step:
                cell.append_text(seat_mark(seat, len(names)))
        row.append(cell if cell.plain else Text("·", style="dim"))
    return row


def _grid(steps: int) -> Table:
    table = Table(box=None, padding=(0, 0), show_edge=False)
    table.add_column("", min_width=9)
    for step in range(steps):
        table.add_column(str(step), justify="center", min_width=3)
    return table


def render_tracks(state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
    """Temples, then Avenue and Pyramid track, then the calendar and bonus tiles."""
    players = state["players"]
    temples = _grid(TEMPLE_STEPS)
    for index, temple in enumerate(TEMPLES):
        label = Text(temple, style=TEMPLE_STYLE[temple])
        temples.add_row(*_track(label, [p["temples"][index] for p in players], TEMPLE_STEPS, names))
    tracks = _grid(PYRAMID_STEPS)
    tracks.add_row(*_track(Text("Avenue"), [p["avenue"] for p in players], AVENUE_STEPS, names), "")
    tracks.add_row(*_track(Text("Pyramid"), [p["pyramid"] for p in players], PYRAMID_STEPS, names))
    light, dark = state.get("light", 0), state.get("dark", 0)
    calendar = Text()
    calendar.append("Calendar ", style="bold")
    for step in range(max(dark, light) + 1):
        if step == light == dark:
            calendar.append("@", style="bold reverse")
        elif step == light:
            calendar.append("L", style="bold yellow")
        elif step == dark:
            calendar.append("D", style="bold")
        else:
            calendar.append("-", style="dim")
    calendar.append(
        f"  light {light} / dark {dark}  eclipses scored: {state.get('eclipses', 0)}"
        f"  round {state.get('round', 0) + 1}"
    )
    if state.get("eclipse_countdown"):
        countdown = count(state["eclipse_countdown"], "round end")
        calendar.append(f"  eclipse in {countdown}", style="bold red")
    if state.get("final_eclipse"):
        calendar.append("  (final)", style="bold red")
    avenue = Text(f"Avenue value: {state.get('avenue_value', '?')} VP per step", style="dim")
    return Group(temples, tracks, avenue, calendar)


class TracksPanel(Panel):
    """Temples, Avenue of the Dead, Pyramid track and calendar."""

    TITLE = "Temples and tracks"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The tracks."""
        return render_tracks(state, names)
