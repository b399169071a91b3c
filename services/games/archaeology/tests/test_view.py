"""The seat's view carries what a client needs to draw a trade in progress and the market's
prices (issue 33: a player gave away 5 cards for 2 without seeing what the trade was worth),
and still hides every other hand (RULES.md A5)."""

from __future__ import annotations

from services.games.archaeology.rules.components import components

from .builders import RULES, cards, play, state


def test_a_trade_in_progress_shows_what_is_offered_and_taken_with_their_values() -> None:
    comp = components()
    game = state(
        [cards(pottery_shards=3, coins=2), cards(maps=1)],
        market=cards(talismans=1, parchment_scrolls=2),
    )
    for action in (
        {"type": "offer", "kind": "pottery_shards"},
        {"type": "offer", "kind": "coins"},
        {"type": "choose", "kind": "parchment_scrolls"},
    ):
        game, _ = play(game, 0, action)
    pending = RULES.view(game, 0)["pending"]
    value = dict(zip(comp.kinds, comp.trade, strict=True))
    assert pending == {
        "kind": "trade",
        "give": {"pottery_shards": 1, "coins": 1},
        "take": {"parchment_scrolls": 1},
        "give_value": value["pottery_shards"] + value["coins"],
        "take_value": value["parchment_scrolls"],
    }
    # A trade is public (A5): a watcher and the other seat see the same running trade.
    assert RULES.view(game, None)["pending"] == pending == RULES.view(game, 1)["pending"]
    game, _ = play(game, 0, {"type": "cancel_trade"})
    assert RULES.view(game, 0)["pending"] is None


def test_the_view_lists_each_kinds_trade_value_and_sale_table_in_the_box_order() -> None:
    comp = components()
    game = state([cards(coins=1), cards(maps=1)])
    listed = RULES.view(game, None)["treasures"]
    assert [t["kind"] for t in listed] == list(comp.kinds)
    assert [t["trade"] for t in listed] == list(comp.trade)
    assert [t["sale"] for t in listed] == [list(s) for s in comp.sale]


def test_only_the_seat_itself_sees_its_hand() -> None:
    game = state([cards(coins=2, maps=1), cards(talismans=1)])
    seats = RULES.view(game, 0)["seats"]
    assert seats[0]["hand"] == {"coins": 2, "maps": 1}
    assert "hand" not in seats[1] and seats[1]["hand_size"] == 1
    assert all("hand" not in s for s in RULES.view(game, None)["seats"])
