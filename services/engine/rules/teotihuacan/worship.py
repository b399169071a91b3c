"""Worship on boards 2, 3, 4 and 7 (RULES.md §3, Worship; §7 advanced_worship).

The worker is locked on the worship space; another colour's worker there is displaced
to that board's general area (paying 1 cocoa, or gaining 1 with advanced worship).
The space's ability is a temple step: Forest red, Stone Quarry green, Gold Deposits blue,
Decorations a temple of the seat's choice.
"""

from __future__ import annotations

from .components import components
from .context import Context
from .flow import Action
from .state import GameState
from .tasks import BoardAction, TempleSteps
from .turn import register_worship

DISPLACE_COCOA = 1
WORSHIP_ABILITY_BOARDS = frozenset({2, 3, 4, 7})


def displacement_cost(state: GameState, task: BoardAction, space: int) -> int | None:
    """Cocoa change for the seat to take worship ``space`` (negative: pays), or None if barred.

    Empty space: 0. Another colour's worker: -1 (advanced worship: +1). The seat's own
    worker: barred (advanced worship: allowed, 0).
    """
    occupant = state.worship_occupant(task.board, space)
    if occupant is None:
        return 0
    if occupant[0] == task.seat:
        return 0 if state.options.advanced_worship else None
    return DISPLACE_COCOA if state.options.advanced_worship else -DISPLACE_COCOA


def _worship_options(state: GameState, task: BoardAction) -> list[Action]:
    board = components().board(task.board)
    if task.board not in WORSHIP_ABILITY_BOARDS:
        return []
    cocoa = state.players[task.seat].cocoa
    options: list[Action] = []
    for space in range(board.worship_spaces):
        change = displacement_cost(state, task, space)
        if change is None or cocoa + change < 0:
            continue
        options.append({"type": "worship", "space": space, "mode": "ability"})
    return options


def _resolve_worship(ctx: Context, task: BoardAction, action: Action) -> None:
    seat, space = task.seat, int(action["space"])
    change = displacement_cost(ctx.state, task, space)
    assert change is not None
    occupant = ctx.state.worship_occupant(task.board, space)
    ctx.change_goods(seat, "worship_displace", cocoa=change)
    if occupant is not None:
        ctx.emit("WorkerDisplaced", seat=occupant[0], worker=occupant[1], board=task.board)
    ctx.emit("WorkerLocked", seat=seat, worker=task.workers[0], board=task.board, space=space)
    temple = components().board(task.board).worship_temple or ""
    ctx.push(TempleSteps(seat=seat, temple=temple, count=1))


register_worship(_worship_options, _resolve_worship)
