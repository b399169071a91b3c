"""Game setup (RULES.md §1): the first-game layout for 2-4 seats, neutral workers included."""

from __future__ import annotations

import random
from dataclasses import dataclass

from services.engine.domain.ruleset import DomainEvent, InvalidOptions

from .components import components
from .context import Context
from .flow import run_until_decision
from .frozen import replace
from .neutral import draw_neutral_placement, neutral_colour_count
from .options import GameOptions
from .public_setup import setup_event
from .starting_tiles import deal_starting_tiles, opening_tasks, standard_board
from .state import NOT_IN_PLAY, GameState, Player, Worker
from .tasks import StartTurn, task_to_dict
from .technologies import column_temple
from .temples import advance_temple
from .tracks import advance_avenue

MIN_SEATS, MAX_SEATS = 2, 4
FOURTH_WORKER_WAITING_POWER = 3


@dataclass(frozen=True, slots=True)
class FirstGameSeat:
    """The predetermined start of one seat in the first game (RULES.md §1.2.3).

    Attributes:
        goods: cocoa (on top of the starting cocoa), wood, stone, gold.
        temples: temple steps taken in order (each gives its reward).
        avenue: Avenue of the Dead steps.
        technology_slot: technology slot marked for free (its column's temple step follows).
        workers: (board, power) of the three starting workers.
    """

    goods: dict[str, int]
    temples: tuple[str, ...]
    workers: tuple[tuple[int, int], ...]
    avenue: int = 0
    technology_slot: int | None = None


FIRST_GAME_SEATS: tuple[FirstGameSeat, ...] = (
    FirstGameSeat(
        {"cocoa": 5, "wood": 1, "stone": 2, "gold": 4}, ("green",), ((6, 2), (2, 1), (8, 1))
    ),
    FirstGameSeat({"cocoa": 5, "wood": 4, "stone": 1}, ("red", "blue"), ((7, 2), (2, 1), (3, 1))),
    FirstGameSeat(
        {"cocoa": 4, "wood": 3, "stone": 4}, ("blue",), ((1, 1), (2, 1), (7, 1)), avenue=1
    ),
    FirstGameSeat({"wood": 2, "gold": 5}, ("green",), ((3, 1), (4, 1), (5, 1)), technology_slot=2),
)
"""Seats 1-4 in turn order. Seat 2's blue step takes stone, seat 3's takes gold (§1.2.3)."""

FIRST_GAME_BLUE_RESOURCE = {1: "stone", 2: "gold"}
"""Turn position → the resource the first-game seat takes on its blue temple step."""


def starting_cocoa(position: int, seat_count: int) -> int:
    """RULES.md §1.2.1, D1: first seat 1, last seat 3, the others 2."""
    table = components().raw["starting_cocoa"]
    if position == 0:
        return int(table["first"])
    if position == seat_count - 1:
        return int(table["last"])
    return int(table["middle"])


def set_up(seat_count: int, options: GameOptions, rng: random.Random) -> list[DomainEvent]:
    """Opening events: ``GameSetUp`` with the whole first state, then the first decisions
    (the first turn, or choosing starting tiles in the standard setup).

    Raises:
        InvalidOptions: seat count outside 2-4, or options not supported.
    """
    if not MIN_SEATS <= seat_count <= MAX_SEATS:
        raise InvalidOptions(
            "seat_count", f"RULES.md §1: Teotihuacan seats 2 to 4 players, not {seat_count}"
        )
    if options.first_game and options.draft_starting_tiles:
        raise InvalidOptions(
            "setup_mode",
            "RULES.md §1.2.5: the starting-tile draft needs the standard setup "
            "(first_game false); the first game has predetermined seats",
        )
    state = _board(seat_count, options, rng)
    ctx = Context(state, rng)
    ctx.record(setup_event(state))
    ctx.agenda = []
    if options.first_game:
        _grant_first_game_seats(ctx)
        ctx.push(StartTurn(seat=state.turn_order[0]))
    else:
        ctx.push(*opening_tasks(state))
    run_until_decision(ctx)
    ctx.emit("AgendaUpdated", agenda=[task_to_dict(t) for t in ctx.agenda])
    return ctx.events


