"""Each ruin's exploration (RULES.md A3.2, A6, E4, E5, E10), map costs from the data."""

from __future__ import annotations

import pytest

from services.engine.rules.archaeology.state import MinePending, PeekPending, TombPending
from services.engine.ruleset import RuleViolation

from .builders import COMP, RULES, cards, hand, kind, play, secret, state, types


def _maps(ruin: str) -> int:
    return COMP.ruins[ruin].maps


def test_pyramid_spends_maps_and_takes_a_whole_face_down_room() -> None:
    rooms = [cards(), cards(coins=2, talismans=1), cards(pottery_shards=1)]
    game = state([cards(maps=_maps("pyramid") + 1), cards()], rooms=rooms)
    explores = [a for a in RULES.legal_actions(game, 0) if a["type"] == "explore"]
    assert explores == [{"type": "explore", "room": 1}, {"type": "explore", "room": 2}]  # E5
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "explore", "room": 0})
    assert refused.value.rule == "empty_room"
    game, events = play(game, 0, {"type": "explore", "room": 1})
    assert types(events) == ["RuinExplored", "RoomCardsTaken"]
    assert hand(game, 0) == {"coins": 2, "talismans": 1, "maps": 1}
    assert game.discard == cards(maps=_maps("pyramid"))  # E4
    assert "cards" not in events[1].payload and events[1].payload["count"] == 3
    assert secret(events[1]) == ({"cards": {"coins": 2, "talismans": 1}}, (0,))  # face down
    with pytest.raises(RuleViolation) as refused:  # one attempt per turn
        play(game, 0, {"type": "explore", "room": 2})
    assert refused.value.rule == "already_explored"


def test_exploring_without_enough_maps_is_refused() -> None:
    game = state(
        [cards(maps=_maps("temple") - 1), cards()], ruin="temple", rooms=[cards(coins=1)] * 3
    )
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "explore", "room": 0})
    assert refused.value.rule == "not_enough_maps"


def test_temple_peek_after_a_sale_is_private() -> None:
    rooms = [cards(coins=3), cards(), cards(talismans=2)]
    game = state([cards(pottery_shards=1), cards()], ruin="temple", rooms=rooms)
    game, _ = play(game, 0, {"type": "sell", "kind": "pottery_shards", "count": 1})
    assert isinstance(game.pending, PeekPending)
    assert RULES.legal_actions(game, 0) == [
        {"type": "peek", "room": 0},
        {"type": "peek", "room": 2},
        {"type": "no_peek"},
    ]
    game, events = play(game, 0, {"type": "peek", "room": 2})
    assert RULES.view(game, 0)["seats"][0]["known_rooms"] == {"2": {"talismans": 2}}
    assert "known_rooms" not in RULES.view(game, 1)["seats"][0]
    assert "cards" not in events[0].payload
    assert secret(events[0]) == ({"cards": {"talismans": 2}}, (0,))


def test_tomb_looks_takes_exactly_two_and_puts_the_rest_back() -> None:
    room = cards(coins=1, talismans=1, pharaoh_masks=1)
    game = state([cards(maps=1), cards()], ruin="tomb", rooms=[room, cards(coins=1)])
    game, events = play(game, 0, {"type": "explore", "room": 0})
    assert types(events) == ["RuinExplored", "TombSearched"]
    assert isinstance(game.pending, TombPending)
    choices = RULES.legal_actions(game, 0)
    assert len(choices) == 3 and all(sum(a["cards"].values()) == 2 for a in choices)
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "take", "cards": {"coins": 1}})
    assert refused.value.rule == "bad_tomb_choice"
    game, _ = play(game, 0, {"type": "take", "cards": {"talismans": 1, "pharaoh_masks": 1}})
    assert game.rooms[0] == cards(coins=1) and hand(game, 0) == {"talismans": 1, "pharaoh_masks": 1}
    # The explorer remembers what is left; nobody else saw anything.
    assert RULES.view(game, 0)["seats"][0]["known_rooms"] == {"0": {"coins": 1}}


