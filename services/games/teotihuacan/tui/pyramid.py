"""The pyramid: its 8x8 grid of icons with the level on top, decorations, the offers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from services.games.teotihuacan.rules import pyramid
from services.games.teotihuacan.tui.words import decoration_icons, pyramid_icons
from services.tui.widgets.common import Panel

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


Placement = tuple[int, int, int, int, int]
"""(level, row, column, tile id, rotation), as in ``pyramid_tiles`` and the place action."""

PREVIEW_STYLE = "on yellow"


def placement_of(action: Mapping[str, Any]) -> Placement | None:
    """The tile a ``place_pyramid_tile`` action would place; None for any other action."""
    if action.get("type") != "place_pyramid_tile":
        return None
    level, row, col = int(action["level"]), int(action["row"]), int(action["col"])
    return level, row, col, int(action["tile"]), int(action["rotation"])


def render_grid(state: Mapping[str, Any], preview: Placement | None = None) -> Text:
    """Each square as icon + level, e.g. ``b1`` (level-1 tile), ``R2`` (coloured, level 2).

    ``preview``: a tile the person is about to place, drawn in place on a yellow ground.
    """
    placed = [tuple(p) for p in state.get("pyramid_tiles", [])]
    if preview is not None:
        placed.append(preview)
    icons = pyramid.visible_grid(placed)
    levels = levels_grid(placed)
    under = set(pyramid.covered_squares(*preview[:3])) if preview is not None else set()
    text = Text()
    for r in range(pyramid.GRID_SIZE):
        for c in range(pyramid.GRID_SIZE):
            square = icon_text(icons[r][c])
            level = levels[r][c]
            square.append(str(level) if level else " ", style="dim" if level else "")
            if (r, c) in under:
                square.stylize(PREVIEW_STYLE)
            text.append_text(square)
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


def render_pyramid(state: Mapping[str, Any], preview: Placement | None = None) -> RenderableType:
    """Grid (with ``preview`` drawn in, see :func:`render_grid`), decorations per side,
    pyramid tile and decoration offers."""
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
    if preview is not None:
        legend.append("; yellow: the highlighted choice", style="dim")
    layout = Table.grid(padding=(0, 2))
    layout.add_column(no_wrap=True)
    layout.add_column()
    layout.add_row(render_grid(state, preview), Group(offer, decor, decorations, legend))
    return layout


class PyramidPanel(Panel):
    """The pyramid grid and its offers; previews the highlighted pyramid tile choice."""

    TITLE = "Pyramid"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._state: Mapping[str, Any] = {}
        self._names: Sequence[str] = ()
        self.preview: Placement | None = None

    def show(self, state: Mapping[str, Any], names: Sequence[str]) -> None:
        """Re-render from a new projection (a new decision: no preview until highlighted)."""
        self._state, self._names, self.preview = state, names, None
        super().show(state, names)

    def show_preview(self, preview: Placement | None) -> None:
        """Draw ``preview`` into the grid (None: the pyramid as it is)."""
        if preview != self.preview:
            self.preview = preview
            self.update(self.render_state(self._state, self._names))

    def render_state(self, state: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The pyramid."""
        return render_pyramid(state, self.preview)
