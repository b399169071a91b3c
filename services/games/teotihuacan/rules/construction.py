"""Construction (8) main action: add tiles to the Pyramid (RULES.md §3.5, §6.1, D8, D9).

The seat places 1 tile, plus up to one more per additional own worker on the board
(``workers_for_action``: technology #15 and an extra-worker tile count, capped at 3, D9).
Each tile is one decision::

    {"type": "place_pyramid_tile", "tile": 17, "level": 2, "row": 0, "col": 1, "rotation": 3}

listing every offered tile x legal slot x distinct rotation (rotations giving the same face
are listed once, with the lowest k) that the seat can pay for. A seat owning technology
#15 also says which resource its discount takes: ``"discount": "stone" | "wood"``, one
option per resource in that level's cost (level 1 costs only stone, so only ``"stone"``).
*Decision:* the seat chooses; the rulebook says "1 resource (stone or wood) less" without
saying who picks, and the choice matters when one of them is short.
After the first tile the seat may also ``{"type": "stop_construction"}``.

Each tile resolves fully before the next: pay the level's cost, score the level VP +1 VP
per matched icon, the temple steps of matched coloured icons (in the seat's order), then
the Pyramid track (the order of the rulebook's Construction example 2). The level-4 tile
completes the pyramid: the light marker jumps onto the dark one and the coming (or
already pending, Common Question 2) eclipse is the final one. Then the power-ups, the
offer refill (random draws recorded in ``PyramidOfferRefilled``), technology effects.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from services.engine.domain.ruleset import RuleViolation

from . import pyramid
from .calendar import trigger_eclipse
from .components import CONSTRUCTION, components
from .context import Context
from .evolve import Payload, handles
from .flow import Action, no_choice, task_rules
from .frozen import replace, without
from .main_action import (
    MAX_COUNTED_WORKERS,
    effective_cost,
    pay_cocoa_cost,
    power_ups_then_technologies,
    use_extra_worker,
    workers_for_action,
)
from .matched_icons import PyramidTrackStep, matched_icon_steps
from .reads import amount as amount_of
from .state import GameState
from .tasks import BoardAction, Task, power_ups_task, register_task
from .technologies import construction_discount
from .turn import MainAction, main_action

RULE = "RULES.md §3.5"
DISCOUNT_TECHNOLOGY = "construction_extra_worker"
"""Technology #15: one more worker on Construction and each tile 1 resource cheaper."""
DISCOUNT_RESOURCES = ("stone", "wood")
Cost = tuple[tuple[str, int], ...]
"""A tile's cost as (good, amount) pairs."""


# --- costs ------------------------------------------------------------------------------


def tile_payments(
    state: GameState, seat: int, level: int
) -> list[tuple[str | None, dict[str, int]]]:
    """Ways ``seat`` may pay for a tile at ``level``: (discounted resource, cost) pairs.

    Without technology #15 the only way is (None, the level's cost). With it, one way per
    resource (stone, wood) in the cost, that resource 1 cheaper. Affordability is not checked.
    """
    return _payments(level, construction_discount(state, seat))


def _payments(level: int, discount: int) -> list[tuple[str | None, dict[str, int]]]:
    cost = pyramid.level_cost(level)
    if not discount:
        return [(None, cost)]
    return [
        (resource, {**cost, resource: cost[resource] - discount})
        for resource in DISCOUNT_RESOURCES
        if cost.get(resource, 0) > 0
    ]


def can_pay(state: GameState, seat: int, cost: dict[str, int]) -> bool:
    """True if ``seat`` holds every resource of ``cost``."""
    player = state.players[seat]
    return all(amount_of(player, good) >= amount for good, amount in cost.items())


def placements(state: GameState, seat: int) -> list[Action]:
    """Every ``place_pyramid_tile`` action ``seat`` can take and pay for now."""
    player = state.players[seat]
    runs = _placement_runs(
        state.pyramid_tiles, state.pyramid_offer, construction_discount(state, seat)
    )
    actions: list[Action] = []
    for cost, run in runs:
        if all(amount_of(player, good) >= amount for good, amount in cost):
            actions.extend(run)
    return actions


def can_place(state: GameState, seat: int) -> bool:
    """True if :func:`placements` is not empty (without listing them).

    Asked at every Construction board action, while listing the placements builds every
    (tile, slot, payment, rotation): every offered tile fits every legal slot in some
    rotation, so a placement exists exactly when a tile is offered and one payment for
    a legal slot's level is in hand (services/games/teotihuacan/tests/test_derived_tables.py).
    """
    if not state.pyramid_offer:
        return False
    player = state.players[seat]
    discount = construction_discount(state, seat)
    levels = {level for level, _, _ in pyramid.legal_slots(state.pyramid_tiles)}
    return any(
        all(getattr(player, good) >= n for good, n in cost.items())
        for level in levels
        for _, cost in _payments(level, discount)
    )