def test_tomb_with_a_single_card_gives_it_without_a_choice() -> None:
    game = state([cards(maps=1), cards()], ruin="tomb", rooms=[cards(), cards(coins=1)])
    game, events = play(game, 0, {"type": "explore", "room": 1})
    assert types(events) == ["RuinExplored", "TombSearched", "RoomCardsTaken"]
    assert hand(game, 0) == {"coins": 1} and game.pending is None


def _bust_limit() -> int:
    return COMP.ruins["mine"].params["bust_over_trade_total"]


def test_mine_stops_and_takes_the_revealed_cards() -> None:
    cheap = min(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    game = state([cards(maps=1), cards()], ruin="mine", rooms=[cards(**{cheap: 3})])
    game, events = play(game, 0, {"type": "explore", "room": 0})
    assert types(events) == ["RuinExplored", "MineCardRevealed"]
    assert isinstance(game.pending, MinePending)
    game, events = play(game, 0, {"type": "mine", "go": False})
    assert types(events) == ["MineCardsTaken"]
    assert hand(game, 0) == {cheap: 1} and game.rooms[0] == cards(**{cheap: 2})


def test_mine_busts_when_the_revealed_trade_value_exceeds_the_limit() -> None:
    dear = max(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    needed = _bust_limit() // COMP.trade[kind(dear)] + 1  # cards of it that bust
    game = state(  # a card left to dig keeps the game going once the hand is empty
        [cards(maps=1), cards()],
        ruin="mine",
        rooms=[cards(**{dear: needed + 1})],
        dig_site=cards(coins=1),
    )
    game, _ = play(game, 0, {"type": "explore", "room": 0})
    for _ in range(needed - 1):
        game, events = play(game, 0, {"type": "mine", "go": True})
    assert types(events)[-1] == "MineBusted"
    assert hand(game, 0) == {} and game.rooms[0] == cards(**{dear: needed + 1})  # E10
    assert game.turn.explored and game.pending is None


def test_mine_run_out_without_a_bust_takes_everything() -> None:
    game = state([cards(maps=1), cards()], ruin="mine", rooms=[cards(pottery_shards=1)])
    game, events = play(game, 0, {"type": "explore", "room": 0})
    assert types(events) == ["RuinExplored", "MineCardRevealed", "MineCardsTaken"]
    assert hand(game, 0) == {"pottery_shards": 1}


def test_sphinx_names_two_different_kinds_and_takes_those_revealed() -> None:
    room = cards(coins=2, talismans=2, pottery_shards=1)  # 5 cards: all revealed
    game = state([cards(maps=1), cards()], ruin="sphinx", rooms=[room])
    explores = [a for a in RULES.legal_actions(game, 0) if a["type"] == "explore"]
    assert len(explores) == len(COMP.kinds) * (len(COMP.kinds) - 1) // 2
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "explore", "room": 0, "named": ["coins", "coins"]})
    assert refused.value.rule == "bad_sphinx_kinds"
    game, events = play(game, 0, {"type": "explore", "room": 0, "named": ["coins", "maps"]})
    assert types(events) == ["RuinExplored", "SphinxRevealed"]
    assert events[1].payload["taken"] == {"coins": 2}
    assert hand(game, 0) == {"coins": 2}
    assert game.rooms[0] == cards(talismans=2, pottery_shards=1)


def test_buried_ruins_rooms_are_face_up_and_an_emptied_room_refills_on_a_sandstorm() -> None:
    game = state(
        [cards(maps=1), cards()],
        ruin="buried_ruins",
        rooms=[cards(coins=1), cards(), cards()],
        reserve=cards(talismans=3),
    )
    assert RULES.view(game, 1)["rooms"][0] == {"size": 1, "cards": {"coins": 1}}
    game, events = play(game, 0, {"type": "explore", "room": 0})
    assert events[-1].payload["cards"] == {"coins": 1} and not events[-1].sealed
    assert game.rooms[0] == cards()
