"""Helpers shared by the board widgets: seat letters and colours, and a base panel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.widgets import Static

from services.tui.words import seat_colour

LETTERS = "ABCDEFGH"


def seat_mark(seat: int, seats: int, suffix: str = "") -> Text:
    """A seat's letter (A, B, ...) in its colour; neutral colours are ``n``."""
    letter = LETTERS[seat] if seat < seats and seat < len(LETTERS) else "n"
    return Text(letter + suffix, style=f"bold {seat_colour(seat, seats)}")


def seat_with_name(
    seat: int, names: Sequence[str], you: int | None = None, to_act: Sequence[int] = ()
) -> Text:
    """A table row's seat: its mark and name (its number when unnamed), `` (you)`` for
    the player's own seat and `` <`` for a seat to act."""
    label = seat_mark(seat, len(names))
    label.append(f" {names[seat] if seat < len(names) else seat}")
    if seat == you:
        label.append(" (you)", style="bold")
    if seat in to_act:
        label.append(" <", style="reverse")
    return label


def legend(names: Sequence[str]) -> Text:
    """``A ann  B Teotibot  n neutral`` in the seats' colours."""
    text = Text()
    for seat, name in enumerate(names):
        text.append_text(seat_mark(seat, len(names)))
        text.append(f" {name}  ")
    text.append("n", style=f"bold {seat_colour(len(names), len(names))}")
    text.append(" neutral")
    return text


class Panel(Static):
    """A bordered board part that re-renders from the projection.

    Subclasses implement :meth:`render_state`; :meth:`show` is called with every new
    projection (``state``) and the seat names.
    """

    DEFAULT_CSS = """
    Panel {
        border: round $primary-darken-1;
        padding: 0 1;
        height: auto;
    }
    """
    TITLE = ""
    you: int | None = None
    """The seat the table is shown to (None: a watcher); the app sets it before ``show``."""
    to_act: tuple[int, ...] = ()
    """Seats with a pending decision, set by the app before ``show``."""

    def on_mount(self) -> None:
        """Set the border title."""
        self.border_title = self.TITLE

    def show(self, state: Mapping[str, Any], names: Sequence[str]) -> None:
        """Re-render from a new projection."""
        self.update(self.render_state(state, names))

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """What this part of the table shows for ``state``."""
        raise NotImplementedError
