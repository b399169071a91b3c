"""Market trades (A3.2, E8) and museum sales (A3.2, E9, E13), expectations from the data."""

from __future__ import annotations

import pytest

from services.engine.domain.ruleset import RuleViolation

from .builders import COMP, KINDS, RULES, cards, hand, kind, play, state, types


def _kinds_by_value() -> tuple[str, str, str]:
    """(a cheap kind, a kind of equal value to another, a dearer kind) from the data."""
    trade = dict(zip(KINDS, COMP.trade, strict=True))
    cheap = min(trade, key=lambda k: trade[k])
    dear = max(trade, key=lambda k: trade[k])
    return cheap, dear, next(k for k in KINDS if trade[k] == trade[dear] and k != dear)


def test_a_trade_may_take_equal_or_lower_value_and_no_change_is_given() -> None:
    cheap, dear, dear_twin = _kinds_by_value()
    game = state([cards(**{dear: 1}), cards()], market=cards(**{dear_twin: 1, cheap: 1}))
    game, _ = play(game, 0, {"type": "offer", "kind": dear})
    # Both the equal-valued and the cheaper card fit, each alone.
    chosen = {a["kind"] for a in RULES.legal_actions(game, 0) if a["type"] == "choose"}
    assert chosen == {dear_twin, cheap}
    game, _ = play(game, 0, {"type": "choose", "kind": cheap})
    if COMP.trade[kind(cheap)] + COMP.trade[kind(dear_twin)] > COMP.trade[kind(dear)]:
        with pytest.raises(RuleViolation) as refused:
            play(game, 0, {"type": "choose", "kind": dear_twin})
        assert refused.value.rule == "trade_value_exceeded"
    game, events = play(game, 0, {"type": "confirm_trade"})
    assert types(events) == ["TradeMade"]
    assert hand(game, 0) == {cheap: 1}  # E8: the difference is not refunded
    assert game.market == cards(**{dear_twin: 1, dear: 1})


def test_a_trade_that_takes_more_value_than_it_gives_is_refused() -> None:
    cheap, dear, _ = _kinds_by_value()
    game = state([cards(**{cheap: 1}), cards()], market=cards(**{dear: 1}))
    game, _ = play(game, 0, {"type": "offer", "kind": cheap})
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "choose", "kind": dear})
    assert refused.value.rule == "trade_value_exceeded"
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "confirm_trade"})
    assert refused.value.rule == "empty_trade"  # A8: takes no card


def test_several_cards_may_change_hands_at_once_and_a_cancelled_trade_moves_nothing() -> None:
    cheap, dear, _ = _kinds_by_value()
    needed = -(-COMP.trade[kind(dear)] // COMP.trade[kind(cheap)])  # cheap cards to afford it
    before = state([cards(**{cheap: needed}), cards()], market=cards(**{dear: 1}))
    game = before
    for _ in range(needed):
        game, _ = play(game, 0, {"type": "offer", "kind": cheap})
    game, _ = play(game, 0, {"type": "choose", "kind": dear})
    cancelled, events = play(game, 0, {"type": "cancel_trade"})
    assert types(events) == ["TradeCancelled"]
    assert cancelled.seats == before.seats and cancelled.market == before.market
    game, _ = play(game, 0, {"type": "confirm_trade"})
    assert hand(game, 0) == {dear: 1}
    assert game.market == cards(**{cheap: needed})
    assert game.turn.acted


def test_a_museum_set_scores_its_table_entry_one_set_per_kind_per_turn() -> None:
    name = "coins"
    table = COMP.sale[kind(name)]
    game = state([cards(coins=len(table) + 2), cards()])
    sales = [a for a in RULES.legal_actions(game, 0) if a["type"] == "sell"]
    assert sales == [{"type": "sell", "kind": name, "count": n} for n in range(1, len(table) + 1)]
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "sell", "kind": name, "count": len(table) + 1})
    assert refused.value.rule == "bad_set_size"
    game, events = play(game, 0, {"type": "sell", "kind": name, "count": 2})
    assert types(events) == ["SetSold"] and events[0].payload["points"] == table[1]
    assert game.seats[0].points == table[1] and game.seats[0].sets == ((kind(name), 2),)
    with pytest.raises(RuleViolation) as refused:  # E9: no second set of coins this turn
        play(game, 0, {"type": "sell", "kind": name, "count": 1})
    assert refused.value.rule == "kind_sold_this_turn"
    # A later turn's coins are a new set, never joined to the first.
    game, _ = play(game, 0, {"type": "end_turn"})
    game, _ = play(game, 1, {"type": "end_turn"})
    game, _ = play(game, 0, {"type": "sell", "kind": name, "count": 1})
    assert game.seats[0].sets == ((kind(name), 2), (kind(name), 1))
    assert game.seats[0].points == table[1] + table[0]


