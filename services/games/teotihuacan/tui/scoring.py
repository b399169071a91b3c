"""Teotihuacan's pop-ups: an eclipse's scoring per seat, the final result with its tiebreak."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from services.tui.widgets.common import seat_with_name

COLUMNS = (
    ("avenue", "Avenue"),
    ("pyramid", "Pyramid track"),
    ("pyramid_leader", "leader"),
    ("masks", "masks"),
    ("total", "total"),
)


def render_eclipse(payload: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
    """The EclipseScored payload as a table, one row per seat."""
    table = Table(title=f"Eclipse {payload.get('eclipse')} scored", title_style="bold yellow")
    table.add_column("seat")
    for _, heading in COLUMNS:
        table.add_column(heading, justify="right")
    for row in payload.get("scores", []):
        seat = int(row["seat"])
        label = seat_with_name(seat, names)
        table.add_row(label, *(f"+{row.get(key, 0)}" for key, _ in COLUMNS))
    note = Text(
        f"Avenue value {payload.get('avenue_value', '?')} VP per step. "
        "Salaries follow (1 cocoa per worker of power 1-3, 2 per 4-5; -3 VP per cocoa unpaid).",
        style="dim",
    )
    return Group(table, note)


def tiebreak_words(scores: Sequence[int], ranking: Sequence[int], cocoa: Sequence[int]) -> str:
    """Why the winner won when VP tie (RULES.md §6.3), else ``""``."""
    if len(ranking) < 2 or not scores:
        return ""
    first, second = ranking[0], ranking[1]
    if scores[first] != scores[second]:
        return ""
    if first < len(cocoa) and second < len(cocoa) and cocoa[first] != cocoa[second]:
        return f"tied on {scores[first]} VP: broken by cocoa ({cocoa[first]} vs {cocoa[second]})"
    return f"tied on {scores[first]} VP and cocoa: broken by turn order"


def render_final(state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
    """Final scores in ranking order, the winner and any tiebreak."""
    scores: list[int] = state.get("final_scores") or state.get("scores", [])
    ranking: list[int] = state.get("ranking", [])
    cocoa = [p["cocoa"] for p in state["players"]]
    table = Table(title="Final scores", title_style="bold")
    for heading in ("place", "seat", "VP", "cocoa"):
        table.add_column(heading, justify="right" if heading != "seat" else "left")
    for place, seat in enumerate(ranking, start=1):
        label = seat_with_name(seat, names)
        table.add_row(str(place), label, str(scores[seat]), str(cocoa[seat]))
    winner = names[ranking[0]] if ranking and ranking[0] < len(names) else "?"
    lines = [Text(f"{winner} wins!", style="bold green")]
    tie = tiebreak_words(scores, ranking, cocoa)
    if tie:
        lines.append(Text(tie, style="italic"))
    return Group(table, *lines)
