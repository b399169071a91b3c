"""Main action of Nobles (6): build a building (RULES.md §3.3, D9, D13, D14).

The seat pays the cocoa cost and 2 wood, takes the next building from the row (they leave
in a fixed order, so only their count matters: ``state.buildings_taken``, which sets the
Avenue value) and puts it on the leftmost empty space of a Nobles row fixed by its counted
workers (D9: an extra-worker discovery effect counts, capped at 3). Spaces are tracked one
by one (``state.nobles_built``): in a solo game Teotibot may have built further right
(RULES.md §8), and the leftmost empty space is then not the row's count.

- 1 worker: the top row only;
- 2 workers: the middle row, or the top row if the middle is full;
- 3 workers: the bottom row; if it is full, "any row above": the seat chooses between the
  middle and the top row when both have room (the English rulebook's "one of the rows
  above"; D13 forces the row only where §3.3 names one).

It scores the covered space's VP, advances once on the Avenue (allowed at the top, max 9)
and powers up once (1-2 workers) or twice (3 workers). Not possible (no wood, no room in
the allowed rows, all 11 buildings gone) → the main action can't be chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.engine.domain.ruleset import RuleViolation

from .components import components
from .context import Context
from .evolve import Payload, handles
from .flow import Action, task_rules
from .frozen import replace, with_player
from .main_action import (
    MAX_COUNTED_WORKERS,
    effective_cost,
    pay_cocoa_cost,
    power_ups_then_technologies,
    use_extra_worker,
    workers_for_action,
)
from .state import GameState
from .tasks import BoardAction, Task, register_task
from .tracks import advance_avenue
from .turn import MainAction, main_action

NOBLES = 6
BUILDING_WOOD = 2
ROWS: tuple[str, ...] = ("top", "middle", "bottom")
RULE = "RULES.md §3.3"

ROWS_BY_WORKERS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: (("top",),),
    2: (("middle",), ("top",)),
    3: (("bottom",), ("middle", "top")),
}
"""Per counted workers, the rows to try in order; the first group with room is offered
(a group of two rows is a choice of the seat)."""


def building_count() -> int:
    """Buildings in the game (D14: 11)."""
    count: int = components().raw["buildings"]["count"]
    return count


def row_spaces(row: str) -> list[int]:
    """VP printed on the spaces of a Nobles row, left to right (components ``nobles_rows``)."""
    spaces: list[int] = components().raw["nobles_rows"][row]
    return spaces


def empty_spaces(state: GameState, row: str) -> list[int]:
    """Indices (0 = leftmost) of the empty spaces of ``row``, left to right."""
    built = state.nobles_built[ROWS.index(row)]
    return [space for space in range(len(row_spaces(row))) if space not in built]


def has_room(state: GameState, row: str) -> bool:
    """True if ``row`` has an empty space."""
    return len(state.nobles_built[ROWS.index(row)]) < len(row_spaces(row))


def leftmost_empty_space(state: GameState, row: str) -> int:
    """The space a seat builds on in ``row`` (§3.3). Raises IndexError if the row is full."""
    return empty_spaces(state, row)[0]


def building_rows(state: GameState, workers: int) -> list[str]:
    """Rows a building may go to with ``workers`` counted workers (§3.3, D13, D14);
    empty when no building is left or the allowed rows are full."""
    if state.buildings_taken >= building_count():
        return []
    for group in ROWS_BY_WORKERS[min(workers, MAX_COUNTED_WORKERS)]:
        rows = [row for row in group if has_room(state, row)]
        if rows:
            return rows
    return []


# --- the main action ------------------------------------------------------------------


def _possible(state: GameState, seat: int, board: int, cost: int) -> bool:
    return _refusal(state, seat, board, cost) is None


def _refusal(state: GameState, seat: int, board: int, cost: int) -> RuleViolation | None:
    player = state.players[seat]
    if player.cocoa < effective_cost(state, seat, cost):
        return RuleViolation("cost_not_payable", f"RULES.md §3: the main action costs {cost} cocoa")
    if player.wood < BUILDING_WOOD:
        return RuleViolation(
            "cost_not_payable",
            f"{RULE}: a building costs {BUILDING_WOOD} wood, you have {player.wood}",
        )
    if state.buildings_taken >= building_count():
        return RuleViolation(
            "no_building_left",
            f"RULES.md D14: all {building_count()} buildings are placed; Nobles is closed",
        )
    if not building_rows(state, workers_for_action(state, seat, board)):
        return RuleViolation(
            "no_building_space",
            f"{RULE}: the rows your workers allow are full; the main action can't be chosen",
        )
    return None


def _resolve(ctx: Context, task: BoardAction, cost: int) -> None:
    seat, board = task.seat, task.board
    pay_cocoa_cost(ctx, seat, cost, "main_action_cost")
    workers = workers_for_action(ctx.state, seat, board)
    use_extra_worker(ctx, seat, board)
    ctx.change_goods(seat, "nobles_building", wood=-BUILDING_WOOD)
    ctx.push(ChooseBuildingRow(seat=seat, workers=workers))


main_action(NOBLES)(MainAction(possible=_possible, resolve=_resolve, refusal=_refusal))


# --- placing the building ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChooseBuildingRow(Task):
    """Place the building on a Nobles row (§3.3); ``workers``: counted workers (D9).

    Action: ``{"type": "build", "row": "top" | "middle" | "bottom"}``; a real choice only
    for 3 workers with the bottom row full (middle or top), otherwise applied at once.
    """

    workers: int


register_task(ChooseBuildingRow, "choose_building_row")


def _row_options(state: GameState, task: ChooseBuildingRow) -> list[Action]:
    return [{"type": "build", "row": row} for row in building_rows(state, task.workers)]


@task_rules(
    ChooseBuildingRow,
    options=_row_options,
    decision="the Nobles row for the building",
    rule=RULE,
)
def resolve_building_row(ctx: Context, task: ChooseBuildingRow, action: Action | None) -> None:
    """Build on the row's leftmost empty space, score it, Avenue +1, then the power-ups."""
    assert action is not None
    seat, row = task.seat, str(action["row"])
    space = leftmost_empty_space(ctx.state, row)
    ctx.emit("BuildingBuilt", seat=seat, row=row, space=space, vp=row_spaces(row)[space])
    follow_ups = advance_avenue(ctx, seat)
    power_ups = 2 if task.workers >= MAX_COUNTED_WORKERS else 1
    ctx.push(*follow_ups, *power_ups_then_technologies(seat, NOBLES, power_ups))


@handles("BuildingBuilt")
def _building_built(state: GameState, payload: Payload) -> GameState:
    """One more building (leaving the row of buildings) on ``space`` of ``row``; the seat
    scores ``vp``."""
    index = ROWS.index(payload["row"])
    rows = list(state.nobles_rows)
    rows[index] += 1
    built = list(state.nobles_built)
    built[index] = tuple(sorted((*built[index], int(payload["space"]))))
    player = state.players[payload["seat"]]
    state = with_player(state, payload["seat"], replace(player, vp=player.vp + payload["vp"]))
    return replace(
        state,
        nobles_rows=(rows[0], rows[1], rows[2]),
        nobles_built=tuple(built),
        buildings_taken=state.buildings_taken + 1,
    )
