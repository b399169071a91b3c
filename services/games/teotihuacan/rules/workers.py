"""Every worker value the game can reach, built once at import.

A :class:`~.state.Worker` is an immutable (board, power, locked, space): 9 boards (the
waiting 4th die's 0 included) x 5 powers x (unlocked, or locked on one of a board's
worship spaces), 225 values in all. Folding builds one for nearly every worker event,
and a frozen slotted dataclass's ``__init__`` sets each field through
``object.__setattr__`` (about 5 times this table's lookup), so the fold takes the shared
value instead: equal to a new one, and immutable, so nothing can tell
(services/games/teotihuacan/tests/test_derived_tables.py).
"""

from __future__ import annotations

from typing import Final

from .components import BOARD_COUNT, MAX_POWER
from .state import NOT_IN_PLAY, Worker

WORSHIP_SPACES: Final = 4
"""Worship space indices kept in the table (0..3; a board has at most 3, RULES.md §3)."""

_TABLE: Final[dict[tuple[int, int, bool, int], Worker]] = {
    (board, power, locked, space): Worker(board, power, locked, space)
    for board in range(NOT_IN_PLAY, BOARD_COUNT + 1)
    for power in range(1, MAX_POWER + 1)
    for locked, spaces in ((False, (-1,)), (True, tuple(range(WORSHIP_SPACES))))
    for space in spaces
}


def worker(board: int, power: int, locked: bool = False, space: int = -1) -> Worker:
    """``Worker(board, power, locked, space)``, the shared value when the table holds it
    (any value outside it, e.g. from a corrupt event, is built as before)."""
    found = _TABLE.get((board, power, locked, space))
    return found if found is not None else Worker(board, power, locked, space)
