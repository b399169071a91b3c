"""Standard setup: random board, starting tiles chosen secretly or drafted (RULES.md §1).

Flow: the opening events lay out a random board and deal starting tiles; every seat then
chooses 2 of its 4 tiles at once and in secret (or the seats draft from a face-up offer,
snake order); the choices are revealed together; then, in turn order, each seat places
its 3 workers and gains everything printed on its two tiles; then the first turn starts.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from services.engine.domain.ruleset import DomainEvent, Sealed

from .components import NOT_A_TILE, TEMPLES, components
from .context import Context
from .discovery import ClaimDiscovery
from .evolve import handles, handles_sealed
from .flow import Action, no_choice, task_rules
from .frozen import replace, with_player
from .state import GameState, Worker
from .tasks import PowerUps, ResourceChoice, StartTurn, Task, register_task
from .technologies import column_temple
from .temples import advance_temple
from .tracks import advance_avenue

TILES_DEALT = 4
TILES_KEPT = 2
WORKERS_PLACED = 3
CATEGORIES = ("A", "B", "C")


def starting_tile(tile: int) -> dict[str, Any]:
    """The starting tile ``tile`` of components ``starting_tiles``."""
    data: dict[str, Any] = components().raw["starting_tiles"][tile]
    return data


def standard_board(state: GameState, rng: random.Random) -> GameState:
    """RULES.md §1.1 standard: boards 2-7 shuffled onto positions 2-7, one royal tile per
    category, 6 random technologies sorted by number, a random temple bonus per temple."""
    tables = components().raw
    middle = list(range(2, 8))
    rng.shuffle(middle)
    royal = tuple(
        rng.choice([t["id"] for t in tables["royal_tiles"] if t["category"] == category])
        for category in CATEGORIES
    )
    technologies = sorted(
        rng.sample(range(len(tables["technologies"])), 6),
        key=lambda t: tables["technologies"][t]["number"],
    )
    bonus = rng.sample(range(len(tables["temple_bonus_tiles"])), len(TEMPLES))
    return replace(
        state,
        rondel=(1, *middle, 8),
        royal_tiles=royal,
        technologies=tuple(technologies),
        temple_bonus=tuple(bonus),
    )


def deal_starting_tiles(state: GameState, rng: random.Random) -> GameState:
    """Deal 4 starting tiles to each seat (draft: lay out 2 x seats + 2 face up), each
    tile with a discovery icon coming with a random discovery tile from the bag."""
    count = len(components().raw["starting_tiles"])
    deck = list(range(count))
    rng.shuffle(deck)
    supply = list(state.discovery_supply)
    discoveries = [NOT_A_TILE] * count
    players = list(state.players)
    offer: tuple[int, ...] = ()
    if state.options.draft_starting_tiles:
        offer = tuple(deck[: 2 * state.seat_count + 2])
        dealt = list(offer)
    else:
        dealt = []
        for seat in range(state.seat_count):
            hand = tuple(deck[seat * TILES_DEALT : (seat + 1) * TILES_DEALT])
            players[seat] = replace(players[seat], starting_tiles=hand)
            dealt.extend(hand)
    for tile in dealt:
        if starting_tile(tile)["gain"].get("discovery") and supply:
            discoveries[tile] = supply.pop(rng.randrange(len(supply)))
    return replace(
        state,
        players=tuple(players),
        starting_tile_offer=offer,
        starting_tile_discoveries=tuple(discoveries),
        discovery_supply=tuple(sorted(supply)),
        phase="setup",
    )


def opening_tasks(state: GameState) -> list[Task]:
    """The setup decisions, in order, before the first turn."""
    if state.options.draft_starting_tiles:
        order = list(state.turn_order)
        picks: list[Task] = [DraftStartingTile(seat=s) for s in [*order, *reversed(order)]]
        return [*picks, SetUpSeats(seat=-1)]
    return [ChooseStartingTiles(seat=-1), SetUpSeats(seat=-1)]


# --- secret choice --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChooseStartingTiles(Task):
    """Every seat chooses 2 of its 4 starting tiles, simultaneously and secretly (§1.2.4)."""


register_task(ChooseStartingTiles, "choose_starting_tiles")


def _still_choosing(state: GameState, task: ChooseStartingTiles) -> tuple[int, ...]:
    return tuple(
        s
        for s in state.turn_order
        if state.players[s].starting_tiles and not state.players[s].chosen_starting_tiles
    )  # a seat dealt no tiles (solo: Teotibot) takes no part


def _choice_options(state: GameState, task: ChooseStartingTiles) -> list[Action]:
    hand = state.players[task.seat].starting_tiles
    return [
        {"type": "choose_starting_tiles", "tiles": list(pair)}
        for pair in itertools.combinations(hand, TILES_KEPT)
    ]


@task_rules(
    ChooseStartingTiles,
    options=_choice_options,
    decision="2 of your 4 starting tiles (secret until all have chosen)",
    rule="RULES.md §1.2.4",
    seats=_still_choosing,
)
def resolve_choose_starting_tiles(
    ctx: Context, task: ChooseStartingTiles, action: Action | None
) -> None:
    """Record one seat's secret choice (sealed: only a commitment is logged, the seat
    itself sees it); once every seat chose, reveal them together (RULES.md §1.2.4)."""
    if action is None:
        state = ctx.state
        choices = {s: list(state.players[s].chosen_starting_tiles) for s in state.turn_order}
        chosen = [t for tiles in choices.values() for t in tiles]
        ctx.record(
            DomainEvent(
                STARTING_TILES_REVEALED,
                {
                    "choices": {str(s): c for s, c in choices.items()},
                    "discoveries": [
                        [t, state.starting_tile_discoveries[t]]
                        for t in sorted(chosen)
                        if state.starting_tile_discoveries[t] != NOT_A_TILE
                    ],
                },
                STARTING_TILES_REVEALED_VERSION,
                reveals=tuple(choice_id(s) for s in state.turn_order if choices[s]),
            )
        )
        return
    tiles = list(action["tiles"])
    ctx.record(
        DomainEvent(
            STARTING_TILES_CHOSEN,
            {"seat": task.seat},
            STARTING_TILES_CHOSEN_VERSION,
            {choice_id(task.seat): Sealed(tiles, (task.seat,))},
        )
    )
    ctx.push(ChooseStartingTiles(seat=-1))


STARTING_TILES_CHOSEN = "StartingTilesChosen"
STARTING_TILES_CHOSEN_VERSION = 2
STARTING_TILES_REVEALED = "StartingTilesRevealed"
STARTING_TILES_REVEALED_VERSION = 2
STARTING_TILES_RETURNED = "StartingTilesReturned"
STARTING_TILES_RETURNED_VERSION = 2
RETURNED_DISCOVERIES = "returned_discoveries"


def choice_id(seat: int) -> str:
    """Secret id of ``seat``'s choice of starting tiles."""
    return f"choice:{seat}"


