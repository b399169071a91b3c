"""Main action of Forest (2), Stone Quarry (3) and Gold Deposits (4): RULES.md §3.1."""

from __future__ import annotations

from .components import components
from .context import Context
from .flow import Action, task_rules
from .state import GameState
from .tasks import BoardAction, HarvestTechnologies, PowerUps, TempleSteps
from .technologies import owns_technology
from .turn import MainAction, main_action, own_workers_on

MAX_COUNTED_WORKERS = 3
"""RULES.md D9."""


def _possible(state: GameState, seat: int, board: int, cost: int) -> bool:
    return state.players[seat].cocoa >= cost


def _resolve(ctx: Context, task: BoardAction, cost: int) -> None:
    seat, board = task.seat, task.board
    ctx.change_goods(seat, "main_action_cost", cocoa=-cost)
    workers = own_workers_on(ctx.state, seat, board)
    powers = [ctx.state.players[seat].workers[w].power for w in workers]
    counted = min(len(workers), MAX_COUNTED_WORKERS)
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
        *([TempleSteps(seat=seat, temple="", count=temple_steps)] if temple_steps else []),
        PowerUps(seat=seat, board=board, count=power_ups),
        HarvestTechnologies(seat=seat, board=board),
    )


HARVEST = MainAction(possible=_possible, resolve=_resolve)
for _board in (2, 3, 4):
    main_action(_board)(HARVEST)


def _no_choice(state: GameState, task: HarvestTechnologies) -> None:
    return None


@task_rules(
    HarvestTechnologies,
    options=_no_choice,
    decision="harvest technologies",
    rule="RULES.md §3.2 (technology effects)",
)
def resolve_harvest_technologies(
    ctx: Context, task: HarvestTechnologies, action: Action | None
) -> None:
    """Technologies #5 and #7 after the harvest, power-ups included (RULES.md §3.2)."""
    resource = components().board(task.board).resource
    if resource and owns_technology(ctx.state, task.seat, "harvest_extra_resource"):
        ctx.change_goods(task.seat, "technology_harvest", **{resource: 1})
    if owns_technology(ctx.state, task.seat, "harvest_cocoa_vp"):
        ctx.change_goods(task.seat, "technology_harvest", cocoa=1, vp=1)
