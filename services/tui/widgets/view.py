"""The generic table: any ruleset's JSON view, readable without knowing the game.

:class:`ViewPanel` shows the view's top-level entries (everything but the seats) as
``key: value`` lines; :class:`SeatsView` shows the list of per-seat entries (the view's
``seats`` or ``players``) as a table, one row per seat. Keys are shown in words
(``cards_sold`` -> "cards sold"), nested values compactly (``{"coins": 2}`` -> "coins 2").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from services.tui.widgets.common import Panel, seat_with_name
from services.tui.words import words_of

SEAT_KEYS = ("seats", "players")
"""Keys under which a view lists one entry per seat (first one present is used)."""


def compact(value: Any) -> str:
    """A JSON value in one short line of words.

    None -> ``"-"``; booleans -> ``"yes"``/``"no"``; a mapping -> ``"key value, ..."``
    (``"none"`` if empty); a list -> its items joined by ``", "`` (``"none"`` if empty).
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return ", ".join(f"{words_of(str(k))} {compact(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        if not value:
            return "none"
        if all(isinstance(item, Mapping) for item in value):
            return "; ".join(compact(item) for item in value)
        return ", ".join(compact(item) for item in value)
    return words_of(str(value)) if isinstance(value, str) else str(value)


def seat_entries(view: Mapping[str, Any]) -> tuple[str, list[Mapping[str, Any]]] | None:
    """``(key, entries)`` of the view's per-seat list, or None when it has none."""
    for key in SEAT_KEYS:
        entries = view.get(key)
        if isinstance(entries, list) and entries and all(isinstance(e, Mapping) for e in entries):
            return key, entries
    return None


def render_view(view: Mapping[str, Any]) -> RenderableType:
    """Every top-level entry but the per-seat list, one ``key: value`` line each."""
    seats = seat_entries(view)
    skip = seats[0] if seats else None
    text = Text()
    for key, value in view.items():
        if key == skip:
            continue
        if text:
            text.append("\n")
        text.append(f"{words_of(str(key))}: ", style="bold")
        text.append(compact(value))
    return text if text else Text("(nothing to show)", style="dim")


def render_seat_table(
    view: Mapping[str, Any], names: Sequence[str], you: int | None, to_act: Sequence[int] = ()
) -> RenderableType:
    """One row per seat with every key any seat's entry has; ``<`` marks seats to act."""
    seats = seat_entries(view)
    if seats is None:
        return render_names(names, you, to_act)
    entries = seats[1]
    keys: list[str] = []
    for entry in entries:
        keys += [str(k) for k in entry if str(k) not in keys]
    table = Table(box=None, padding=(0, 1), expand=False)
    table.add_column("seat", no_wrap=True)
    for key in keys:
        table.add_column(words_of(key), overflow="fold")
    for seat, entry in enumerate(entries):
        table.add_row(
            seat_with_name(seat, names, you, to_act),
            *(compact(entry.get(key)) if key in entry else "" for key in keys),
        )
    return table


def render_names(names: Sequence[str], you: int | None, to_act: Sequence[int]) -> RenderableType:
    """Just the seats' names (a view without a per-seat list)."""
    text = Text()
    for seat in range(len(names)):
        if seat:
            text.append("\n")
        text.append_text(seat_with_name(seat, names, you, to_act))
    return text


class ViewPanel(Panel):
    """The seat's view of the game, key by key (the generic board)."""

    TITLE = "Table"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The view's entries."""
        return render_view(state)


class SeatsView(Panel):
    """Every seat's public (and, for your seat, private) entries; ``<`` marks who acts."""

    TITLE = "Seats"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The seats table."""
        return render_seat_table(state, names, self.you, self.to_act)
