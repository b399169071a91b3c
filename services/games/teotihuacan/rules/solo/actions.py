"""Teotibot's seven action tiles with every fallback (RULES.md §8, D5, D6).

Each tile is *planned* first from the state alone (:func:`plan`: which step applies and
why), the plan is recorded in ``TeotibotActionChosen{seat, tile, step, board, worker,
reason}``, then carried out with ordinary events (:func:`carry_out`), so a replay shows
why the bot did what it did. Steps:

- ``main``: the tile's step 1 (Construction, Decorations, Alchemy, Nobles; Mastery's
  step-1 boards), then power up a worker on that board (Mastery: the worker tried) and
  advance it;
- ``harvest``: +2 of the board's resource (Stone Quarry, Gold Deposits, Forest), then the
  same power-up and advance;
- ``fallback``: 5 cocoa, power up the lowest-power worker and advance it;
- ``power_up_twice``: Alchemy's own fallback: its lowest-power unlocked worker twice, no move;
- ``worship``: the locked worker moves on and the bot climbs (no power-up, no move);
- ``mask``: a mask taken from a worship area (no dice move).

Decisions (documented where the books are silent):
- Nobles: in the row of the era the bot builds on the leftmost empty space, like a seat;
  with that row full, on "the lowest-VP empty space of all rows" (RULES.md §8; Korean:
  "세줄 중에서 가장 승점이 낮은 칸"), which is usually not a row's leftmost since the values
  fall from left to right. Ties (the books are silent): the upper row, then the left space.
- A main step also needs its component: an offered tile and a legal place (Construction,
  Decorations), a building left (Nobles, D14); otherwise it is not possible.
- The bot's rotation of its pyramid tile is random (recorded, D7); it scores no matched
  icons (the +2 VP stands for them), nor do its decorations.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import pyramid
from ..components import components
from ..construction import complete_pyramid
from ..context import Context
from ..decorations import legal_spaces
from ..discovery import MASK, NO_TILE, can_pay, claim, tile_data, worship_tile
from ..nobles import ROWS, building_count, empty_spaces, has_room, leftmost_empty_space, row_spaces
from ..state import GameState
from ..technologies import column_temple
from ..tracks import advance_pyramid_track
from .conventions import (
    any_temple_step,
    avenue_step,
    by_power_descending,
    fallback,
    highest_worker,
    lowest_worker,
    power_up,
    power_up_and_advance,
    temple_step,
    unlocked_workers,
)
from .seat import HUMAN_SEAT, TEMPLE_WORSHIP_BOARDS

FOREST, STONE_QUARRY, GOLD_DEPOSITS, ALCHEMY, NOBLES, DECORATIONS, CONSTRUCTION = (
    2,
    3,
    4,
    5,
    6,
    7,
    8,
)
HARVEST_RESOURCE = {FOREST: "wood", STONE_QUARRY: "stone", GOLD_DEPOSITS: "gold"}
HARVEST_AMOUNT = 2
CONSTRUCTION_STONE = 2
CONSTRUCTION_BONUS_VP = 2
DECORATION_GOLD = 2
DECORATION_VP = 5
ALCHEMY_GOLD = 1
SHARED_MARKER_VP = 3
NOBLES_WOOD = 2
WORSHIP_STEPS = 2
DECORATIONS_WORSHIP_STEPS = 3
DECORATION_SIDES_CLOCKWISE = ("top", "right", "bottom", "left")
MAIN_TILE_OF_BOARD = {
    ALCHEMY: "alchemy",
    NOBLES: "nobles",
    DECORATIONS: "decorations",
    CONSTRUCTION: "construction",
}
"""Mastery: boards whose worker does the step 1 of that action tile."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What the bot will do with its tile (see the module docstring for ``step``)."""

    step: str
    board: int = 0
    worker: int = -1
    reason: str = ""


# --- pure checks ------------------------------------------------------------------------


def _resource(state: GameState, seat: int, good: str) -> int:
    return state.players[seat].amount(good)


