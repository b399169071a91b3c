"""One whole Teotibot turn (RULES.md §8 "Bot turn", D7).

The bot seat's only legal action is ``{"type": "teotibot_turn"}`` (see :mod:`.seat`).
Deciding it: (1) roll two dice from the rng (``TeotibotDiceRolled``); (2) plan and carry out
the picked tile (:mod:`.actions`); (3) shift the action pyramid by the top direction tile;
(4) flip that direction tile under the other; (5) with 10+ cocoa, return 10 for 3 VP (± the
knob); (6) end the turn: the bot is the last seat, so the ordinary round end advances the
light calendar marker (and may trigger an eclipse) exactly once.
"""

from __future__ import annotations

from ..context import Context
from ..flow import Action, task_rules
from ..state import GameState
from ..tasks import end_turn_task
from . import events  # noqa: F401  (registers the solo events' fold handlers)
from .action_pyramid import DICE_SIDES, flip, position_for, shift
from .actions import carry_out, plan
from .seat import ACTION, TeotibotTurn

COCOA_CASHED = 10
VP_PER_CASH = 3
RULE = "RULES.md §8 (Teotibot's turn)"


def _options(state: GameState, task: TeotibotTurn) -> list[Action]:
    return [dict(ACTION)]


@task_rules(
    TeotibotTurn,
    options=_options,
    decision="Teotibot's turn (the bot worker rolls its dice and acts)",
    rule=RULE,
    always_asks=True,  # each bot turn is the bot worker's own command in the log
)
def resolve_teotibot_turn(ctx: Context, task: TeotibotTurn, action: Action | None) -> None:
    """Play the whole bot turn with ordinary events, then end the turn."""
    seat = task.seat
    dice = [ctx.rng.randint(1, DICE_SIDES), ctx.rng.randint(1, DICE_SIDES)]
    position = position_for(sum(dice))
    tile = ctx.state.teotibot_tiles[position - 1]
    ctx.emit(
        "TeotibotDiceRolled", seat=seat, dice=dice, total=sum(dice), position=position, tile=tile
    )
    carry_out(ctx, seat, tile, plan(ctx.state, seat, tile))
    state = ctx.state
    direction = state.teotibot_directions[0]
    tiles, set_aside, moves = shift(
        state.teotibot_tiles, state.teotibot_set_aside, position, direction
    )
    ctx.emit(
        "TeotibotActionPyramidShifted",
        seat=seat,
        used=tile,
        direction=direction,
        moves=moves,
        tiles=list(tiles),
        set_aside=set_aside,
    )
    ctx.emit(
        "TeotibotDirectionFlipped",
        seat=seat,
        flipped=direction,
        directions=list(flip(state.teotibot_directions)),
    )
    if ctx.state.players[seat].cocoa >= COCOA_CASHED:
        vp = VP_PER_CASH + ctx.state.options.teotibot.cocoa_vp
        ctx.change_goods(seat, "teotibot_cocoa_cashed", cocoa=-COCOA_CASHED, vp=vp)
    ctx.push(end_turn_task(seat))
