"""Pyramid geometry (RULES.md §3.5, D3; components ``pyramid``). Pure functions, no state changes.

The model, as read from ``components.json`` and checked against the English rulebook:

* **Grid.** ``pyramid.grid`` is the 8x8 grid of squares printed under the pyramid, row 0 at
  the top, column 0 at the left. Each square shows an icon of the blue, red or green family
  (``b``/``r``/``g``) or nothing (``-``). Printed icons are never coloured.
* **Levels and slots.** Level L (1-4) has a ``size x size`` grid of slots (4, 3, 2, 1). A tile
  in slot (L, r, c) covers the 2x2 squares rows ``2r+L-1 .. 2r+L``, columns ``2c+L-1 .. 2c+L``
  (``pyramid.geometry``). So level 1 tiles the whole grid, level 2 sits over the crossing
  of four level-1 tiles, and so on; a slot at level L>1 needs the four level L-1 slots
  (r,c), (r,c+1), (r+1,c), (r+1,c+1) filled. ``GameState.pyramid_tiles`` holds the placed
  tiles as ``(level, row, col, tile, rotation)``; setup pre-fills ``pyramid.setup_slots``.
* **Tiles.** ``pyramid.tiles[id]`` is 4 characters, the quadrants in the order
  ``[TL, TR, BR, BL]``. Lowercase = an ordinary icon of that family, UPPERCASE = the same
  family's icon printed in its colour, ``-`` = blank. The rulebook: "For each icon covered by
  an icon of the same type ... score 1"; "If you scored 1 for an icon that is red, green,
  or blue on the newly placed tile (the color of the icon that is being covered does not
  matter), also advance one step on the corresponding temple". So icons match by family
  (case-insensitively), and a match whose *new* icon is uppercase also gives one step on
  that colour's temple. Blank squares never match (D3).
* **Rotation.** A rotation k (0-3) is k clockwise quarter turns; one turn maps the
  quadrants ``[TL, TR, BR, BL]`` to ``[BL, TL, TR, BR]`` (``pyramid.rotation``): the rotated
  string is the last k characters followed by the rest.
* **What is visible.** The icon seen on a square is the printed one, covered by the tile of
  the highest level over it (a higher tile is always placed later, since it needs the four
  under it). Decorations sit on the pyramid's sides and never lie under a later pyramid
  tile, so they are not part of the visible grid (see ``decorations.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from .components import components
from .last_call import remember_last

GRID_SIZE = 8
TOP_LEVEL = 4
ROTATIONS = 4
BLANK = "-"
ICON_TEMPLES: dict[str, str] = {"b": "blue", "r": "red", "g": "green"}
"""Icon family letter -> the temple of its colour."""

Slot = tuple[int, int, int]
"""(level, row, col)."""
Square = tuple[int, int]
"""(row, col) of the 8x8 grid."""
PlacedTile = tuple[int, int, int, int, int]
"""(level, row, col, tile id, rotation), as in ``GameState.pyramid_tiles``."""


def _table() -> dict[str, Any]:
    table: dict[str, Any] = components().raw["pyramid"]
    return table


def level_size(level: int) -> int:
    """Slots per row/column at ``level`` (1-4)."""
    return int(_table()["levels"][level - 1]["size"])


def level_cost(level: int) -> dict[str, int]:
    """Resources a tile at ``level`` costs, e.g. ``{"stone": 2, "wood": 1}``."""
    return dict(_table()["levels"][level - 1]["cost"])


def level_vp(level: int) -> int:
    """VP for placing a tile at ``level``."""
    return int(_table()["levels"][level - 1]["vp"])


def tile_icons(tile: int, rotation: int = 0) -> str:
    """Quadrants ``[TL, TR, BR, BL]`` of pyramid tile ``tile`` after ``rotation`` turns."""
    return rotate(str(_table()["tiles"][tile]), rotation)


def tile_count() -> int:
    """Number of pyramid tiles in the game."""
    return len(_table()["tiles"])


def rotate(icons: str, rotation: int) -> str:
    """``icons`` ([TL, TR, BR, BL]) turned ``rotation`` clockwise quarter turns."""
    k = rotation % ROTATIONS
    return icons[ROTATIONS - k :] + icons[: ROTATIONS - k]


def distinct_rotations(tile: int) -> list[int]:
    """Rotations giving different faces of ``tile`` (the lowest k of each face).

    A blank tile has one face; a tile whose face repeats after a half turn has two.
    """
    return list(_distinct_rotations(tile))


@cache
def _distinct_rotations(tile: int) -> tuple[int, ...]:
    # Fixed per tile and asked for every offered tile at every Construction decision.
    seen: dict[str, int] = {}
    for k in range(ROTATIONS):
        seen.setdefault(tile_icons(tile, k), k)
    return tuple(sorted(seen.values()))


def is_slot(level: int, row: int, col: int) -> bool:
    """True if (level, row, col) names a slot of the pyramid."""
    if not 1 <= level <= TOP_LEVEL:
        return False
    size = level_size(level)
    return 0 <= row < size and 0 <= col < size


def all_slots() -> list[Slot]:
    """Every slot, level by level, row by row."""
    return list(_all_slots())


@cache
def _all_slots() -> tuple[Slot, ...]:
    return tuple(
        (level, row, col)
        for level in range(1, TOP_LEVEL + 1)
        for row in range(level_size(level))
        for col in range(level_size(level))
    )


def covered_squares(level: int, row: int, col: int) -> tuple[Square, Square, Square, Square]:
    """Grid squares under slot (level, row, col), in quadrant order TL, TR, BR, BL."""
    top, left = 2 * row + level - 1, 2 * col + level - 1
    return (top, left), (top, left + 1), (top + 1, left + 1), (top + 1, left)


def supports(level: int, row: int, col: int) -> list[Slot]:
    """The four level L-1 slots a level L>1 slot rests on (none for level 1)."""
    if level == 1:
        return []
    below = level - 1
    return [(below, row + dr, col + dc) for dr in (0, 1) for dc in (0, 1)]


def occupied(placed: Iterable[PlacedTile]) -> frozenset[Slot]:
    """Slots holding a tile."""
    return _occupied_of_same(tuple(placed))


@lru_cache(maxsize=256)
def _occupied(placed: tuple[PlacedTile, ...]) -> frozenset[Slot]:
    # The placed tiles change only on Construction, but are read at many decisions.
    return frozenset((level, row, col) for level, row, col, _, _ in placed)


def slot_problem(placed: Iterable[PlacedTile], level: int, row: int, col: int) -> str | None:
    """Why (level, row, col) is not a legal slot now, or None if it is.

    Returns one of ``"no_such_slot"``, ``"slot_occupied"``, ``"slot_not_supported"``.
    """
    if not is_slot(level, row, col):
        return "no_such_slot"
    filled = occupied(placed)
    if (level, row, col) in filled:
        return "slot_occupied"
    if any(support not in filled for support in supports(level, row, col)):
        return "slot_not_supported"
    return None


def legal_slots(placed: Iterable[PlacedTile]) -> list[Slot]:
    """Empty slots whose supports are all filled, level by level, row by row."""
    return list(_legal_slots_of_same(tuple(placed)))


@lru_cache(maxsize=256)
def _legal_slots(placed: tuple[PlacedTile, ...]) -> tuple[Slot, ...]:
    # Asked at every Construction decision (and to check the main action is possible)
    # while the pyramid itself changes rarely: computed once per pyramid.
    # slot_problem(placed, *slot) is None, for slots known to exist (asked once per pyramid,
    # but every construction makes a new one).
    filled = _occupied(placed)
    return tuple(
        slot
        for slot in _all_slots()
        if slot not in filled and all(support in filled for support in supports(*slot))
    )


_occupied_of_same = remember_last(_occupied)
_legal_slots_of_same = remember_last(_legal_slots)


def is_complete(placed: Iterable[PlacedTile]) -> bool:
    """True once the level-4 tile is placed (RULES.md §3.5, §6.1)."""
    return any(level == TOP_LEVEL for level, _, _, _, _ in placed)


def printed_grid() -> tuple[str, ...]:
    """The 8 printed rows of the grid (``b``/``r``/``g``/``-``)."""
    return tuple(_table()["grid"])


def visible_grid(placed: Iterable[PlacedTile]) -> list[list[str]]:
    """The icon seen on every square: printed icons covered by placed tiles, higher on top."""
    grid = [list(row) for row in printed_grid()]
    for level, row, col, tile, rotation in sorted(placed):
        icons = tile_icons(tile, rotation)
        for (r, c), icon in zip(covered_squares(level, row, col), icons, strict=True):
            grid[r][c] = icon
    return grid


def icons_under(placed: Iterable[PlacedTile], level: int, row: int, col: int) -> str:
    """Visible icons under slot (level, row, col), quadrant order TL, TR, BR, BL."""
    grid = visible_grid(placed)
    return "".join(grid[r][c] for r, c in covered_squares(level, row, col))


@dataclass(frozen=True, slots=True)
class Matches:
    """Result of comparing new icons with covered ones (RULES.md §3.4, §3.5, D3).

    Attributes:
        count: covered icons matched by the same family on the new tile (+1 VP each).
        temples: for each match whose new icon is coloured, that colour's temple, in
            position order.
    """

    count: int
    temples: tuple[str, ...]


def match_icons(covered: str, new: str) -> Matches:
    """Compare icons position by position; blanks never match (D3)."""
    count = 0
    temples: list[str] = []
    for under, over in zip(covered, new, strict=True):
        if under == BLANK or over == BLANK or under.lower() != over.lower():
            continue
        count += 1
        if over.isupper():
            temples.append(ICON_TEMPLES[over.lower()])
    return Matches(count=count, temples=tuple(temples))


def placement_matches(
    placed: Iterable[PlacedTile], tile: int, level: int, row: int, col: int, rotation: int
) -> Matches:
    """Matches of ``tile`` turned ``rotation`` times placed in slot (level, row, col)."""
    return match_icons(icons_under(placed, level, row, col), tile_icons(tile, rotation))