def main_possible(state: GameState, seat: int, board: int) -> bool:
    """Step 1 of the action tile of ``board`` (5-8) is possible (a worker there included)."""
    if not unlocked_workers(state, seat, board):
        return False
    if board == CONSTRUCTION:
        return (
            _resource(state, seat, "stone") >= CONSTRUCTION_STONE
            and bool(state.pyramid_offer)
            and bool(pyramid.legal_slots(state.pyramid_tiles))
        )
    if board == DECORATIONS:
        return (
            _resource(state, seat, "gold") >= DECORATION_GOLD
            and bool(state.decoration_offer)
            and bool(legal_spaces(state))
        )
    if board == ALCHEMY:
        return _resource(state, seat, "gold") >= ALCHEMY_GOLD and technology_slot(state, seat) >= 0
    if board == NOBLES:
        return (
            _resource(state, seat, "wood") >= NOBLES_WOOD
            and state.buildings_taken < building_count()
            and building_space(state) is not None
        )
    return False


def technology_slot(state: GameState, seat: int) -> int:
    """Alchemy (D6): the lowest-numbered technology with no marker at all, else the
    lowest-numbered one the bot lacks; -1 if it has them all."""
    numbers = components().raw["technologies"]

    def number(slot: int) -> int:
        return int(numbers[state.technologies[slot]]["number"])

    marked = {slot for player in state.players for slot in player.technologies}
    free = [s for s in range(len(state.technologies)) if s not in marked]
    if free:
        return min(free, key=number)
    lacking = [
        s for s in range(len(state.technologies)) if s not in state.players[seat].technologies
    ]
    return min(lacking, key=number) if lacking else -1


def building_space(state: GameState) -> tuple[str, int] | None:
    """Nobles (§8): (row, space) of the bot's building, None if every row is full.

    The top row before the 1st eclipse, the middle before the 2nd, the bottom after, on its
    leftmost empty space; that row full → the lowest-VP empty space of all three rows
    (ties: upper row, then left space).
    """
    row = ROWS[min(state.eclipses, len(ROWS) - 1)]
    if has_room(state, row):
        return row, leftmost_empty_space(state, row)
    empty = [
        (row_spaces(r)[space], index, space)
        for index, r in enumerate(ROWS)
        for space in empty_spaces(state, r)
    ]
    if not empty:
        return None
    _, index, space = min(empty)
    return ROWS[index], space


def mask_choice(state: GameState, seat: int) -> tuple[int, int] | None:
    """Mask Collection: (board, tile) of the rarest mask (lowest number) the bot lacks and
    can pay for at a worship area; ties nearest clockwise from (and including) the Palace."""
    player = state.players[seat]
    owned = {tile_data(t)["mask"] for t in player.masks}
    candidates = []
    for board in components().raw["discovery_setup"]["worship_spaces"]:
        tile = worship_tile(state, board)
        if tile == NO_TILE or tile_data(tile)["kind"] != MASK:
            continue
        if tile_data(tile)["mask"] in owned or not can_pay(player, tile):
            continue
        candidates.append((int(tile_data(tile)["mask"]), state.position(board), board, tile))
    if not candidates:
        return None
    _, _, board, tile = min(candidates)
    return board, tile


def locked_worker(state: GameState, seat: int) -> int | None:
    """The bot's worker on a worship space (D5: it starts on Decorations)."""
    for worker_id, worker in enumerate(state.players[seat].workers):
        if worker.in_play and worker.locked:
            return worker_id
    return None


def next_temple_worship_board(state: GameState, board: int) -> int:
    """The next temple worship space clockwise from ``board`` (the Palace is skipped)."""
    position = state.position(board)
    for offset in range(1, len(state.rondel) + 1):
        candidate = state.board_at(position + offset)
        if candidate in TEMPLE_WORSHIP_BOARDS:
            return candidate
    raise ValueError("no temple worship space on the rondel")


def _success_or_harvest(
    state: GameState, seat: int, main_board: int, harvest_board: int, tile: str
) -> Plan:
    if main_possible(state, seat, main_board):
        worker = highest_worker(state, seat, unlocked_workers(state, seat, main_board))
        assert worker is not None
        return Plan("main", main_board, worker, f"{tile}: step 1 possible")
    if unlocked_workers(state, seat, harvest_board):
        worker = highest_worker(state, seat, unlocked_workers(state, seat, harvest_board))
        assert worker is not None
        return Plan("harvest", harvest_board, worker, f"{tile}: step 1 not possible; step 2")
    return _fallback_plan(state, seat, f"{tile}: neither step possible")


def _fallback_plan(state: GameState, seat: int, reason: str) -> Plan:
    worker = lowest_worker(state, seat, unlocked_workers(state, seat))
    return Plan("fallback", 0, -1 if worker is None else worker, reason)