def _board(seat_count: int, options: GameOptions, rng: random.Random) -> GameState:
    """The board and seats before any seat-specific start (§1.1, §1.2.1-2, §1.2.6)."""
    tables = components().raw
    first = rng.randrange(seat_count)
    turn_order = tuple((first + k) % seat_count for k in range(seat_count))
    players = [Player() for _ in range(seat_count)]
    for position, seat in enumerate(turn_order):
        if options.first_game:
            layout = FIRST_GAME_SEATS[position]
            workers = tuple(Worker(board=b, power=p) for b, p in layout.workers)
        else:  # placed after the starting tiles are chosen
            workers = tuple(Worker(board=NOT_IN_PLAY, power=1) for _ in range(3))
        players[seat] = Player(
            cocoa=starting_cocoa(position, seat_count),
            workers=(*workers, Worker(board=NOT_IN_PLAY, power=FOURTH_WORKER_WAITING_POWER)),
        )
    state = GameState(
        options=options,
        players=tuple(players),
        turn_order=turn_order,
        current=turn_order[0],
        rondel=tuple(tables["rondel_first_game"]),
        light=0,
        dark=components().dark_start(seat_count),
        technologies=tuple(tables["technology_first_game"]),
        royal_tiles=tuple(tables["royal_first_game"]),
        temple_bonus=tuple(tables["temple_bonus_first_game"][t] for t in ("blue", "red", "green")),
    )
    if not options.first_game:
        state = standard_board(state, rng)
    state = lay_out_supplies(state, rng)
    if not options.first_game:
        state = deal_starting_tiles(state, rng)
    dealt = frozenset(
        [*state.starting_tile_offer, *(t for p in state.players for t in p.starting_tiles)]
    )
    colours = neutral_colour_count(seat_count)
    neutral, _ = draw_neutral_placement(rng, seat_count, colours, dealt) if colours else ([], [])
    return replace(state, neutral_workers=tuple((c, b) for c, b in neutral))


def _draw(rng: random.Random, supply: list[int], count: int) -> list[int]:
    """Draw ``count`` tiles at random from ``supply`` (removed from it)."""
    drawn = []
    for _ in range(count):
        drawn.append(supply.pop(rng.randrange(len(supply))))
    return drawn


def _major_step_count(formula: str, players: int) -> int:
    return {"players": players, "players+1": players + 1, "players-1": players - 1}[formula]


def lay_out_supplies(state: GameState, rng: random.Random) -> GameState:
    """RULES.md §1.1.7-8: pre-placed pyramid tiles, the offers, and the discovery tiles.

    Pre-placed pyramid tiles are drawn and rotated at random and score for nobody.
    """
    tables = components().raw
    players = state.seat_count
    pyramid_supply = list(range(len(tables["pyramid"]["tiles"])))
    placed: list[tuple[int, int, int, int, int]] = []
    for level, slots in sorted(tables["pyramid"]["setup_slots"][str(players)].items()):
        for row, column in slots:
            (tile,) = _draw(rng, pyramid_supply, 1)
            placed.append((int(level), row, column, tile, rng.randrange(4)))
    pyramid_offer = _draw(rng, pyramid_supply, tables["pyramid"]["offer_size"])
    decoration_supply = list(range(len(tables["decorations"]["tiles"])))
    decoration_offer = _draw(rng, decoration_supply, tables["decorations"]["offer_size"])
    discovery_supply = list(range(len(tables["discovery_tiles"])))
    worship = [-1] * 9
    for board in tables["discovery_setup"]["worship_spaces"]:
        (worship[board],) = _draw(
            rng, discovery_supply, tables["discovery_setup"]["per_worship_space"]
        )
    avenue: list[tuple[int, ...]] = [()] * 10
    for step, count in tables["discovery_setup"]["avenue"].items():
        avenue[int(step)] = tuple(_draw(rng, discovery_supply, count))
    temples: list[tuple[tuple[int, ...], ...]] = []
    for temple in ("blue", "red", "green"):
        steps: list[tuple[int, ...]] = [()] * 12
        for step, formula in components().temple_major_steps(temple).items():
            steps[step] = tuple(
                _draw(rng, discovery_supply, _major_step_count(formula, max(players, 2)))
            )
        temples.append(tuple(steps))
    return replace(
        state,
        pyramid_tiles=tuple(placed),
        pyramid_offer=tuple(pyramid_offer),
        pyramid_supply=tuple(sorted(pyramid_supply)),
        decoration_offer=tuple(decoration_offer),
        decoration_supply=tuple(sorted(decoration_supply)),
        discovery_supply=tuple(sorted(discovery_supply)),
        worship_discoveries=tuple(worship),
        avenue_discoveries=tuple(avenue),
        temple_discoveries=tuple(temples),
    )


def _grant_first_game_seats(ctx: Context) -> None:
    """The predetermined goods, steps and technology of each seat, as ordinary events."""
    for position, seat in enumerate(ctx.state.turn_order):
        layout = FIRST_GAME_SEATS[position]
        ctx.change_goods(seat, "setup", **layout.goods)
        for _ in range(layout.avenue):
            advance_avenue(ctx, seat)
        for temple in layout.temples:
            _setup_temple_step(ctx, seat, position, temple)
        if layout.technology_slot is not None:
            slot = layout.technology_slot
            ctx.emit("TechnologyAcquired", seat=seat, slot=slot, gold_paid=0)
            _setup_temple_step(ctx, seat, position, column_temple(slot))


def _setup_temple_step(ctx: Context, seat: int, position: int, temple: str) -> None:
    # The first-game layout fixes which resource the blue step gives (§1.2.3).
    for follow_up in advance_temple(ctx, seat, temple):
        resource = FIRST_GAME_BLUE_RESOURCE.get(position, "gold")
        for _ in range(getattr(follow_up, "count", 1)):
            ctx.change_goods(seat, "temple_blue", **{resource: 1})