@handles_sealed(STARTING_TILES_CHOSEN)
def _starting_tiles_chosen(state: GameState, event: DomainEvent) -> GameState:
    seat = int(event.payload["seat"])
    choice = event.sealed.get(choice_id(seat))
    tiles = tuple(choice.value) if choice is not None else (NOT_A_TILE,) * TILES_KEPT
    player = replace(state.players[seat], chosen_starting_tiles=tiles)
    return with_player(state, seat, player)


@handles(STARTING_TILES_REVEALED)
def _starting_tiles_revealed(state: GameState, payload: Any) -> GameState:
    """The choices go public, with the discovery tiles dealt with the chosen tiles; a
    public fold learns them here (its hands were placeholders)."""
    players = list(state.players)
    for key, tiles in payload["choices"].items():
        seat = int(key)
        player = players[seat]
        hand = player.starting_tiles
        if NOT_A_TILE in hand:  # folded without the sealed hand: what is now known of it
            hand = (*tiles, *(NOT_A_TILE,) * (len(hand) - len(tiles)))
        players[seat] = replace(player, chosen_starting_tiles=tuple(tiles), starting_tiles=hand)
    discoveries = list(state.starting_tile_discoveries)
    for tile, discovery in payload.get("discoveries", ()):
        discoveries[tile] = discovery
    return replace(state, players=tuple(players), starting_tile_discoveries=tuple(discoveries))