@lru_cache(maxsize=512)
def _placement_runs(
    placed: tuple[pyramid.PlacedTile, ...], offer: tuple[int, ...], discount: int
) -> tuple[tuple[Cost, tuple[Action, ...]], ...]:
    """Every placement in listing order (tile, slot, payment, rotation), cut into runs that
    share one cost: each run is listed if its cost is in hand.

    The geometry and the offer change only on Construction while the seats ask for the
    placements (or whether any exists) at many decisions, so this is computed once per
    (pyramid, offer, discount); the action dicts are shared, read-only.
    """
    runs: list[tuple[Cost, tuple[Action, ...]]] = []
    slots = pyramid.legal_slots(placed)
    for tile in offer:
        rotations = pyramid.distinct_rotations(tile)
        for level, row, col in slots:
            for resource, cost in _payments(level, discount):
                run: list[Action] = []
                for rotation in rotations:
                    action: Action = {
                        "type": "place_pyramid_tile",
                        "tile": tile,
                        "level": level,
                        "row": row,
                        "col": col,
                        "rotation": rotation,
                    }
                    if resource is not None:
                        action["discount"] = resource
                    run.append(action)
                runs.append((tuple(cost.items()), tuple(run)))
    return tuple(runs)


# --- the main action -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PyramidConstruction(Task):
    """Place the next pyramid tile (or stop once one is placed).

    Attributes:
        tiles_left: tiles the seat may still place in this action.
        placed: tiles placed so far in this action.
    """

    tiles_left: int
    placed: int


register_task(PyramidConstruction, "pyramid_construction")


@dataclass(frozen=True, slots=True)
class RefillPyramidOffer(Task):
    """Draw pyramid tiles from the bag until the offer is full (or the bag empty)."""


register_task(RefillPyramidOffer, "refill_pyramid_offer")


def _possible(state: GameState, seat: int, board: int, cost: int) -> bool:
    if state.players[seat].cocoa < effective_cost(state, seat, cost):
        return False
    return can_place(state, seat)


def _resolve(ctx: Context, task: BoardAction, cost: int) -> None:
    seat = task.seat
    pay_cocoa_cost(ctx, seat, cost, "main_action_cost")
    counted = workers_for_action(ctx.state, seat, CONSTRUCTION)
    use_extra_worker(ctx, seat, CONSTRUCTION)
    power_ups = 2 if counted >= MAX_COUNTED_WORKERS else 1
    ctx.push(
        PyramidConstruction(seat=seat, tiles_left=counted, placed=0),
        power_ups_task(seat, CONSTRUCTION, power_ups),
        RefillPyramidOffer(seat=seat),
        *power_ups_then_technologies(seat, CONSTRUCTION, 0),
    )


main_action(CONSTRUCTION)(MainAction(possible=_possible, resolve=_resolve))


def _construction_options(state: GameState, task: PyramidConstruction) -> list[Action]:
    actions = placements(state, task.seat) if task.tiles_left > 0 else []
    if task.placed > 0:
        actions.append({"type": "stop_construction"})
    return actions


def _int(action: Action, key: str) -> int | None:
    value = action.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _explain_construction(
    state: GameState, task: PyramidConstruction, action: Action
) -> RuleViolation | None:
    if action.get("type") != "place_pyramid_tile":
        return None
    tile = _int(action, "tile")
    if tile is None or tile not in state.pyramid_offer:
        return RuleViolation(
            "tile_not_offered",
            f"{RULE}: pyramid tile {action.get('tile')!r} is not in the offer "
            f"{list(state.pyramid_offer)}",
        )
    level, row, col = _int(action, "level"), _int(action, "row"), _int(action, "col")
    if level is None or row is None or col is None:
        return RuleViolation("no_such_slot", f"{RULE}: level, row and col must be integers")
    problem = pyramid.slot_problem(state.pyramid_tiles, level, row, col)
    if problem == "no_such_slot":
        return RuleViolation(
            problem, f"{RULE}: the pyramid has no slot (level {level}, row {row}, col {col})"
        )
    if problem == "slot_occupied":
        return RuleViolation(
            problem, f"{RULE}: slot (level {level}, row {row}, col {col}) already holds a tile"
        )
    if problem == "slot_not_supported":
        return RuleViolation(
            problem,
            f"{RULE}: a level-{level} tile needs the four level-{level - 1} tiles "
            f"{pyramid.supports(level, row, col)} under it",
        )
    rotation = _int(action, "rotation")
    if rotation is None or rotation not in pyramid.distinct_rotations(tile):
        return RuleViolation(
            "rotation_not_legal",
            f"{RULE}: rotation must be one of {pyramid.distinct_rotations(tile)} for tile {tile}",
        )
    payments = tile_payments(state, task.seat, level)
    if not any(can_pay(state, task.seat, cost) for _, cost in payments):
        return RuleViolation(
            "cost_not_payable",
            f"{RULE}: a level-{level} tile costs {payments[0][1]}; not in hand",
        )
    return None


