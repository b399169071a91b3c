"""The terminal table shows a trade in progress as it is built (issue 33: a player gave
away 5 cards for 2 without noticing; the terminal client had the same gap as the page)."""

from __future__ import annotations

from services.games.archaeology.tui import render_expedition, trade_words

PENDING = {
    "kind": "trade",
    "give": {"coins": 3, "pottery_shards": 2},
    "take": {"maps": 2},
    "give_value": 8,
    "take_value": 6,
}


def test_a_trade_in_progress_names_both_sides_and_their_values() -> None:
    words = trade_words(PENDING)
    assert words == ("you give 3 coins, 2 pottery shards (worth 8), you take 2 maps (worth 6)"), (
        words
    )


def test_the_expedition_panel_shows_the_trade_so_far() -> None:
    state = {"seats": [{"hand": {"coins": 1}}], "market": {}, "pending": PENDING}
    text = render_expedition(state, 0).plain  # type: ignore[union-attr]
    assert "Trade so far: you give 3 coins" in text and "(worth 6)" in text, text


def test_no_trade_line_without_a_trade() -> None:
    state = {"seats": [{"hand": {"coins": 1}}], "market": {}, "pending": {"kind": "mine"}}
    assert "Trade so far" not in render_expedition(state, 0).plain  # type: ignore[union-attr]
