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

Zero trades are legal (D16): worshipping on a royal tile needs no cocoa; the worker is
locked there and trades nothing.

The trades' cocoa is a payment of the worship (D11): one free-cocoa-payment discovery tile
covers every cocoa of one worship, its royal tile's trades included ("royal tile 1 at
power 3 gives 3 wood + 3 stone for no cocoa"). ``free`` marks a worship whose tile was
already spent (on displacing or "both"); otherwise an active tile is spent on the first
trade that charges cocoa and covers the tile's later trades.
"""

from __future__ import annotations

from dataclasses import dataclass

from .components import RESOURCES, components
from .context import Context
from .flow import Action, task_rules
from .main_action import FREE_COCOA_PAYMENT, has_effect, use_effect
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
    """Resolve royal tile ``tile`` with N = ``power``; ``done`` trades already made;
    ``free``: a free cocoa payment covers this worship's trades (D11)."""

    tile: int
    power: int
    done: int = 0
    free: bool = False


register_task(RoyalAbility, "royal_ability", later_fields={"free": False})


def _limit(effect: str, power: int) -> int:
    return power - 1 if effect == "trade_cocoa_for_temple" else power


def trades_cost_nothing(state: GameState, task: RoyalAbility) -> bool:
    """True if the trades' cocoa is covered (D11): by the worship's spent free-cocoa-payment
    tile, or by an active one that the first cocoa-charging trade will spend."""
    return task.free or has_effect(state, task.seat, FREE_COCOA_PAYMENT)


def _trade_cocoa(ctx: Context, task: RoyalAbility, cocoa: int) -> tuple[int, bool]:
    """(cocoa the seat pays for a trade charging ``cocoa``, whether the tile's later trades
    are covered): an active free-cocoa-payment tile is spent here for the whole worship (D11)."""
    if task.free:
        return 0, True
    if cocoa and has_effect(ctx.state, task.seat, FREE_COCOA_PAYMENT):
        use_effect(ctx, task.seat, FREE_COCOA_PAYMENT)
        return 0, True
    return cocoa, False


def _options(state: GameState, task: RoyalAbility) -> list[Action] | None:
    effect = royal_effect(task.tile)
    player = state.players[task.seat]
    if effect in NO_CHOICE:
        return None
    done: list[Action] = [{"type": "royal_trade_done"}]
    free = trades_cost_nothing(state, task)
    if effect in PAIR_TRADES:
        most = task.power if free else min(task.power, player.cocoa)
        return [{"type": "royal_trade", "times": k} for k in range(most + 1)]
    if task.done >= _limit(effect, task.power):
        return []
    if effect == "trade_resource_for_2_cocoa":
        held = [r for r in RESOURCES if player.amount(r) > 0]
        return [*({"type": "royal_trade", "resource": r} for r in held), *done]
    if player.cocoa < TRADE_COCOA and not free:
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
        paid, _ = _trade_cocoa(ctx, task, times)
        ctx.change_goods(seat, reason, cocoa=-paid, **{first: times, second: times})
    elif effect == "trade_resource_for_2_cocoa":
        ctx.change_goods(seat, reason, cocoa=COCOA_PER_RESOURCE, **{str(action["resource"]): -1})
        done_now = task.done + 1
        ctx.push(
            RoyalAbility(seat=seat, tile=task.tile, power=power, done=done_now, free=task.free)
        )
    elif effect == "trade_cocoa_resource_for_resources":
        paid, _ = _trade_cocoa(ctx, task, TRADE_COCOA)
        ctx.change_goods(seat, reason, cocoa=-paid, **{str(action["resource"]): -1})
        ctx.push(ResourceChoice(seat=seat, count=power))
    elif effect == "trade_cocoa_for_temple":
        paid, free = _trade_cocoa(ctx, task, TRADE_COCOA)
        ctx.change_goods(seat, reason, cocoa=-paid)
        follow_ups: list[Task] = advance_temple(ctx, seat, str(action["temple"]))
        nxt = RoyalAbility(seat=seat, tile=task.tile, power=power, done=task.done + 1, free=free)
        ctx.push(*follow_ups, nxt)
