"""Main action of Forest (2), Stone Quarry (3) and Gold Deposits (4): RULES.md §3.1."""

from __future__ import annotations

from .components import components
from .context import Context
from .main_action import (
    MAX_COUNTED_WORKERS,
    effective_cost,
    pay_cocoa_cost,
    power_ups_then_technologies,
    workers_for_action,
)
from .state import GameState
from .tasks import BoardAction, temple_steps_task
from .turn import MainAction, main_action, own_workers_on


def _possible(state: GameState, seat: int, board: int, cost: int) -> bool:
    return state.players[seat].cocoa >= effective_cost(state, seat, cost)


def _resolve(ctx: Context, task: BoardAction, cost: int) -> None:
    seat, board = task.seat, task.board
    pay_cocoa_cost(ctx, seat, cost, "main_action_cost")
    workers = own_workers_on(ctx.state, seat, board)
    powers = [ctx.state.players[seat].workers[w].power for w in workers]
    counted = workers_for_action(ctx.state, seat, board)
    cell = components().harvest_cell(components().board(board), counted, min(powers))
    ctx.change_goods(
        seat,
        "harvest",
        cocoa=cell.get("cocoa", 0),
        wood=cell.get("wood", 0),
        stone=cell.get("stone", 0),
        gold=cell.get("gold", 0),
        vp=cell.get("vp", 0),
    )
    temple_steps = cell.get("temple_any", 0)
    power_ups = 2 if counted >= MAX_COUNTED_WORKERS else 1
    ctx.push(
        *([temple_steps_task(seat, "", temple_steps)] if temple_steps else []),
        *power_ups_then_technologies(seat, board, power_ups),
    )


HARVEST = MainAction(possible=_possible, resolve=_resolve)
for _board in (2, 3, 4):
    main_action(_board)(HARVEST)
