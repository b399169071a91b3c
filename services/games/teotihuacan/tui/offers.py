"""Offers on the boards: technologies (Alchemy), royal tiles (Palace), Nobles buildings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from services.games.teotihuacan.rules.components import TEMPLES
from services.games.teotihuacan.tui.words import (
    TEMPLE_STYLE,
    discovery_words,
    royal_words,
    technology_words,
    temple_bonus_words,
)
from services.tui.widgets.common import Panel, seat_mark

ROWS = ("top", "middle", "bottom")


def render_offers(state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
    """Technologies with their owners, royal tiles, buildings on Nobles."""
    tech = Text.assemble(("Technologies (columns advance blue / red / green):\n", "bold"))
    for slot, tile in enumerate(state.get("technologies", [])):
        temple = TEMPLES[slot % 3]
        tech.append(f" {'top' if slot < 3 else 'bot'} ", style="dim")
        tech.append(f"{temple[0]} ", style=TEMPLE_STYLE[temple])
        owners = [s for s, p in enumerate(state["players"]) if slot in p.get("technologies", [])]
        for seat in owners:
            tech.append_text(seat_mark(seat, len(names)))
        tech.append(" " * (3 - len(owners)) if len(owners) < 3 else " ")
        tech.append(technology_words(tile) + "\n")
    royal = Text.assemble(("Royal tiles (Palace worship spaces):\n", "bold"))
    for space, tile in enumerate(state.get("royal_tiles", [])):
        royal.append(f" {space}: {royal_words(tile)}\n")
    rows: list[int] = state.get("nobles_rows", [0, 0, 0])
    nobles = Text(
        "Nobles buildings: "
        + ", ".join(f"{name} {count}" for name, count in zip(ROWS, rows, strict=False))
        + f"  (taken {state.get('buildings_taken', 0)}/11)",
        style="bold",
    )
    bonus = Text.assemble(("Temple bonus tiles (penultimate or top step at game end):\n", "bold"))
    for index, temple in enumerate(TEMPLES):
        tiles: list[int] = state.get("temple_bonus", [])
        if index < len(tiles):
            bonus.append(f" {temple}: ", style=TEMPLE_STYLE[temple])
            bonus.append(temple_bonus_words(tiles[index]) + "\n")
    tech.rstrip()
    royal.rstrip()
    bonus.rstrip()
    return Group(tech, royal, nobles, bonus)


def render_discoveries(state: Mapping[str, Any]) -> Text:
    """Discovery tiles waiting on temple major steps and Avenue steps."""
    text = Text()
    for index, temple in enumerate(TEMPLES):
        per_step = state.get("temple_discoveries", [])
        if index < len(per_step):
            for step, tiles in enumerate(per_step[index]):
                if tiles:
                    text.append(f" {temple} step {step}: ", style=TEMPLE_STYLE[temple])
                    text.append(", ".join(discovery_words(t) for t in tiles) + "\n")
    for step, tiles in enumerate(state.get("avenue_discoveries", [])):
        if tiles:
            text.append(f" Avenue step {step}: ")
            text.append(", ".join(discovery_words(t) for t in tiles) + "\n")
    text.rstrip()
    return text


class OffersPanel(Panel):
    """Technologies, royal tiles and the Nobles board."""

    TITLE = "Offers"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The offers."""
        return render_offers(state, names)


class DiscoveriesPanel(Panel):
    """Discovery tiles on temple major steps and Avenue steps."""

    TITLE = "Discovery tiles on the tracks"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The tiles per step."""
        return render_discoveries(state)