def plan(state: GameState, seat: int, tile: str) -> Plan:
    """What action tile ``tile`` makes the bot do now (RULES.md §8)."""
    if tile == "construction":
        return _success_or_harvest(state, seat, CONSTRUCTION, STONE_QUARRY, tile)
    if tile == "decorations":
        return _success_or_harvest(state, seat, DECORATIONS, GOLD_DEPOSITS, tile)
    if tile == "nobles":
        return _success_or_harvest(state, seat, NOBLES, FOREST, tile)
    if tile == "alchemy":
        if main_possible(state, seat, ALCHEMY):
            worker = highest_worker(state, seat, unlocked_workers(state, seat, ALCHEMY))
            assert worker is not None
            return Plan("main", ALCHEMY, worker, "alchemy: step 1 possible")
        worker = lowest_worker(state, seat, unlocked_workers(state, seat))
        return Plan("power_up_twice", 0, -1 if worker is None else worker, "alchemy: step 2")
    if tile == "mastery":
        for worker in by_power_descending(state, seat):
            board = state.players[seat].workers[worker].board
            if board in HARVEST_RESOURCE or main_possible(state, seat, board):
                step = "harvest" if board in HARVEST_RESOURCE else "main"
                return Plan(step, board, worker, f"mastery: worker {worker} can act there")
        return _fallback_plan(state, seat, "mastery: no worker can act")
    if tile == "worship":
        worker = locked_worker(state, seat)
        if worker is None:
            return _fallback_plan(state, seat, "worship: no locked worker")
        board = next_temple_worship_board(state, state.players[seat].workers[worker].board)
        return Plan("worship", board, worker, "worship: next temple worship space")
    if tile == "mask_collection":
        choice = mask_choice(state, seat)
        if choice is None:
            return _fallback_plan(state, seat, "mask collection: no mask to take")
        return Plan("mask", choice[0], -1, f"mask collection: discovery tile {choice[1]}")
    raise ValueError(f"unknown action tile {tile}")


# --- carrying a plan out ----------------------------------------------------------------


def carry_out(ctx: Context, seat: int, tile: str, chosen: Plan) -> None:
    """Emit ``TeotibotActionChosen`` and the events of ``chosen``."""
    ctx.emit(
        "TeotibotActionChosen",
        seat=seat,
        tile=tile,
        step=chosen.step,
        board=chosen.board,
        worker=chosen.worker,
        reason=chosen.reason,
    )
    if chosen.step == "main":
        _MAIN[chosen.board](ctx, seat)
        power_up_and_advance(ctx, seat, chosen.worker)
    elif chosen.step == "harvest":
        good = HARVEST_RESOURCE[chosen.board]
        ctx.change_goods(seat, "teotibot_harvest", **{good: HARVEST_AMOUNT})
        power_up_and_advance(ctx, seat, chosen.worker)
    elif chosen.step == "fallback":
        fallback(ctx, seat)
    elif chosen.step == "power_up_twice":
        if chosen.worker >= 0:
            power_up(ctx, seat, chosen.worker)
            power_up(ctx, seat, chosen.worker)
    elif chosen.step == "worship":
        _worship(ctx, seat, chosen.worker, chosen.board)
    elif chosen.step == "mask":
        tile_id = worship_tile(ctx.state, chosen.board)
        claim(ctx, seat, tile_id, {"kind": "worship", "board": chosen.board})


def _construction(ctx: Context, seat: int) -> None:
    """Pay 2 stone; the first offered tile, random rotation, on the lowest level's
    top-left-most legal slot; level VP, Pyramid track +1, +2 VP, one step on any temple."""
    level, row, col = pyramid.legal_slots(ctx.state.pyramid_tiles)[0]
    tile = ctx.state.pyramid_offer[0]
    rotation = ctx.rng.randrange(pyramid.ROTATIONS)
    ctx.change_goods(seat, "teotibot_construction", stone=-CONSTRUCTION_STONE)
    vp = pyramid.level_vp(level)
    ctx.emit(
        "PyramidTilePlaced",
        seat=seat,
        tile=tile,
        level=level,
        row=row,
        col=col,
        rotation=rotation,
        vp=vp,
        matches=0,
    )
    ctx.change_goods(seat, "pyramid_tile", vp=vp)
    if level == pyramid.TOP_LEVEL:
        complete_pyramid(ctx, seat)
    advance_pyramid_track(ctx, seat)
    ctx.change_goods(seat, "teotibot_construction_bonus", vp=CONSTRUCTION_BONUS_VP)
    any_temple_step(ctx, seat)
    size = int(components().raw["pyramid"]["offer_size"])
    while len(ctx.state.pyramid_offer) < size and ctx.state.pyramid_supply:
        supply = ctx.state.pyramid_supply
        ctx.emit("PyramidOfferRefilled", tile=supply[ctx.rng.randrange(len(supply))])


