"""Fold handlers of the solo mode's own events (RULES.md §8).

- ``TeotibotDiceRolled{seat, dice, total, position, tile}``: the roll (D7) and the tile it
  picks; nothing changes by itself.
- ``TeotibotActionChosen{seat, tile, step, board, worker, reason}``: why the bot does what
  follows (see :mod:`.actions`); nothing changes by itself.
- ``TeotibotActionPyramidShifted{seat, used, direction, moves, tiles, set_aside}``: the new
  pyramid layout and set-aside tile.
- ``TeotibotDirectionFlipped{seat, flipped, directions}``: the new stack, top first.
- ``TeotibotWorkerRelocated{seat, worker, from_board, to_board}``: the bot's worker is
  locked on ``to_board``'s worship space.
- ``TeotibotDiscoveryDiscarded{seat, board, tile}``: the tile leaves that worship area.
- ``TeotibotFinalScored{seat, cocoa, resources, technologies, vp}``: final extra VP.
"""

from __future__ import annotations

from ..evolve import Payload, handles
from ..frozen import replace, with_player
from ..state import GameState


@handles("TeotibotDiceRolled")
def _dice_rolled(state: GameState, payload: Payload) -> GameState:
    return state


@handles("TeotibotActionChosen")
def _action_chosen(state: GameState, payload: Payload) -> GameState:
    return state


@handles("TeotibotActionPyramidShifted")
def _pyramid_shifted(state: GameState, payload: Payload) -> GameState:
    return replace(
        state, teotibot_tiles=tuple(payload["tiles"]), teotibot_set_aside=payload["set_aside"]
    )


@handles("TeotibotDirectionFlipped")
def _direction_flipped(state: GameState, payload: Payload) -> GameState:
    return replace(state, teotibot_directions=tuple(payload["directions"]))


@handles("TeotibotWorkerRelocated")
def _worker_relocated(state: GameState, payload: Payload) -> GameState:
    player = state.players[payload["seat"]]
    workers = list(player.workers)
    workers[payload["worker"]] = replace(
        workers[payload["worker"]], board=payload["to_board"], locked=True, space=0
    )
    return with_player(state, payload["seat"], replace(player, workers=tuple(workers)))


@handles("TeotibotDiscoveryDiscarded")
def _discovery_discarded(state: GameState, payload: Payload) -> GameState:
    worship = list(state.worship_discoveries)
    worship[payload["board"]] = -1
    return replace(
        state,
        worship_discoveries=tuple(worship),
        discarded_discoveries=(*state.discarded_discoveries, payload["tile"]),
    )


@handles("TeotibotFinalScored")
def _final_scored(state: GameState, payload: Payload) -> GameState:
    player = state.players[payload["seat"]]
    return with_player(state, payload["seat"], replace(player, vp=player.vp + payload["vp"]))
