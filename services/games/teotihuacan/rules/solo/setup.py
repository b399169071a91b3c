"""Solo setup (RULES.md §8, D5): a 2-player board for the human (seat 0) and Teotibot (seat 1).

- Board as for 2 players: two neutral colours, dark marker at 10 (§1.1.5).
- The human is the first seat (1 cocoa); with ``first_game`` it gets the first seat's
  predetermined start, otherwise it chooses starting tiles (secret choice; the draft
  variant needs two drafting seats and is refused).
- Teotibot: 2 wood, 2 stone, 2 gold, no cocoa (± the resources knob); Pyramid track 0;
  step 1 on each temple and on the Avenue without rewards; a marker on the top-right
  technology (slot 2) without the temple step; workers at power 2 (± the knobs) on Gold
  Deposits (4), Nobles (6), Construction (8) in the general areas, and one at power 1
  locked on the Decorations (7) worship space (D5). It has all 4 dice in play, so no 4th
  worker ever joins.
- Its action pyramid: 6 of the 7 action tiles at random, the 7th set aside; the two
  direction tiles stacked with random sides up (all random outcomes are in ``GameSetUp``'s
  state, D7).
"""

from __future__ import annotations

import random

from services.engine.domain.ruleset import DomainEvent, InvalidOptions

from ..components import NOT_A_TILE
from ..context import Context
from ..flow import run_until_decision
from ..frozen import replace
from ..options import GameOptions
from ..public_setup import setup_event
from ..setup import FIRST_GAME_SEATS, _board, _setup_temple_step, starting_cocoa
from ..starting_tiles import opening_tasks
from ..state import NOT_IN_PLAY, GameState, Player, Worker
from ..tasks import StartTurn, task_to_dict
from .action_pyramid import DIRECTIONS
from .seat import ACTION_TILES, HUMAN_SEAT, SOLO_SEATS, TEOTIBOT_SEAT

PYRAMID_SIZE = 6
BOT_RESOURCES = 2
BOT_WORKER_POWER = 2
BOT_LOCKED_POWER = 1
BOT_TECHNOLOGY_SLOT = 2
"""The top-right technology."""
DECORATIONS = 7
FOURTH_DIE_POWER = 3


def set_up_solo(seat_count: int, options: GameOptions, rng: random.Random) -> list[DomainEvent]:
    """Opening events of a solo game: ``GameSetUp``, the human's start, then its first
    decision. Raises InvalidOptions for a seat count other than 2 or the draft variant."""
    if seat_count != SOLO_SEATS:
        raise InvalidOptions(
            "seat_count",
            f"RULES.md §8: a solo game has 2 seats (seat 0 the human, seat 1 Teotibot, "
            f"created as a bot seat), not {seat_count}",
        )
    if options.draft_starting_tiles:
        raise InvalidOptions(
            "setup_mode", "RULES.md §8: the starting-tile draft needs two drafting seats"
        )
    state = solo_board(options, rng)
    ctx = Context(state, rng)
    ctx.record(setup_event(state))
    ctx.agenda = []
    if options.first_game:
        layout = FIRST_GAME_SEATS[0]
        ctx.change_goods(HUMAN_SEAT, "setup", **layout.goods)
        for temple in layout.temples:
            _setup_temple_step(ctx, HUMAN_SEAT, 0, temple)
        ctx.push(StartTurn(seat=HUMAN_SEAT))
    else:
        ctx.push(*opening_tasks(ctx.state))
    run_until_decision(ctx)
    ctx.emit("AgendaUpdated", agenda=[task_to_dict(t) for t in ctx.agenda])
    return ctx.events


def solo_board(options: GameOptions, rng: random.Random) -> GameState:
    """The 2-player board with the human first and Teotibot set up (see module docstring)."""
    state = _board(SOLO_SEATS, options, rng)
    # The bot never chooses starting tiles: its dealt hand and their discovery tiles go back.
    returned = [
        state.starting_tile_discoveries[t]
        for t in state.players[TEOTIBOT_SEAT].starting_tiles
        if state.starting_tile_discoveries[t] != NOT_A_TILE
    ]
    discoveries = tuple(NOT_A_TILE if d in returned else d for d in state.starting_tile_discoveries)
    human_workers: tuple[Worker, ...]
    if options.first_game:
        human_workers = tuple(Worker(board=b, power=p) for b, p in FIRST_GAME_SEATS[0].workers)
    else:
        human_workers = tuple(Worker(board=NOT_IN_PLAY, power=1) for _ in range(3))
    human = Player(
        cocoa=starting_cocoa(0, SOLO_SEATS),
        workers=(*human_workers, Worker(board=NOT_IN_PLAY, power=FOURTH_DIE_POWER)),
        starting_tiles=state.players[HUMAN_SEAT].starting_tiles,
    )
    tiles = list(ACTION_TILES)
    rng.shuffle(tiles)
    directions = tuple(rng.choice(DIRECTIONS) for _ in range(2))
    return replace(
        state,
        players=(human, teotibot_player(options)),
        turn_order=(HUMAN_SEAT, TEOTIBOT_SEAT),
        current=HUMAN_SEAT,
        starting_tile_discoveries=discoveries,
        discovery_supply=tuple(sorted((*state.discovery_supply, *returned))),
        teotibot_tiles=tuple(tiles[:PYRAMID_SIZE]),
        teotibot_set_aside=tiles[PYRAMID_SIZE],
        teotibot_directions=directions,
    )


def teotibot_player(options: GameOptions) -> Player:
    """Teotibot's starting goods, steps, technology and workers (§8, D5, difficulty knobs)."""
    knobs = options.teotibot
    resources = BOT_RESOURCES + knobs.resources
    return Player(
        cocoa=0,
        wood=resources,
        stone=resources,
        gold=resources,
        temples=(1, 1, 1),
        avenue=1,
        technologies=(BOT_TECHNOLOGY_SLOT,),
        workers=(
            Worker(board=4, power=BOT_WORKER_POWER + knobs.power_gold_deposits),
            Worker(board=6, power=BOT_WORKER_POWER + knobs.power_nobles),
            Worker(board=8, power=BOT_WORKER_POWER + knobs.power_construction),
            Worker(board=DECORATIONS, power=BOT_LOCKED_POWER, locked=True, space=0),
        ),
    )
