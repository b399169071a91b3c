"""Decorations (7) main action: decorate a side of the Pyramid (RULES.md §3.4, D3, D4).

How the ``decorations`` data is read:

* A decoration tile (``decorations.tiles[id]``) shows two icons, e.g. ``"BR"``; as on pyramid
  tiles, UPPERCASE = coloured icon of that family, ``-`` = blank (see ``pyramid.py``).
* Each side (left, top, right, bottom) has steps 1-4, filled from the bottom up
  (``GameState.decorations`` holds ``(side, step, tile)``). Step 1 covers the two icons
  printed at the pyramid's edge (``step1_icons``). Step k>1 covers the two grid squares
  ``covers[k]`` (their visible icons, i.e. the pyramid tiles now on them) and needs a
  decoration on step k-1 of that side and the pyramid tiles ``needs[k]`` (``[level, [row,
  col]]``). So the only candidate on a side is the step above its highest decoration.
* The tile is laid with its arrow towards the pyramid's centre, so it is never rotated; on
  sides with ``tile_reversed`` its two icons meet the covered icons in reverse order.

The action::

    {"type": "place_decoration", "tile": 4, "side": "left", "step": 2}

one per offered tile x legal space. Pay 3 gold minus 1 per additional own worker on the
board (min 1), with the main action's cocoa, before the choice; score 3 VP, Pyramid track +1,
+1 VP per covered icon matched by the same family; one temple step per match whose new icon is
coloured (two steps: the seat picks the order, each resolved fully); power up one worker on
the board; refill the offer (random draw recorded in ``DecorationOfferRefilled``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.engine.domain.ruleset import RuleViolation

from . import pyramid
from .components import components
from .context import Context
from .evolve import Payload, handles
from .flow import Action, no_choice, task_rules
from .frozen import replace, without
from .main_action import (
    effective_cost,
    pay_cocoa_cost,
    power_ups_then_technologies,
    workers_for_action,
)
from .matched_icons import matched_icon_steps
from .state import GameState
from .tasks import BoardAction, PowerUps, Task, register_task
from .tracks import advance_pyramid_track
from .turn import MainAction, main_action

DECORATIONS = 7
RULE = "RULES.md §3.4"
SIDES = ("left", "top", "right", "bottom")
TOP_STEP = 4
GOLD_COST = 3
MIN_GOLD_COST = 1
DECORATION_VP = 3


def _table() -> dict[str, Any]:
    table: dict[str, Any] = components().raw["decorations"]
    return table


def gold_cost(workers: int) -> int:
    """3 gold minus 1 per additional own worker on the board, at least 1 (§3.4)."""
    return max(MIN_GOLD_COST, GOLD_COST - (workers - 1))


def next_step(state: GameState, side: str) -> int:
    """The step a new decoration on ``side`` would take (5: the side is full)."""
    steps = [step for s, step, _ in state.decorations if s == side]
    return max(steps, default=0) + 1


def space_problem(state: GameState, side: str, step: int) -> str | None:
    """Why step ``step`` of ``side`` can't take a decoration now, or None if it can.

    Returns ``"no_such_space"``, ``"space_taken"``, ``"lower_step_empty"`` or
    ``"pyramid_tiles_missing"``.
    """
    if side not in SIDES or not 1 <= step <= TOP_STEP:
        return "no_such_space"
    following = next_step(state, side)
    if step < following:
        return "space_taken"
    if step > following:
        return "lower_step_empty"
    filled = pyramid.occupied(state.pyramid_tiles)
    needs = _table()["sides"][side]["needs"].get(str(step), [])
    if any((level, row, col) not in filled for level, (row, col) in needs):
        return "pyramid_tiles_missing"
    return None


def legal_spaces(state: GameState) -> list[tuple[str, int]]:
    """(side, step) spaces that can take a decoration now, in side order."""
    spaces = [(side, next_step(state, side)) for side in SIDES]
    return [(side, step) for side, step in spaces if space_problem(state, side, step) is None]


def covered_icons(state: GameState, side: str, step: int) -> str:
    """The two icons a decoration on (side, step) covers, in the data's order."""
    data = _table()["sides"][side]
    if step == 1:
        return str(data["step1_icons"])
    grid = pyramid.visible_grid(state.pyramid_tiles)
    return "".join(grid[row][col] for row, col in data["covers"][str(step)])


def decoration_icons(tile: int, side: str) -> str:
    """Icons of decoration ``tile`` as laid on ``side`` (reversed where ``tile_reversed``)."""
    icons = str(_table()["tiles"][tile])
    return icons[::-1] if _table()["sides"][side]["tile_reversed"] else icons


def decoration_matches(state: GameState, tile: int, side: str, step: int) -> pyramid.Matches:
    """Matches of ``tile`` placed on (side, step) (D3: blanks never match)."""
    return pyramid.match_icons(covered_icons(state, side, step), decoration_icons(tile, side))


# --- the main action -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecorationChoice(Task):
    """Choose an offered decoration tile and a legal space for it."""


