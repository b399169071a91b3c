"""Archaeology's table: the expedition (your hand, the market, the dig site, the ruin's
rooms, the discard) and the museum (each seat's sold sets, points, hand size and tents),
in the words of shared/rules/archaeology/RULES.md (A1-A8)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from services.client import GameView
from services.games.archaeology.rules.describe import (
    cards_words,
    kind_count,
    kind_words,
    room_words,
)
from services.safe_text import count
from services.tui.kit import TableKit
from services.tui.widgets.common import Panel, seat_with_name
from services.tui.words import seat_label

PENDING_WORDS = {
    "thief": "a thief: choose whom to rob",
    "sandstorm": "a sandstorm: tents, then losses",
    "trade": "a trade at the market",
    "mine": "the mine: stop or go on",
    "tomb": "the tomb",
    "peek": "the temple: look into a room?",
}
"""The decision a pending step waits for (the view's ``pending.kind``)."""


def _line(text: Text, label: str, value: str) -> None:
    if text:
        text.append("\n")
    text.append(f"{label}: ", style="bold")
    text.append(value)


def _cards(size: Any) -> str:
    """A pile's size in words: ``"1 card"``, ``"2 cards"``; unknown: ``"? cards"``."""
    return count(size, "card") if isinstance(size, int) else "? cards"


def render_expedition(state: Mapping[str, Any], you: int | None) -> RenderableType:
    """Your hand (if you hold a seat), the market, the dig site, the rooms, the discard."""
    text = Text()
    seats = state.get("seats", [])
    if you is not None and 0 <= you < len(seats) and "hand" in seats[you]:
        _line(text, "Your hand", cards_words(seats[you]["hand"]))
    _line(text, "Market", cards_words(state.get("market", {})))
    _line(
        text,
        "Dig site",
        f"{_cards(state.get('dig_site_size'))} (thieves {state.get('dig_site_thieves', '?')}"
        f", sandstorms {state.get('dig_site_sandstorms', '?')})",
    )
    rooms = []
    for index, room in enumerate(state.get("rooms", [])):
        shown = f": {cards_words(room['cards'])}" if "cards" in room else ""
        rooms.append(f"{room_words(index)} {_cards(room.get('size'))}{shown}")
    maps = state.get("maps_to_explore")
    to_explore = count(maps, "map") if isinstance(maps, int) else f"{maps} maps"
    ruin = f"{kind_words(state.get('ruin', '?'))} ({to_explore} to explore)"
    _line(text, "Ruin", ruin + ("; " + "; ".join(rooms) if rooms else ""))
    if you is not None and 0 <= you < len(seats) and seats[you].get("known_rooms"):
        known = seats[you]["known_rooms"]
        seen = "; ".join(f"{room_words(r)}: {cards_words(c)}" for r, c in known.items())
        _line(text, "You saw", seen)
    discard = state.get("discard", {})
    _line(
        text,
        "Discard",
        f"{cards_words(discard.get('treasures', {}))}; thieves {discard.get('thieves', 0)}, "
        f"sandstorms {discard.get('sandstorms', 0)}",
    )
    pending = state.get("pending") or {}
    if pending:
        _line(text, "Now", PENDING_WORDS.get(str(pending.get("kind")), str(pending.get("kind"))))
    if pending.get("kind") == "trade":
        _line(text, "Trade so far", trade_words(pending))
    if state.get("compulsory_selling"):
        _line(text, "Compulsory selling", "everyone passed: sell before the end")
    return text


def trade_words(pending: Mapping[str, Any]) -> str:
    """A trade in progress (the view's ``pending``, RULES.md E8): what is given and
    taken so far, each with its value in trade points, so nobody gives 5 cards for 2
    without seeing it."""
    give, take = pending.get("give") or {}, pending.get("take") or {}
    return (
        f"you give {cards_words(give)} (worth {pending.get('give_value', 0)}), "
        f"you take {cards_words(take)} (worth {pending.get('take_value', 0)})"
    )


def render_museum(
    state: Mapping[str, Any], names: Sequence[str], you: int | None, to_act: Sequence[int]
) -> RenderableType:
    """One row per seat: points, cards sold, hand size, tent uses, sold sets."""
    table = Table(box=None, padding=(0, 1), expand=False)
    for column in ("seat", "points", "sold", "hand", "tents"):
        table.add_column(column, justify="left" if column == "seat" else "right", no_wrap=True)
    table.add_column("sets in the museum", ratio=1, overflow="fold")
    for seat, entry in enumerate(state.get("seats", [])):
        label = seat_with_name(seat, names, you, to_act)
        sets = ", ".join(kind_count(s["count"], s["kind"]) for s in entry.get("sets", []))
        table.add_row(
            label,
            str(entry.get("points", 0)),
            str(entry.get("cards_sold", 0)),
            str(entry.get("hand_size", 0)),
            str(entry.get("tent_uses", 0)),
            sets or "-",
        )
    return table


class ExpeditionPanel(Panel):
    """The expedition as the seat sees it (hidden cards only as counts)."""

    TITLE = "Expedition"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """Hand, market, dig site, ruin, discard."""
        return render_expedition(state, self.you)


class MuseumPanel(Panel):
    """Every seat's sales and standing; ``<`` marks whose decision it is."""

    TITLE = "Museum"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The museum table."""
        return render_museum(state, names, self.you, self.to_act)


class ArchaeologyKit(TableKit):
    """The generic table with Archaeology's expedition and museum panels."""

    def board_panels(self) -> list[Panel]:
        """The expedition."""
        return [ExpeditionPanel(id="expedition")]

    def info_panels(self) -> list[Panel]:
        """The museum."""
        return [MuseumPanel(id="museum")]

    def decision_words(self, view: GameView, you: int | None, names: Sequence[str]) -> str:
        """Whose decision, and which one when a step is pending (a thief, a sandstorm...)."""
        words = super().decision_words(view, you, names)
        pending = view.state.get("pending") or {}
        if view.finished or not pending:
            return words
        kind = str(pending.get("kind"))
        who = (
            "You"
            if you in view.seats_to_act
            else ", ".join(seat_label(names, s) for s in view.seats_to_act)
        )
        return f"{who}: {PENDING_WORDS.get(kind, kind)}"
