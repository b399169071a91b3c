"""Trading at the market (RULES.md A3.2, E8), one card at a time.

A trade is put together step by step so that every legal step can be listed exactly: offer
cards from the hand, choose market cards whose total trade value stays within what is
offered, then confirm (or cancel, which changes nothing). Only the confirmed trade moves
cards; every step is public (A5).
"""

from __future__ import annotations

from typing import Any

from . import cards as c
from .components import Components
from .dig import kind_of
from .play import Play, refuse
from .state import TradePending


def offer(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Add one card of the hand to the trade (starting one if none is open).

    Raises RuleViolation ``card_not_in_hand`` when no such card is left to offer.
    """
    kind = kind_of(play, action)
    trade = play.state.pending
    offered = trade.give[kind] if isinstance(trade, TradePending) else 0
    if play.state.seats[seat].hand[kind] <= offered:
        raise refuse(
            "card_not_in_hand", f"RULES.md A3.2: you have no more {play.kind_name(kind)} to offer"
        )
    play.emit("TradeCardOffered", seat=seat, kind=play.kind_name(kind))


def can_choose(comp: Components, market: c.Cards, trade: TradePending, kind: int) -> bool:
    """True if ``market`` still has a ``kind`` card and taking it keeps the trade's value
    within what is offered (E8)."""
    if market[kind] <= trade.take[kind]:
        return False
    wanted = c.value(trade.take, comp.trade) + comp.trade[kind]
    return wanted <= c.value(trade.give, comp.trade)


def choosable_kinds(comp: Components, market: c.Cards, trade: TradePending) -> list[int]:
    """Every kind :func:`can_choose` allows, in kind order; the trade's two values are
    computed once for all kinds (the legal actions of every trade step list them)."""
    trade_values = comp.trade
    room = c.value(trade.give, trade_values) - c.value(trade.take, trade_values)
    take = trade.take
    return [
        kind
        for kind, in_market in enumerate(market)
        if in_market > take[kind] and trade_values[kind] <= room
    ]


def choose(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Add one market card to what the trade takes.

    Raises RuleViolation ``not_in_market`` or ``trade_value_exceeded`` (A3.2, E8).
    """
    kind = kind_of(play, action)
    trade = play.state.pending
    assert isinstance(trade, TradePending)
    if play.state.market[kind] <= trade.take[kind]:
        raise refuse(
            "not_in_market", f"RULES.md A3.2: no more {play.kind_name(kind)} in the market"
        )
    if not can_choose(play.comp, play.state.market, trade, kind):
        raise refuse(
            "trade_value_exceeded",
            "RULES.md A3.2, E8: the cards taken may total at most the trade value given"
            f" ({c.value(trade.give, play.comp.trade)})",
        )
    play.emit("TradeCardChosen", seat=seat, kind=play.kind_name(kind))


def confirm(play: Play, seat: int) -> None:
    """Make the trade: the offered cards join the market, the chosen ones the hand.

    Raises RuleViolation ``empty_trade`` if it gives or takes no card (A8).
    """
    trade = play.state.pending
    assert isinstance(trade, TradePending)
    if not c.size(trade.give) or not c.size(trade.take):
        raise refuse("empty_trade", "RULES.md A3.2, A8: a trade gives and takes at least one card")
    kinds = play.comp.kinds
    play.emit(
        "TradeMade",
        seat=seat,
        given=c.to_json(trade.give, kinds),
        taken=c.to_json(trade.take, kinds),
    )


def cancel(play: Play, seat: int) -> None:
    """Give up the trade being put together; no card moves."""
    play.emit("TradeCancelled", seat=seat)