def test_selling_needs_the_cards() -> None:
    game = state([cards(coins=1), cards()])
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "sell", "kind": "coins", "count": 2})
    assert refused.value.rule == "card_not_in_hand"
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "sell", "kind": "gold", "count": 1})
    assert refused.value.rule == "unknown_kind"


def test_a_trade_starts_by_giving_a_card() -> None:
    """A8: a trade that gives no card: choosing from the market needs an offer first."""
    cheap, _, _ = _kinds_by_value()
    game = state([cards(**{cheap: 1}), cards()], market=cards(**{cheap: 1}))
    assert not [a for a in RULES.legal_actions(game, 0) if a["type"] == "choose"]
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "choose", "kind": cheap})
    assert refused.value.rule == "action_not_allowed_now"
    game, _ = play(game, 0, {"type": "offer", "kind": cheap})
    with pytest.raises(RuleViolation) as refused:  # only one such card in the hand
        play(game, 0, {"type": "offer", "kind": cheap})
    assert refused.value.rule == "card_not_in_hand"


def test_a_trade_may_take_several_cheaper_cards_for_one_dearer_one() -> None:
    """E8: the limit compares totals; several cards may be taken for one."""
    cheap, dear, _ = _kinds_by_value()
    most = COMP.trade[kind(dear)] // COMP.trade[kind(cheap)]
    game = state([cards(**{dear: 1}), cards()], market=cards(**{cheap: most + 1}))
    game, _ = play(game, 0, {"type": "offer", "kind": dear})
    for _ in range(most):
        game, _ = play(game, 0, {"type": "choose", "kind": cheap})
    assert {"type": "choose", "kind": cheap} not in RULES.legal_actions(game, 0)
    game, events = play(game, 0, {"type": "confirm_trade"})
    assert events[0].payload == {"seat": 0, "given": {dear: 1}, "taken": {cheap: most}}
    assert hand(game, 0) == {cheap: most} and game.market == cards(**{cheap: 1, dear: 1})


@pytest.mark.parametrize("name", COMP.kinds)
def test_every_kinds_set_limit_is_its_sale_tables_length(name: str) -> None:
    """A1, A3.2: a set of 1 up to the table's length, scoring the entry for its size."""
    table = COMP.sale[kind(name)]
    game = state([cards(**{name: len(table) + 1}), cards()])
    counts = [a["count"] for a in RULES.legal_actions(game, 0) if a["type"] == "sell"]
    assert counts == list(range(1, len(table) + 1))
    for count in (0, -1, len(table) + 1, True, "1", None):
        with pytest.raises(RuleViolation) as refused:
            play(game, 0, {"type": "sell", "kind": name, "count": count})
        assert refused.value.rule == "bad_set_size"
    for count, points in enumerate(table, 1):
        _, events = play(game, 0, {"type": "sell", "kind": name, "count": count})
        assert events[0].payload["points"] == points


def test_several_kinds_may_be_sold_in_one_turn_each_its_own_set() -> None:
    """A3.2, E9, E13: one set per kind per turn; sold sets are public."""
    game = state([cards(coins=2, talismans=1), cards()])
    game, _ = play(game, 0, {"type": "sell", "kind": "coins", "count": 2})
    game, _ = play(game, 0, {"type": "sell", "kind": "talismans", "count": 1})
    expected = COMP.sale[kind("coins")][1] + COMP.sale[kind("talismans")][0]
    assert game.seats[0].points == expected and game.seats[0].cards_sold == 3
    public = RULES.view(game, 1)["seats"][0]
    assert public["sets"] == [{"kind": "coins", "count": 2}, {"kind": "talismans", "count": 1}]
    assert public["points"] == expected and public["cards_sold"] == 3


def test_a_set_of_mixed_kinds_is_refused() -> None:
    """A8: a museum set is of one kind; the action names exactly one."""
    game = state([cards(coins=1, talismans=1), cards()])
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "sell", "kind": ["coins", "talismans"], "count": 2})
    assert refused.value.rule == "unknown_kind"
