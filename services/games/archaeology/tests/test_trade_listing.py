"""The market kinds listed at a trade step are exactly those ``can_choose`` allows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.market import can_choose, choosable_kinds
from services.games.archaeology.rules.state import TradePending

from .builders import COMP, KINDS

counts = st.tuples(*(st.integers(min_value=0, max_value=6) for _ in KINDS))


@settings(max_examples=400, deadline=None)
@given(market=counts, give=counts, take=counts)
def test_choosable_kinds_are_the_kinds_can_choose_allows(
    market: c.Cards, give: c.Cards, take: c.Cards
) -> None:
    trade = TradePending(give=give, take=take)
    expected = [k for k in range(len(KINDS)) if can_choose(COMP, market, trade, k)]
    assert choosable_kinds(COMP, market, trade) == expected