def _decorations(ctx: Context, seat: int) -> None:
    """Pay 2 gold; the first offered decoration on the first legal space clockwise from
    the top side; 5 VP, Pyramid track +1, one step on any temple."""
    spaces = dict(legal_spaces(ctx.state))
    side = next(s for s in DECORATION_SIDES_CLOCKWISE if s in spaces)
    tile = ctx.state.decoration_offer[0]
    ctx.change_goods(seat, "teotibot_decorations", gold=-DECORATION_GOLD)
    ctx.emit(
        "DecorationPlaced",
        seat=seat,
        tile=tile,
        side=side,
        step=spaces[side],
        vp=DECORATION_VP,
        matches=0,
    )
    ctx.change_goods(seat, "decoration", vp=DECORATION_VP)
    advance_pyramid_track(ctx, seat)
    any_temple_step(ctx, seat)
    size = int(components().raw["decorations"]["offer_size"])
    while len(ctx.state.decoration_offer) < size and ctx.state.decoration_supply:
        supply = ctx.state.decoration_supply
        ctx.emit("DecorationOfferRefilled", tile=supply[ctx.rng.randrange(len(supply))])


def _alchemy(ctx: Context, seat: int) -> None:
    """Pay 1 gold; the technology of :func:`technology_slot` (no effects for the bot);
    each other seat with a marker there scores 3 VP (D6); a step on the column's temple."""
    slot = technology_slot(ctx.state, seat)
    ctx.emit("TechnologyAcquired", seat=seat, slot=slot, gold_paid=ALCHEMY_GOLD)
    for other, player in enumerate(ctx.state.players):
        if other != seat and slot in player.technologies:
            ctx.change_goods(other, "technology_marker_shared", vp=SHARED_MARKER_VP)
    temple_step(ctx, seat, column_temple(slot))


def _nobles(ctx: Context, seat: int) -> None:
    """Pay 2 wood; build on the space of :func:`building_space`; its VP; Avenue +1."""
    target = building_space(ctx.state)
    assert target is not None
    row, space = target
    ctx.change_goods(seat, "teotibot_nobles", wood=-NOBLES_WOOD)
    ctx.emit("BuildingBuilt", seat=seat, row=row, space=space, vp=row_spaces(row)[space])
    avenue_step(ctx, seat)


_MAIN = {
    CONSTRUCTION: _construction,
    DECORATIONS: _decorations,
    ALCHEMY: _alchemy,
    NOBLES: _nobles,
}


def _worship(ctx: Context, seat: int, worker: int, board: int) -> None:
    """Move the locked worker to ``board``'s worship space, displacing a human worker for
    free; 2 steps on that board's temple (Decorations: 3 on any temples), ± the knob;
    discard the discovery tile there and draw a new one."""
    occupant = ctx.state.worship_occupant(board, 0)
    if occupant is not None and occupant[0] == HUMAN_SEAT:
        ctx.emit("WorkerDisplaced", seat=occupant[0], worker=occupant[1], board=board)
    from_board = ctx.state.players[seat].workers[worker].board
    ctx.emit(
        "TeotibotWorkerRelocated", seat=seat, worker=worker, from_board=from_board, to_board=board
    )
    knob = ctx.state.options.teotibot.worship_steps
    if board == DECORATIONS:
        for _ in range(max(0, DECORATIONS_WORSHIP_STEPS + knob)):
            any_temple_step(ctx, seat)
    else:
        temple = components().board(board).worship_temple
        assert temple is not None
        for _ in range(max(0, WORSHIP_STEPS + knob)):
            temple_step(ctx, seat, temple)
    discarded = worship_tile(ctx.state, board)
    if discarded != NO_TILE:
        ctx.emit("TeotibotDiscoveryDiscarded", seat=seat, board=board, tile=discarded)
    supply = ctx.state.discovery_supply
    if supply:
        ctx.emit("DiscoveryDrawn", board=board, tile=supply[ctx.rng.randrange(len(supply))])
