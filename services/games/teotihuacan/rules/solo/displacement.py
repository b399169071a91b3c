"""The bot's locked worker when a human worships on its space (RULES.md §8).

Instead of going to the board's general area, it moves to the next EMPTY temple worship
space clockwise (Forest, Stone Quarry, Gold Deposits, Decorations; never the Palace),
without benefit. If none is empty it displaces the nearest clockwise human worker on a
temple worship space (that worker goes to its board's general area, unlocked) and takes
its place. The space being worshipped on is not a candidate: the human's worker is
about to be locked there.
"""

from __future__ import annotations

from ..context import Context
from .seat import HUMAN_SEAT, TEMPLE_WORSHIP_BOARDS


def relocate_bot_worker(ctx: Context, seat: int, worker: int, board: int) -> None:
    """Move the bot's ``worker`` away from ``board``'s worship space (see module doc)."""
    state = ctx.state
    start = state.position(board)
    clockwise = [state.board_at(start + k) for k in range(1, len(state.rondel))]
    temples = [b for b in clockwise if b in TEMPLE_WORSHIP_BOARDS and b != board]
    empty = [b for b in temples if state.worship_occupant(b, 0) is None]
    if empty:
        target = empty[0]
    else:
        target = next(b for b in temples if _human_there(ctx, b))
        occupant = state.worship_occupant(target, 0)
        assert occupant is not None
        ctx.emit("WorkerDisplaced", seat=occupant[0], worker=occupant[1], board=target)
    ctx.emit("TeotibotWorkerRelocated", seat=seat, worker=worker, from_board=board, to_board=target)


def _human_there(ctx: Context, board: int) -> bool:
    occupant = ctx.state.worship_occupant(board, 0)
    return occupant is not None and occupant[0] == HUMAN_SEAT
