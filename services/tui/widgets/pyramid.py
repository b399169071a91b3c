"""The pyramid: its 8x8 grid of icons with the level on top, decorations, the offers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from services.engine.rules.teotihuacan import pyramid
from services.tui.widgets.common import Panel
from services.tui.words import decoration_icons, pyramid_icons

ICON_STYLE = {"b": "blue", "r": "red", "g": "green"}
SIDES = ("top", "left", "right", "bottom")


def icon_text(icon: str) -> Text:
    """An icon letter in its family's colour; coloured (upper case) icons in bold."""
    if icon == pyramid.BLANK:
        return Text("·", style="dim")
    style = ICON_STYLE.get(icon.lower(), "")
    return Text(icon, style=f"bold reverse {style}" if icon.isupper() else style)


def levels_grid(placed: Sequence[Sequence[int]]) -> list[list[int]]:
    """The level of the highest tile on each square (0: the printed board)."""
    grid = [[0] * pyramid.GRID_SIZE for _ in range(pyramid.GRID_SIZE)]
    for level, row, col, _tile, _rotation in sorted(tuple(p) for p in placed):
        for r, c in pyramid.covered_squares(level, row, col):
            grid[r][c] = level
    return grid


def render_grid(state: Mapping[str, Any]) -> Text:
    """Each square as icon + level, e.g. ``b1`` (level-1 tile), ``R2`` (coloured, level 2)."""
    placed = [tuple(p) for p in state.get("pyramid_tiles", [])]
    icons = pyramid.visible_grid(placed)
    levels = levels_grid(placed)
    text = Text()
    for r in range(pyramid.GRID_SIZE):
        for c in range(pyramid.GRID_SIZE):
            text.append_text(icon_text(icons[r][c]))
            level = levels[r][c]
            text.append(str(level) if level else " ", style="dim" if level else "")
            text.append(" ")
        text.append("\n")
    text.rstrip()
    return text


def render_tile(icons: str) -> Text:
    """A tile's icons (TL TR BR BL, or a decoration's two)."""
    text = Text("[")
    for icon in icons:
        text.append_text(icon_text(icon))
    text.append("]")
    return text


def render_pyramid(state: Mapping[str, Any]) -> RenderableType:
    """Grid, decorations per side, pyramid tile and decoration offers."""
    decorations = Text.assemble(("Decorations per side (of 4):\n", "bold"))
    placed: list[Sequence[Any]] = state.get("decorations", [])
    for side in SIDES:
        tiles = [int(t) for s, _step, t in sorted(tuple(p) for p in placed) if s == side]
        decorations.append(f" {side} {len(tiles)}")
        for tile in tiles:
            decorations.append_text(render_tile(decoration_icons(tile)))
    offer = Text.assemble(("Pyramid tile offer:\n ", "bold"))
    for tile in state.get("pyramid_offer", []):
        offer.append_text(render_tile(pyramid_icons(tile)))
        offer.append(f"#{tile} ")
    offer.append(f"(bag {state.get('pyramid_supply_size', '?')})", style="dim")
    decor = Text.assemble(("Decoration offer:\n ", "bold"))
    for tile in state.get("decoration_offer", []):
        decor.append_text(render_tile(decoration_icons(tile)))
        decor.append(f"#{tile} ")
    legend = Text("icon letter (reversed: coloured) + level on top", style="dim")
    layout = Table.grid(padding=(0, 2))
    layout.add_column(no_wrap=True)
    layout.add_column()
    layout.add_row(render_grid(state), Group(offer, decor, decorations, legend))
    return layout


class PyramidPanel(Panel):
    """The pyramid grid and its offers."""

    TITLE = "Pyramid"

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The pyramid."""
        return render_pyramid(state)