# --- draft variant --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DraftStartingTile(Task):
    """Pick one face-up starting tile (draft variant, §1.2.5)."""


register_task(DraftStartingTile, "draft_starting_tile")


def _draft_options(state: GameState, task: DraftStartingTile) -> list[Action]:
    return [{"type": "draft_starting_tile", "tile": t} for t in state.starting_tile_offer]


@task_rules(
    DraftStartingTile,
    options=_draft_options,
    decision="a starting tile from the draft",
    rule="RULES.md §1.2.5",
)
def resolve_draft(ctx: Context, task: DraftStartingTile, action: Action | None) -> None:
    """Take the picked tile from the offer."""
    assert action is not None
    ctx.emit("StartingTileDrafted", seat=task.seat, tile=int(action["tile"]))


@handles("StartingTileDrafted")
def _starting_tile_drafted(state: GameState, payload: Any) -> GameState:
    seat, tile = payload["seat"], payload["tile"]
    player = state.players[seat]
    player = replace(
        player,
        starting_tiles=(*player.starting_tiles, tile),
        chosen_starting_tiles=(*player.chosen_starting_tiles, tile),
    )
    offer = tuple(t for t in state.starting_tile_offer if t != tile)
    return replace(with_player(state, seat, player), starting_tile_offer=offer)


# --- each seat's start ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetUpSeats(Task):
    """Return unchosen tiles' discovery tiles to the bag, then set up each seat in turn."""


register_task(SetUpSeats, "set_up_seats")


@task_rules(SetUpSeats, options=no_choice, decision="seat setup", rule="RULES.md §1.2.4")
def resolve_set_up_seats(ctx: Context, task: SetUpSeats, action: Action | None) -> None:
    """Unclaimed discovery tiles go back into the bag; each seat places and gains."""
    state = ctx.state
    chosen = {t for p in state.players for t in p.chosen_starting_tiles}
    returned = [
        d
        for tile, d in enumerate(state.starting_tile_discoveries)
        if d != NOT_A_TILE and tile not in chosen
    ]
    ctx.record(
        DomainEvent(
            STARTING_TILES_RETURNED,
            {"count": len(returned)},
            STARTING_TILES_RETURNED_VERSION,
            {RETURNED_DISCOVERIES: Sealed(sorted(returned), ())},
        )
    )
    per_seat: list[Task] = []
    for seat in state.turn_order:
        if state.players[seat].chosen_starting_tiles:  # solo: Teotibot has its own start
            per_seat += [PlaceStartingWorkers(seat=seat), StartingTileGains(seat=seat)]
    ctx.push(*per_seat, StartTurn(seat=state.turn_order[0]))


@handles_sealed(STARTING_TILES_RETURNED)
def _starting_tiles_returned(state: GameState, event: DomainEvent) -> GameState:
    """Unchosen tiles' discovery tiles go back into the bag, face down (sealed: which
    ones would tell which tiles the seats were dealt and did not keep)."""
    sealed = event.sealed.get(RETURNED_DISCOVERIES)
    if sealed is not None:
        returned = tuple(sealed.value)
        supply = tuple(sorted((*state.discovery_supply, *returned)))
    else:
        returned = ()
        supply = (*state.discovery_supply, *(NOT_A_TILE,) * int(event.payload["count"]))
    gone = set(returned)
    chosen = {t for p in state.players for t in p.chosen_starting_tiles}
    discoveries = tuple(
        NOT_A_TILE if d in gone or tile not in chosen else d
        for tile, d in enumerate(state.starting_tile_discoveries)
    )
    return replace(
        state,
        discovery_supply=supply,
        starting_tile_discoveries=discoveries,
        starting_tile_offer=(),
        phase="turn",
    )


