"""The Avenue of the Dead and the Pyramid track (RULES.md §4, D4)."""

from __future__ import annotations

from .context import Context
from .discovery import ClaimDiscovery
from .tasks import Task

AVENUE_MAX = 9
PYRAMID_TRACK_MAX = 10


def advance_avenue(ctx: Context, seat: int) -> list[Task]:
    """One Avenue step (max 9, D4).

    Returns follow-up tasks (claiming a discovery tile on steps 3, 6 and 8, §4) for the
    caller to schedule before anything else.
    """
    step = ctx.state.players[seat].avenue
    if step >= AVENUE_MAX:
        return []
    ctx.emit("AvenueAdvanced", seat=seat, step=step + 1)
    tiles = ctx.state.avenue_discoveries
    if step + 1 < len(tiles) and tiles[step + 1]:
        return [ClaimDiscovery(seat=seat, where="avenue", step=step + 1)]
    return []


def advance_pyramid_track(ctx: Context, seat: int) -> None:
    """One Pyramid track step (max 10, D4)."""
    step = ctx.state.players[seat].pyramid
    if step < PYRAMID_TRACK_MAX:
        ctx.emit("PyramidTrackAdvanced", seat=seat, step=step + 1)