register_task(DecorationChoice, "decoration_choice")


@dataclass(frozen=True, slots=True)
class RefillDecorationOffer(Task):
    """Draw decoration tiles from the bag until the offer is full (or the bag empty)."""


register_task(RefillDecorationOffer, "refill_decoration_offer")


def _possible(state: GameState, seat: int, board: int, cost: int) -> bool:
    player = state.players[seat]
    if player.cocoa < effective_cost(state, seat, cost):
        return False
    if player.gold < gold_cost(workers_for_action(state, seat, board)):
        return False
    return bool(state.decoration_offer) and bool(legal_spaces(state))


def _resolve(ctx: Context, task: BoardAction, cost: int) -> None:
    seat = task.seat
    pay_cocoa_cost(ctx, seat, cost, "main_action_cost")
    gold = gold_cost(workers_for_action(ctx.state, seat, DECORATIONS))
    ctx.change_goods(seat, "decoration_cost", gold=-gold)
    ctx.push(
        DecorationChoice(seat=seat),
        PowerUps(seat=seat, board=DECORATIONS, count=1),
        RefillDecorationOffer(seat=seat),
        *power_ups_then_technologies(seat, DECORATIONS, 0),
    )


main_action(DECORATIONS)(MainAction(possible=_possible, resolve=_resolve))


def _choice_options(state: GameState, task: DecorationChoice) -> list[Action]:
    return [
        {"type": "place_decoration", "tile": tile, "side": side, "step": step}
        for tile in state.decoration_offer
        for side, step in legal_spaces(state)
    ]


_PROBLEM_TEXT = {
    "no_such_space": "the pyramid has no such decoration space (sides {sides}, steps 1-4)",
    "space_taken": "that decoration space already holds a decoration",
    "lower_step_empty": "a decoration needs one on the step below it on the same side",
    "pyramid_tiles_missing": "the pyramid tiles under that decoration space are not all placed",
}


def _explain_choice(
    state: GameState, task: DecorationChoice, action: Action
) -> RuleViolation | None:
    if action.get("type") != "place_decoration":
        return None
    tile = action.get("tile")
    if not isinstance(tile, int) or tile not in state.decoration_offer:
        return RuleViolation(
            "tile_not_offered",
            f"{RULE}: decoration tile {tile!r} is not in the offer {list(state.decoration_offer)}",
        )
    side, step = action.get("side"), action.get("step")
    if not isinstance(side, str) or not isinstance(step, int):
        return RuleViolation("no_such_space", f"{RULE}: side must be a name, step an integer")
    problem = space_problem(state, side, step)
    if problem is not None:
        text = _PROBLEM_TEXT[problem].format(sides=list(SIDES))
        return RuleViolation(problem, f"{RULE}: {text} ({side} step {step})")
    return None


@task_rules(
    DecorationChoice,
    options=_choice_options,
    decision="a decoration tile and the space to place it on",
    rule=RULE,
    explain=_explain_choice,
)
def resolve_decoration_choice(ctx: Context, task: DecorationChoice, action: Action | None) -> None:
    """Place the decoration, score it, then its temple steps in the seat's order."""
    assert action is not None
    seat, tile = task.seat, int(action["tile"])
    side, step = str(action["side"]), int(action["step"])
    matches = decoration_matches(ctx.state, tile, side, step)
    vp = DECORATION_VP + matches.count
    ctx.emit(
        "DecorationPlaced",
        seat=seat,
        tile=tile,
        side=side,
        step=step,
        vp=vp,
        matches=matches.count,
    )
    ctx.change_goods(seat, "decoration", vp=vp)
    advance_pyramid_track(ctx, seat)
    follow: list[Task] = matched_icon_steps(seat, matches.temples)
    ctx.push(*follow)


@task_rules(
    RefillDecorationOffer, options=no_choice, decision="the decoration tile offer", rule=RULE
)
def resolve_refill(ctx: Context, task: RefillDecorationOffer, action: Action | None) -> None:
    """Draw random decoration tiles into the offer (each draw recorded, D7)."""
    size = int(_table()["offer_size"])
    while len(ctx.state.decoration_offer) < size and ctx.state.decoration_supply:
        supply = ctx.state.decoration_supply
        ctx.emit("DecorationOfferRefilled", tile=supply[ctx.rng.randrange(len(supply))])


# --- events ----------------------------------------------------------------------------


@handles("DecorationPlaced")
def _decoration_placed(state: GameState, payload: Payload) -> GameState:
    placed = (payload["side"], payload["step"], payload["tile"])
    return replace(
        state,
        decorations=(*state.decorations, placed),
        decoration_offer=without(state.decoration_offer, payload["tile"]),
    )


@handles("DecorationOfferRefilled")
def _decoration_offer_refilled(state: GameState, payload: Payload) -> GameState:
    tile = payload["tile"]
    return replace(
        state,
        decoration_offer=(*state.decoration_offer, tile),
        decoration_supply=without(state.decoration_supply, tile),
    )