@dataclass(frozen=True, slots=True)
class PlaceStartingWorkers(Task):
    """Place 3 workers at power 1 on 3 different boards printed on the two tiles (§1.2.4)."""


register_task(PlaceStartingWorkers, "place_starting_workers")


def _placement_options(state: GameState, task: PlaceStartingWorkers) -> list[Action]:
    boards: list[int] = []
    for tile in state.players[task.seat].chosen_starting_tiles:
        boards += [b for b in starting_tile(tile)["boards"] if b not in boards]
    return [
        {"type": "place_starting_workers", "boards": sorted(trio)}
        for trio in itertools.combinations(sorted(boards), WORKERS_PLACED)
    ]


@task_rules(
    PlaceStartingWorkers,
    options=_placement_options,
    decision="the boards for your 3 starting workers",
    rule="RULES.md §1.2.4",
)
def resolve_place_starting_workers(
    ctx: Context, task: PlaceStartingWorkers, action: Action | None
) -> None:
    """Put the seat's three workers on the chosen boards at power 1."""
    assert action is not None
    ctx.emit("StartingWorkersPlaced", seat=task.seat, boards=list(action["boards"]))


@handles("StartingWorkersPlaced")
def _starting_workers_placed(state: GameState, payload: Any) -> GameState:
    workers = [Worker(board=b, power=1) for b in payload["boards"]]
    waiting = state.players[payload["seat"]].workers[WORKERS_PLACED:]
    player = replace(state.players[payload["seat"]], workers=(*workers, *waiting))
    return with_player(state, payload["seat"], player)


@dataclass(frozen=True, slots=True)
class StartingTileGains(Task):
    """Gain everything printed on the seat's two starting tiles (§1.2.4)."""


register_task(StartingTileGains, "starting_tile_gains")


@task_rules(
    StartingTileGains, options=no_choice, decision="starting tile gains", rule="RULES.md §1.2.4"
)
def resolve_starting_tile_gains(
    ctx: Context, task: StartingTileGains, action: Action | None
) -> None:
    """Goods at once; temple steps with their rewards; the lowest-numbered technology for
    free with its temple step; power-ups and resource choices as decisions; a discovery
    tile may be claimed by paying its cost."""
    seat = task.seat
    follow_ups: list[Task] = []
    for tile in ctx.state.players[seat].chosen_starting_tiles:
        gain = starting_tile(tile)["gain"]
        ctx.change_goods(
            seat,
            "starting_tile",
            **{g: gain.get(g, 0) for g in ("cocoa", "wood", "stone", "gold")},
        )
        for _ in range(gain.get("avenue", 0)):
            follow_ups += advance_avenue(ctx, seat)
        for temple in TEMPLES:
            for _ in range(gain.get(f"temple_{temple}", 0)):
                follow_ups += advance_temple(ctx, seat, temple)
        for _ in range(gain.get("technology", 0)):
            follow_ups += _free_technology(ctx, seat)
        if gain.get("resources_any"):
            follow_ups.append(ResourceChoice(seat=seat, count=gain["resources_any"]))
        if gain.get("power_up"):
            follow_ups.append(PowerUps(seat=seat, board=0, count=gain["power_up"]))
        if gain.get("discovery") and ctx.state.starting_tile_discoveries[tile] != NOT_A_TILE:
            follow_ups.append(ClaimDiscovery(seat=seat, where="starting_tile", starting_tile=tile))
    ctx.push(*follow_ups)


def _free_technology(ctx: Context, seat: int) -> list[Task]:
    """A marker on the lowest-numbered technology the seat lacks, then its temple step."""
    owned = set(ctx.state.players[seat].technologies)
    free = [slot for slot in range(len(ctx.state.technologies)) if slot not in owned]
    if not free:
        return []
    slot = min(free, key=lambda s: ctx.state.technologies[s])
    ctx.emit("TechnologyAcquired", seat=seat, slot=slot, gold_paid=0)
    return advance_temple(ctx, seat, column_temple(slot))
