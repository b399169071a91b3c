"""What every board's main action shares (RULES.md §3, §4, D9, D10).

Worker counts (with extra-worker effects, capped at 3), the cocoa cost (which a flipped
free-cocoa-payment discovery tile can skip), the power-ups that close the action (with
technology #13's paid extra power-up) and the technology effects that follow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .context import Context
from .flow import Action, no_choice, task_rules
from .power import eligible_workers
from .state import GameState
from .tasks import Task, power_ups_task, register_task, temple_steps_task
from .technologies import owns_technology
from .turn import own_workers_on

MAX_COUNTED_WORKERS: Final = 3
"""RULES.md D9."""

FREE_COCOA_PAYMENT: Final = "free_cocoa_payment"
EXTRA_WORKER: Final = "extra_worker"
EXTRA_WORKER_BOARDS: Final = frozenset({5, 6, 8})
CONSTRUCTION: Final = 8
EXTRA_POWER_UP_COCOA: Final = 1


def has_effect(state: GameState, seat: int, effect: str) -> bool:
    """True if ``seat`` flipped a discovery tile with ``effect`` this turn and hasn't used it."""
    return effect in state.players[seat].active_effects


def use_effect(ctx: Context, seat: int, effect: str) -> None:
    """Spend one active discovery effect of ``seat``."""
    ctx.emit("DiscoveryEffectUsed", seat=seat, effect=effect)


def workers_for_action(state: GameState, seat: int, board: int) -> int:
    """ "Your workers on the board" for a main action: own unlocked workers there, plus one
    for an active extra-worker tile (Alchemy, Nobles, Construction) and one for technology
    #15 on Construction; capped at 3 (RULES.md §3, §3.5, §4, D9)."""
    count = len(own_workers_on(state, seat, board))
    if board in EXTRA_WORKER_BOARDS and has_effect(state, seat, EXTRA_WORKER):
        count += 1
    if board == CONSTRUCTION and owns_technology(state, seat, "construction_extra_worker"):
        count += 1
    return min(count, MAX_COUNTED_WORKERS)


def effective_cost(state: GameState, seat: int, cost: int) -> int:
    """Cocoa the seat really pays for a main action or worship costing ``cost`` (§4)."""
    return 0 if cost and has_effect(state, seat, FREE_COCOA_PAYMENT) else cost


def pay_cocoa_cost(ctx: Context, seat: int, cost: int, reason: str) -> None:
    """Pay ``cost`` cocoa, or spend an active free-cocoa-payment tile instead (D11)."""
    if cost and has_effect(ctx.state, seat, FREE_COCOA_PAYMENT):
        use_effect(ctx, seat, FREE_COCOA_PAYMENT)
        return
    ctx.change_goods(seat, reason, cocoa=-cost)


def power_ups_then_technologies(seat: int, board: int, count: int) -> list[Task]:
    """The closing tasks of a main action: ``count`` power-ups on ``board``, technology
    #13's optional paid power-up, then the technology effects (§3.2: after power-ups)."""
    tasks: list[Task] = []
    if count:
        tasks.append(power_ups_task(seat, board, count))
    tasks.append(ExtraPowerUp(seat=seat, board=board))
    tasks.append(AfterMainAction(seat=seat, board=board))
    return tasks


@dataclass(frozen=True, slots=True)
class ExtraPowerUp(Task):
    """Technology #13: after the power-ups, pay 1 cocoa for one more (same board) or not."""

    board: int


register_task(ExtraPowerUp, "extra_power_up")


def _extra_power_up_options(state: GameState, task: ExtraPowerUp) -> list[Action]:
    if not owns_technology(state, task.seat, "extra_power_up"):
        return []
    if state.players[task.seat].cocoa < EXTRA_POWER_UP_COCOA:
        return []
    if not eligible_workers(state, task.seat, task.board):
        return []
    return [{"type": "extra_power_up", "pay": True}, {"type": "extra_power_up", "pay": False}]


@task_rules(
    ExtraPowerUp,
    options=_extra_power_up_options,
    decision="whether to pay 1 cocoa for technology #13's extra power-up",
    rule="RULES.md §3.2 (technology #13)",
)
def resolve_extra_power_up(ctx: Context, task: ExtraPowerUp, action: Action | None) -> None:
    """Pay 1 cocoa and power up once more on the same board, or decline."""
    assert action is not None
    if action["pay"]:
        ctx.change_goods(task.seat, "technology_extra_power_up", cocoa=-EXTRA_POWER_UP_COCOA)
        ctx.push(power_ups_task(task.seat, task.board, 1))


@dataclass(frozen=True, slots=True)
class AfterMainAction(Task):
    """Technology effects once the main action on ``board`` is fully resolved (§3.2, D10)."""

    board: int


register_task(AfterMainAction, "after_main_action")


HARVEST_BOARDS: Final = {2: "wood", 3: "stone", 4: "gold"}


@task_rules(
    AfterMainAction,
    options=no_choice,
    decision="technology effects",
    rule="RULES.md §3.2 (technology effects)",
)
def resolve_after_main_action(ctx: Context, task: AfterMainAction, action: Action | None) -> None:
    """Apply the seat's technologies that act after this board's main action."""
    seat, board = task.seat, task.board
    state = ctx.state

    def owns(effect: str) -> bool:
        return owns_technology(state, seat, effect)

    if board in HARVEST_BOARDS:
        if owns("harvest_extra_resource"):
            ctx.change_goods(seat, "technology_5", **{HARVEST_BOARDS[board]: 1})
        if owns("harvest_cocoa_vp"):
            ctx.change_goods(seat, "technology_7", cocoa=1, vp=1)
    elif board in (5, 6) and owns("alchemy_nobles_vp"):
        ctx.change_goods(seat, "technology_3", vp=3)
    elif board == 7 and owns("decoration_vp"):
        ctx.change_goods(seat, "technology_9", vp=4)
    elif board == CONSTRUCTION:
        if owns("construction_vp"):
            ctx.change_goods(seat, "technology_11", vp=3)
        if owns("construction_temple"):
            ctx.push(temple_steps_task(seat, "", 1))


def use_extra_worker(ctx: Context, seat: int, board: int) -> None:
    """Spend one active extra-worker discovery effect counted for this main action (§4).

    Call once a main action on Alchemy, Nobles or Construction has counted its workers with
    :func:`workers_for_action`, so the single-use tile is not counted again.
    """
    if board in EXTRA_WORKER_BOARDS and has_effect(ctx.state, seat, EXTRA_WORKER):
        use_effect(ctx, seat, EXTRA_WORKER)
