"""Flipping discovery tiles: a free action during the owner's turn (RULES.md §2, §4, D12).

Action: ``{"type": "flip_discovery", "tile": id}``, listed once per unused non-mask tile at
every decision of the seat during its own normal turn (repeatable); during the eclipse
salary only ``cocoa`` and ``free_cocoa_payment`` tiles may be flipped (D12).

Event: ``DiscoveryFlipped{seat, tile, effect}`` moves the tile to ``used_discoveries``;
turn effects (``double_move``, ``teleport``, ``free_cocoa_payment``, ``extra_worker``) are
added to ``player.active_effects`` until used (``DiscoveryEffectUsed``) or the turn ends
(``DiscoveryEffectsExpired``). Immediate effects: ``vp`` (+amount VP), ``cocoa`` (+4),
``resources_any`` (a resource choice per resource), ``avenue_step``, ``temple_any``,
``temple`` (fixed colour), ``power_up`` (two power-ups on any unlocked workers).

Stacking: several flipped tiles of one kind stay active side by side; each is spent by
one use (two double-moves move two more workers with the same move; two free cocoa
payments cover two payments).
"""

from __future__ import annotations

from typing import Final

from .context import Context
from .discovery import MASK, tile_data, tile_kind
from .evolve import Payload, handles
from .flow import Action, free_action
from .frozen import replace, with_player
from .state import GameState
from .tasks import (
    ResourceChoice,
    Salary,
    Task,
    power_ups_task,
    temple_steps_task,
)
from .tracks import advance_avenue

TURN_EFFECTS: Final = frozenset({"double_move", "teleport", "free_cocoa_payment", "extra_worker"})
SALARY_FLIPS: Final = frozenset({"cocoa", "free_cocoa_payment"})
"""RULES.md D12: the only tiles that may be flipped during the salary step."""


def _flip_options(state: GameState, seat: int, task: Task) -> list[Action]:
    player = state.players[seat]
    if not player.discoveries:  # the usual case, asked at every decision of the seat
        return []
    if isinstance(task, Salary):
        allowed = SALARY_FLIPS
    elif state.phase == "turn" and state.current == seat:
        allowed = None
    else:
        return []
    return [
        {"type": "flip_discovery", "tile": tile}
        for tile in sorted(set(player.discoveries))
        if tile_kind(tile) != MASK and (allowed is None or tile_kind(tile) in allowed)
    ]


@free_action(
    "flip_discovery",
    _flip_options,
    "RULES.md §2, §4 (flipping discovery tiles)",
    holds_single_option=True,
)
def flip_discovery(ctx: Context, seat: int, action: Action) -> None:
    """Flip one unused discovery tile and apply its effect at once."""
    tile = int(action["tile"])
    data = tile_data(tile)
    kind = str(data["kind"])
    ctx.emit("DiscoveryFlipped", seat=seat, tile=tile, effect=kind)
    amount = int(data.get("amount", 0))
    follow_ups: list[Task] = []
    if kind == "vp":
        ctx.change_goods(seat, "discovery_vp", vp=amount)
    elif kind == "cocoa":
        ctx.change_goods(seat, "discovery_cocoa", cocoa=amount)
    elif kind == "resources_any":
        follow_ups.append(ResourceChoice(seat=seat, count=amount))
    elif kind == "avenue_step":
        for _ in range(amount):
            follow_ups.extend(advance_avenue(ctx, seat))
    elif kind == "temple_any":
        follow_ups.append(temple_steps_task(seat, "", amount))
    elif kind == "temple":
        follow_ups.append(temple_steps_task(seat, str(data["temple"]), amount))
    elif kind == "power_up":
        follow_ups.append(power_ups_task(seat, 0, amount))
    ctx.push(*follow_ups)


@handles("DiscoveryFlipped")
def _discovery_flipped(state: GameState, payload: Payload) -> GameState:
    seat, tile = payload["seat"], payload["tile"]
    player = state.players[seat]
    unused = list(player.discoveries)
    unused.remove(tile)
    effects = player.active_effects
    if payload["effect"] in TURN_EFFECTS:
        effects = (*effects, payload["effect"])
    player = replace(
        player,
        discoveries=tuple(unused),
        used_discoveries=(*player.used_discoveries, tile),
        active_effects=effects,
    )
    return with_player(state, seat, player)


@handles("DiscoveryEffectsExpired")
def _discovery_effects_expired(state: GameState, payload: Payload) -> GameState:
    player = replace(state.players[payload["seat"]], active_effects=())
    return with_player(state, payload["seat"], player)
