"""Teotibot's action pyramid, dice and direction tiles (RULES.md §8, bot turn steps 1, 3, 4).

Positions: 1 at the top; 2, 3 in the middle row; 4, 5, 6 on the bottom row, left to right.
``GameState.teotibot_tiles[k]`` is the action tile at position k+1.

- Dice: the sum of two dice picks a position: 2-3 → 4; 4-5 → 2; 6-8 → 1; 9-10 → 3;
  11-12 → 6 (position 5 is never picked directly).
- Shift: the used tile leaves; the hole is filled from below following the top direction
  tile (left: 1←3, 2←5, 3←6; right: 1←2, 2←4, 3←5), repeated for the new hole; the last
  hole (on the bottom row) takes the set-aside tile; the used tile is set aside.
- Direction tiles: the top one is flipped (left ↔ right) and put under the other, so the
  direction sequence repeats every 4 turns.
"""

from __future__ import annotations

DICE_SIDES = 6
LEFT, RIGHT = "left", "right"
DIRECTIONS = (LEFT, RIGHT)

_POSITION_BY_SUM = {2: 4, 3: 4, 4: 2, 5: 2, 6: 1, 7: 1, 8: 1, 9: 3, 10: 3, 11: 6, 12: 6}
_FILL_FROM = {LEFT: {1: 3, 2: 5, 3: 6}, RIGHT: {1: 2, 2: 4, 3: 5}}
"""Per direction: hole position → the position below that slides into it."""


def position_for(total: int) -> int:
    """Action pyramid position (1-6) picked by a dice sum (2-12). Raises KeyError."""
    return _POSITION_BY_SUM[total]


def shift(
    tiles: tuple[str, ...], set_aside: str, position: int, direction: str
) -> tuple[tuple[str, ...], str, list[list[int]]]:
    """The pyramid after using the tile at ``position``.

    Returns:
        (new tiles by position, new set-aside tile, the slides as ``[from, to]`` pairs
        with ``[0, hole]`` for the set-aside tile coming in).
    """
    layout = list(tiles)
    used = layout[position - 1]
    hole = position
    moves: list[list[int]] = []
    fill = _FILL_FROM[direction]
    while hole in fill:
        source = fill[hole]
        layout[hole - 1] = layout[source - 1]
        moves.append([source, hole])
        hole = source
    layout[hole - 1] = set_aside
    moves.append([0, hole])
    return tuple(layout), used, moves


def flip(directions: tuple[str, ...]) -> tuple[str, ...]:
    """Flip the top direction tile and put it under the other."""
    top, *rest = directions
    return (*rest, RIGHT if top == LEFT else LEFT)
