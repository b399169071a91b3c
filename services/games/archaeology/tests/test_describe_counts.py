"""Counted words in the log read as a person writes them: one map, two maps (never
"map(s)"), and a card type agrees with its count: "1 coin", "1 pottery shard", "2 coins"
(never the kind id's plural "1 coins")."""

from __future__ import annotations

import re
from pathlib import Path

from services.engine.domain.ruleset import DomainEvent
from services.games.archaeology.rules.components import components
from services.games.archaeology.rules.describe import (
    KIND_NAMES,
    cards_words,
    describe_action,
    describe_event,
    kind_count,
    kind_words,
)
from services.games.archaeology.tui import render_expedition, render_museum

WEB_BOARD = Path(__file__).resolve().parents[1] / "web" / "index.tsx"


def _explored(maps: int) -> str:
    return describe_event(DomainEvent("RuinExplored", {"seat": 0, "maps": maps, "room": 1}))


def _taken(count: int) -> str:
    payload = {"seat": 1, "count": count, "room": 0, "cards": {"coins": count}}
    return describe_event(DomainEvent("RoomCardsTaken", payload))


def test_maps_spent_read_singular_for_one_and_plural_for_two() -> None:
    assert _explored(1) == "seat 0 spends 1 map to explore room II"
    assert _explored(2) == "seat 0 spends 2 maps to explore room II"


def test_cards_taken_read_singular_for_one_and_plural_for_two() -> None:
    assert _taken(1) == "seat 1 takes 1 card from room I: 1 coin"
    assert _taken(2) == "seat 1 takes 2 cards from room I: 2 coins"
    for text in (_explored(1), _explored(2), _taken(1), _taken(2)):
        assert "(s)" not in text


def test_every_card_type_has_a_singular_and_its_plural_is_the_kind_s_words() -> None:
    assert set(KIND_NAMES) == set(components().kinds)
    for kind, (one, many) in KIND_NAMES.items():
        assert many == kind_words(kind)
        assert one != many and not one.endswith("s"), kind
        assert kind_count(1, kind) == f"1 {one}"
        assert kind_count(2, kind) == f"2 {many}"
        assert kind_count(0, kind) == f"0 {many}"
    assert kind_count(1, "pottery_shards") == "1 pottery shard"
    assert kind_count(1, "pharaoh_masks") == "1 pharaoh mask"
    assert kind_count(1, "unknown_things") == "1 unknown things"  # a kind not in the data


def test_card_lists_agree_with_each_count() -> None:
    assert cards_words({"pottery_shards": 1, "coins": 2, "maps": 1}) == (
        "1 pottery shard, 2 coins, 1 map"
    )
    setup = {"ruin": "pyramid", "seats": 2, "first_seat": 0, "market": {"talismans": 1}}
    assert "market: 1 talisman;" in describe_event(DomainEvent("ExpeditionSetUp", setup))
    traded = {"seat": 0, "given": {"coins": 1}, "taken": {"broken_cups": 1}}
    assert describe_event(DomainEvent("TradeMade", traded)) == (
        "seat 0 trades 1 coin for 1 broken cup"
    )


def test_sales_and_takes_agree_with_their_count() -> None:
    def sold(count: int) -> str:
        payload = {"seat": 0, "kind": "talismans", "count": count, "points": 3}
        return describe_event(DomainEvent("SetSold", payload))

    assert sold(1) == "seat 0 sells 1 talisman for 3 points"
    assert sold(2) == "seat 0 sells 2 talismans for 3 points"
    assert describe_action({"type": "sell", "kind": "coins", "count": 1}) == (
        "sell 1 coin to the museum"
    )
    assert describe_action({"type": "sell", "kind": "coins", "count": 3}) == (
        "sell 3 coins to the museum"
    )
    assert describe_action({"type": "take", "cards": {"maps": 1}}) == "take 1 map"


def test_the_terminal_table_agrees_with_each_count() -> None:
    state = {
        "seats": [{"hand": {"coins": 1, "maps": 2}}],
        "market": {"parchment_scrolls": 1},
        "dig_site_size": 1,
        "rooms": [{"size": 1, "cards": {"broken_pendants": 1}}, {"size": 2}],
        "ruin": "pyramid",
        "maps_to_explore": 1,
        "discard": {"treasures": {"broken_tablets": 1}},
    }
    text = render_expedition(state, 0).plain  # type: ignore[union-attr]
    assert "Your hand: 1 coin, 2 maps" in text, text
    assert "Market: 1 parchment scroll" in text, text
    assert "Dig site: 1 card " in text, text
    assert "pyramid (1 map to explore); room I 1 card: 1 broken pendant; room II 2 cards" in text
    assert "Discard: 1 broken tablet;" in text, text
    museum = {"seats": [{"sets": [{"kind": "coins", "count": 1}, {"kind": "maps", "count": 2}]}]}
    table = render_museum(museum, ["ann"], 0, [])
    cells = [str(cell) for column in table.columns for cell in column.cells]  # type: ignore[union-attr]
    assert "1 coin, 2 maps" in cells, cells


def test_the_web_board_names_card_types_as_the_log_does() -> None:
    """The web board's own copy of the names (services/games/archaeology/web/index.tsx,
    KIND_NAMES) says what KIND_NAMES says."""
    source = WEB_BOARD.read_text(encoding="utf-8")
    block = re.search(r"const KIND_NAMES[^{]*\{(.*?)\n\};", source, re.S)
    assert block, "KIND_NAMES not found in the web board"
    pairs = re.findall(r'(\w+): \["([^"]+)", "([^"]+)"\]', block.group(1))
    assert {kind: (one, many) for kind, one, many in pairs} == KIND_NAMES
