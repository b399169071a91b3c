"""Royal tiles: the worship abilities of the Palace (1) (RULES.md §3, components ``royal_tiles``).

N is the power of the worker just locked on the Palace worship space. The ability is
mandatory, but "up to N times" lets the seat choose how many (0 included), and a "once"
trade may be declined. Task :class:`RoyalAbility`; its actions by effect:

- ``cocoa_power_plus_one``, ``vp_per_technology``, ``vp_per_pyramid_step``,
  ``vp_per_avenue_step``: no choice.
- ``trade_cocoa_for_wood_stone`` / ``trade_cocoa_for_gold_stone``:
  ``{"type": "royal_trade", "times": k}``, k = 0..min(N, cocoa).
- ``trade_resource_for_2_cocoa``: one trade at a time, ``{"type": "royal_trade",
  "resource": r}`` (r in hand) or ``{"type": "royal_trade_done"}``; up to N trades.
- ``trade_cocoa_resource_for_resources``: ``{"type": "royal_trade", "resource": r}``
  (pay 1 cocoa and r, then N resource choices) or ``{"type": "royal_trade_done"}``.
- ``trade_cocoa_for_temple``: one at a time, ``{"type": "royal_temple", "temple": t}``
  (pay 1 cocoa, one step there, resolved fully) or ``{"type": "royal_trade_done"}``;
  up to N-1 times.

The trades' cocoa is part of the ability, not a worship payment: a free cocoa payment
tile doesn't cover it (D11 names only displacing and "both").
"""

from __future__ import annotations

from dataclasses import dataclass

from .components import RESOURCES, components
from .context import Context
from .flow import Action, task_rules
from .state import GameState
from .tasks import ResourceChoice, Task, register_task
from .temples import advance_temple, advanceable_temples

TRADE_COCOA = 1
COCOA_PER_RESOURCE = 2
NO_CHOICE = frozenset(
    {"cocoa_power_plus_one", "vp_per_technology", "vp_per_pyramid_step", "vp_per_avenue_step"}
)
PAIR_TRADES = {
    "trade_cocoa_for_wood_stone": ("wood", "stone"),
    "trade_cocoa_for_gold_stone": ("gold", "stone"),
}


def royal_effect(tile: int) -> str:
    """Effect key of royal tile ``tile``."""
    return str(components().raw["royal_tiles"][tile]["effect"])


@dataclass(frozen=True, slots=True)
class RoyalAbility(Task):
    """Resolve royal tile ``tile`` with N = ``power``; ``done`` trades already made."""

    tile: int
    power: int
    done: int = 0


register_task(RoyalAbility, "royal_ability")


def _limit(effect: str, power: int) -> int:
    return power - 1 if effect == "trade_cocoa_for_temple" else power


def _options(state: GameState, task: RoyalAbility) -> list[Action] | None:
    effect = royal_effect(task.tile)
    player = state.players[task.seat]
    if effect in NO_CHOICE:
        return None
    done: list[Action] = [{"type": "royal_trade_done"}]
    if effect in PAIR_TRADES:
        most = min(task.power, player.cocoa)
        return [{"type": "royal_trade", "times": k} for k in range(most + 1)]
    if task.done >= _limit(effect, task.power):
        return []
    if effect == "trade_resource_for_2_cocoa":
        held = [r for r in RESOURCES if player.amount(r) > 0]
        return [*({"type": "royal_trade", "resource": r} for r in held), *done]
    if player.cocoa < TRADE_COCOA:
        return []
    if effect == "trade_cocoa_resource_for_resources":
        held = [r for r in RESOURCES if player.amount(r) > 0]
        return [*({"type": "royal_trade", "resource": r} for r in held), *done]
    if effect == "trade_cocoa_for_temple":
        temples = advanceable_temples(state, task.seat)
        return [*({"type": "royal_temple", "temple": t} for t in temples), *done]
    raise ValueError(f"unknown royal tile effect {effect}")


@task_rules(
    RoyalAbility,
    options=_options,
    decision="how to use the royal tile",
    rule="RULES.md §3 (Worship: Palace royal tiles)",
)
def resolve_royal_ability(ctx: Context, task: RoyalAbility, action: Action | None) -> None:
    """Apply the royal tile's effect (or one trade of it, then offer the next)."""
    seat, power = task.seat, task.power
    effect = royal_effect(task.tile)
    player = ctx.state.players[seat]
    reason = f"royal_tile_{task.tile}"
    if effect == "cocoa_power_plus_one":
        ctx.change_goods(seat, reason, cocoa=power + 1)
    elif effect == "vp_per_technology":
        ctx.change_goods(seat, reason, vp=2 * min(len(player.technologies), power))
    elif effect == "vp_per_pyramid_step":
        ctx.change_goods(seat, reason, vp=2 * min(player.pyramid, power))
    elif effect == "vp_per_avenue_step":
        ctx.change_goods(seat, reason, vp=min(player.avenue, power + 1))
    elif action is None or action["type"] == "royal_trade_done":
        return
    elif effect in PAIR_TRADES:
        times = int(action["times"])
        first, second = PAIR_TRADES[effect]
        ctx.change_goods(seat, reason, cocoa=-times, **{first: times, second: times})
    elif effect == "trade_resource_for_2_cocoa":
        ctx.change_goods(seat, reason, cocoa=COCOA_PER_RESOURCE, **{str(action["resource"]): -1})
        ctx.push(RoyalAbility(seat=seat, tile=task.tile, power=power, done=task.done + 1))
    elif effect == "trade_cocoa_resource_for_resources":
        ctx.change_goods(seat, reason, cocoa=-TRADE_COCOA, **{str(action["resource"]): -1})
        ctx.push(ResourceChoice(seat=seat, count=power))
    elif effect == "trade_cocoa_for_temple":
        ctx.change_goods(seat, reason, cocoa=-TRADE_COCOA)
        follow_ups: list[Task] = advance_temple(ctx, seat, str(action["temple"]))
        nxt = RoyalAbility(seat=seat, tile=task.tile, power=power, done=task.done + 1)
        ctx.push(*follow_ups, nxt)
