"""Main action of Alchemy (5): acquire a technology (RULES.md §3.2, §4, D9, D10).

The seat pays the cocoa cost, then chooses a technology (task :class:`ChooseTechnology`):
one worker takes from the top row, unless that lone worker has power 4-5, which may take a
bottom-row technology but forfeits the power-up; two or more workers (an extra-worker
discovery effect counts, D9) take from either row. The seat pays the technology's gold and
places a marker; every other seat already marked there scores 3 VP; the seat advances once
on the column's temple (resolved fully), then powers up one worker on Alchemy. Technology
effects follow the power-ups (``main_action.AfterMainAction``, from the next turn on, D10).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from services.engine.domain.ruleset import RuleViolation

from .components import components
from .context import Context
from .flow import Action, task_rules
from .main_action import (
    effective_cost,
    pay_cocoa_cost,
    power_ups_then_technologies,
    use_extra_worker,
    workers_for_action,
)
from .state import GameState
from .tasks import BoardAction, Task, register_task
from .technologies import ROW_LENGTH, column_temple
from .temples import advance_temple
from .turn import MainAction, main_action, own_workers_on

ALCHEMY = 5
BOTTOM_ROW_LONE_POWER = 4
"""A single worker of at least this power may take a bottom-row technology (§3.2)."""
SHARED_MARKER_VP = 3
RULE = "RULES.md §3.2"


def technology_gold(state: GameState, slot: int) -> int:
    """Gold cost of the technology in board slot ``slot`` (components ``cost_gold``)."""
    return _technology_golds()[state.technologies[slot]]


@cache
def _technology_golds() -> tuple[int, ...]:
    """``cost_gold`` of every technology, by id (read at every Alchemy board action)."""
    return tuple(int(t["cost_gold"]) for t in components().raw["technologies"])


def is_bottom_row(slot: int) -> bool:
    """Slots 3-5 are the bottom row of the Alchemy board (§1.1.3)."""
    return slot >= ROW_LENGTH


def uses_lone_worker_exception(workers: int, slot: int) -> bool:
    """True when a single counted worker takes a bottom-row technology (no power-up, §3.2)."""
    return workers == 1 and is_bottom_row(slot)


def bottom_row_allowed(state: GameState, seat: int, workers: int) -> bool:
    """§3.2: two or more counted workers, or one worker of power 4-5 (the exception)."""
    if workers >= 2:
        return True
    powers = [state.players[seat].workers[w].power for w in own_workers_on(state, seat, ALCHEMY)]
    return len(powers) == 1 and powers[0] >= BOTTOM_ROW_LONE_POWER


def technology_choices(state: GameState, seat: int, workers: int) -> list[int]:
    """Slots ``seat`` may acquire with ``workers`` counted workers: a row it may take from,
    no marker of its own there, and its gold in hand."""
    player = state.players[seat]
    bottom = bottom_row_allowed(state, seat, workers)
    return [
        slot
        for slot in range(len(state.technologies))
        if (bottom or not is_bottom_row(slot))
        and slot not in player.technologies
        and player.gold >= technology_gold(state, slot)
    ]


# --- the main action ------------------------------------------------------------------


def _possible(state: GameState, seat: int, board: int, cost: int) -> bool:
    if state.players[seat].cocoa < effective_cost(state, seat, cost):
        return False
    return bool(technology_choices(state, seat, workers_for_action(state, seat, board)))


def _refusal(state: GameState, seat: int, board: int, cost: int) -> RuleViolation | None:
    if state.players[seat].cocoa < effective_cost(state, seat, cost):
        return RuleViolation("cost_not_payable", f"RULES.md §3: the main action costs {cost} cocoa")
    if not technology_choices(state, seat, workers_for_action(state, seat, board)):
        return RuleViolation(
            "no_technology_available",
            f"{RULE}: no technology you may take (row allowed by your workers, "
            "not already yours) whose gold you can pay; the main action can't be chosen",
        )
    return None


def _resolve(ctx: Context, task: BoardAction, cost: int) -> None:
    seat, board = task.seat, task.board
    pay_cocoa_cost(ctx, seat, cost, "main_action_cost")
    workers = workers_for_action(ctx.state, seat, board)
    use_extra_worker(ctx, seat, board)
    ctx.push(ChooseTechnology(seat=seat, workers=workers))


main_action(ALCHEMY)(MainAction(possible=_possible, resolve=_resolve, refusal=_refusal))


# --- choosing the technology ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChooseTechnology(Task):
    """Choose the technology acquired on Alchemy (§3.2); ``workers``: counted workers (D9).

    Action: ``{"type": "choose_technology", "slot": 0..5}`` (slot in ``state.technologies``).
    """

    workers: int


register_task(ChooseTechnology, "choose_technology")


def _technology_options(state: GameState, task: ChooseTechnology) -> list[Action]:
    return [
        {"type": "choose_technology", "slot": slot}
        for slot in technology_choices(state, task.seat, task.workers)
    ]


def _explain_technology(
    state: GameState, task: ChooseTechnology, action: Action
) -> RuleViolation | None:
    slot = action.get("slot")
    if not isinstance(slot, int) or not 0 <= slot < len(state.technologies):
        return RuleViolation(
            "unknown_technology", f"{RULE}: there is no technology in slot {slot!r} (0-5)"
        )
    player = state.players[task.seat]
    if slot in player.technologies:
        return RuleViolation(
            "technology_already_owned",
            f"{RULE}: you already have a marker on the technology in slot {slot}",
        )
    if is_bottom_row(slot) and not bottom_row_allowed(state, task.seat, task.workers):
        return RuleViolation(
            "technology_row_not_allowed",
            f"{RULE}: one worker takes from the top row only, unless its power is 4 or 5",
        )
    gold = technology_gold(state, slot)
    if player.gold < gold:
        return RuleViolation(
            "cost_not_payable", f"{RULE}: that technology costs {gold} gold, you have {player.gold}"
        )
    return None


@task_rules(
    ChooseTechnology,
    options=_technology_options,
    decision="a technology to acquire on Alchemy",
    rule=RULE,
    explain=_explain_technology,
)
def resolve_choose_technology(ctx: Context, task: ChooseTechnology, action: Action | None) -> None:
    """Pay the gold, place the marker, 3 VP to each seat already there, the column's
    temple step (fully resolved), then the power-up unless the lone-worker exception."""
    assert action is not None
    seat, slot = task.seat, int(action["slot"])
    ctx.emit("TechnologyAcquired", seat=seat, slot=slot, gold_paid=technology_gold(ctx.state, slot))
    for other, player in enumerate(ctx.state.players):
        if other != seat and slot in player.technologies:
            ctx.change_goods(other, "technology_marker_shared", vp=SHARED_MARKER_VP)
    follow_ups = advance_temple(ctx, seat, column_temple(slot))
    power_ups = 0 if uses_lone_worker_exception(task.workers, slot) else 1
    ctx.push(*follow_ups, *power_ups_then_technologies(seat, ALCHEMY, power_ups))