@task_rules(
    PyramidConstruction,
    options=_construction_options,
    decision="a pyramid tile, slot and rotation (or stop adding tiles)",
    rule=RULE,
    explain=_explain_construction,
)
def resolve_construction(ctx: Context, task: PyramidConstruction, action: Action | None) -> None:
    """Place one tile and resolve it fully; the next tile's decision follows its rewards."""
    assert action is not None
    if action["type"] == "stop_construction":
        return
    seat = task.seat
    tile, level, row, col = (int(action[k]) for k in ("tile", "level", "row", "col"))
    rotation = int(action["rotation"])
    discount = action.get("discount")
    cost = next(c for d, c in tile_payments(ctx.state, seat, level) if d == discount)
    ctx.change_goods(seat, "pyramid_tile_cost", **{good: -n for good, n in cost.items()})
    matches = pyramid.placement_matches(ctx.state.pyramid_tiles, tile, level, row, col, rotation)
    vp = pyramid.level_vp(level) + matches.count
    ctx.emit(
        "PyramidTilePlaced",
        seat=seat,
        tile=tile,
        level=level,
        row=row,
        col=col,
        rotation=rotation,
        vp=vp,
        matches=matches.count,
    )
    ctx.change_goods(seat, "pyramid_tile", vp=vp)
    if level == pyramid.TOP_LEVEL:
        complete_pyramid(ctx, seat)
    follow: list[Task] = [*matched_icon_steps(seat, matches.temples), PyramidTrackStep(seat=seat)]
    if task.tiles_left > 1:
        follow.append(
            PyramidConstruction(seat=seat, tiles_left=task.tiles_left - 1, placed=task.placed + 1)
        )
    ctx.push(*follow)


def complete_pyramid(ctx: Context, seat: int) -> None:
    """RULES.md §3.5, §6.1: the light marker moves onto the dark marker and the coming
    eclipse (or the one already pending, Common Question 2) is the final one (scored with
    its ordinal multiplier, D8)."""
    ctx.emit("PyramidCompleted", seat=seat)
    if ctx.state.light < ctx.state.dark:
        ctx.emit("CalendarAdvanced", light=ctx.state.dark)
    trigger_eclipse(ctx, final=True)


@task_rules(RefillPyramidOffer, options=no_choice, decision="the pyramid tile offer", rule=RULE)
def resolve_refill(ctx: Context, task: RefillPyramidOffer, action: Action | None) -> None:
    """Draw random tiles from the bag into the offer (each draw recorded, D7)."""
    size = int(components().raw["pyramid"]["offer_size"])
    while len(ctx.state.pyramid_offer) < size and ctx.state.pyramid_supply:
        supply = ctx.state.pyramid_supply
        ctx.emit("PyramidOfferRefilled", tile=supply[ctx.rng.randrange(len(supply))])


# --- events ----------------------------------------------------------------------------


@handles("PyramidTilePlaced")
def _pyramid_tile_placed(state: GameState, payload: Payload) -> GameState:
    placed = (
        payload["level"],
        payload["row"],
        payload["col"],
        payload["tile"],
        payload["rotation"],
    )
    return replace(
        state,
        pyramid_tiles=(*state.pyramid_tiles, placed),
        pyramid_offer=without(state.pyramid_offer, payload["tile"]),
    )


@handles("PyramidOfferRefilled")
def _pyramid_offer_refilled(state: GameState, payload: Payload) -> GameState:
    tile = payload["tile"]
    return replace(
        state,
        pyramid_offer=(*state.pyramid_offer, tile),
        pyramid_supply=without(state.pyramid_supply, tile),
    )


@handles("PyramidCompleted")
def _pyramid_completed(state: GameState, payload: Payload) -> GameState:
    # The level-4 tile already records completion; the calendar and eclipse have their own events.
    return state
