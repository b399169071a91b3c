"""Each ruin's exploration (RULES.md A3.2, A6, E4, E5, E10), map costs from the data."""

from __future__ import annotations

import pytest

from services.engine.domain.ruleset import RuleViolation
from services.games.archaeology.rules.state import MinePending, PeekPending, TombPending

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


def test_temple_spends_its_maps_and_takes_a_whole_room() -> None:
    """A6.2: the temple is explored like the pyramid, for its own number of maps."""
    maps = _maps("temple")
    rooms = [cards(coins=2), cards(talismans=1, pottery_shards=2), cards()]
    game = state([cards(maps=maps), cards()], ruin="temple", rooms=rooms, dig_site=cards(coins=1))
    explores = [a for a in RULES.legal_actions(game, 0) if a["type"] == "explore"]
    assert explores == [{"type": "explore", "room": 0}, {"type": "explore", "room": 1}]
    game, events = play(game, 0, {"type": "explore", "room": 1})
    assert types(events) == ["RuinExplored", "RoomCardsTaken"]
    assert events[0].payload["maps"] == maps
    assert hand(game, 0) == {"talismans": 1, "pottery_shards": 2}
    assert game.discard == cards(maps=maps) and game.rooms[1] == cards()


def test_the_temple_peek_follows_every_sale_and_may_be_declined() -> None:
    """A6.2, E9: right after each sale, one room; a second kind sold gives another peek."""
    rooms = [cards(coins=1), cards(talismans=2), cards()]
    game = state([cards(coins=1, pottery_shards=1), cards()], ruin="temple", rooms=rooms)
    game, _ = play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    assert isinstance(game.pending, PeekPending)
    with pytest.raises(RuleViolation) as refused:  # the peek comes right after the sale
        play(game, 0, {"type": "sell", "kind": "pottery_shards", "count": 1})
    assert refused.value.rule == "action_not_allowed_now"
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "peek", "room": 2})
    assert refused.value.rule == "empty_room"
    game, events = play(game, 0, {"type": "no_peek"})
    assert types(events) == ["PeekDeclined"] and game.pending is None
    assert RULES.view(game, 0)["seats"][0].get("known_rooms", {}) == {}
    game, _ = play(game, 0, {"type": "sell", "kind": "pottery_shards", "count": 1})
    assert isinstance(game.pending, PeekPending)  # a peek per sale


@pytest.mark.parametrize("ruin", sorted(set(COMP.ruins) - {"temple"}))
def test_only_the_temple_offers_a_peek(ruin: str) -> None:
    rooms = [cards(coins=1) for _ in COMP.ruins[ruin].rooms]
    game = state([cards(coins=1, pottery_shards=1), cards()], ruin=ruin, rooms=rooms)
    game, events = play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    assert types(events) == ["SetSold"] and game.pending is None


def test_the_temple_peek_is_not_offered_when_every_room_is_empty() -> None:
    game = state([cards(coins=1, pottery_shards=1), cards()], ruin="temple")
    game, _ = play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    assert game.pending is None


def test_mine_goes_on_then_stops_and_takes_every_revealed_card() -> None:
    """A6.4: after each card, stop (take all revealed) or reveal the next."""
    limit = _bust_limit()
    cheap = min(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    safe = limit // COMP.trade[kind(cheap)]  # this many cheap cards never bust
    assert safe >= 2
    game = state([cards(maps=1), cards()], ruin="mine", rooms=[cards(**{cheap: safe + 1})])
    game, _ = play(game, 0, {"type": "explore", "room": 0})
    game, events = play(game, 0, {"type": "mine", "go": True})
    assert types(events) == ["MineCardRevealed"]
    assert RULES.legal_actions(game, 0) == [
        {"type": "mine", "go": True},
        {"type": "mine", "go": False},
    ]
    game, events = play(game, 0, {"type": "mine", "go": False})
    assert events[0].payload["cards"] == {cheap: 2}
    assert hand(game, 0) == {cheap: 2} and game.rooms[0] == cards(**{cheap: safe - 1})
    assert game.pending is None and game.turn.explored


def test_a_mine_bust_counts_as_the_turns_attempt() -> None:
    """A3.2: a mine bust is the turn's exploration attempt."""
    dear = max(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    needed = _bust_limit() // COMP.trade[kind(dear)] + 1
    game = state(
        [cards(maps=2), cards()],
        ruin="mine",
        rooms=[cards(**{dear: needed})],
        dig_site=cards(coins=1),
    )
    game, events = play(game, 0, {"type": "explore", "room": 0})
    while types(events)[-1] != "MineBusted":
        game, events = play(game, 0, {"type": "mine", "go": True})
    assert not [a for a in RULES.legal_actions(game, 0) if a["type"] == "explore"]
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "explore", "room": 0})
    assert refused.value.rule == "already_explored"
    assert hand(game, 0) == {"maps": 1}  # the spent map is gone, nothing was taken


def test_sphinx_reveals_only_its_number_and_puts_the_rest_back() -> None:
    """A6.5: reveal 5 (the data's number) of a fuller room; take the named kinds only."""
    reveal = COMP.ruins["sphinx"].params["reveal"]
    room = cards(coins=reveal, talismans=reveal)
    game = state([cards(maps=1), cards()], ruin="sphinx", rooms=[room])
    game, events = play(game, 0, {"type": "explore", "room": 0, "named": ["coins", "maps"]})
    shown = events[1].payload
    assert sum(shown["revealed"].values()) == reveal
    assert shown["taken"] == {k: n for k, n in shown["revealed"].items() if k == "coins"}
    assert events[0].payload["named"] == ["coins", "maps"]  # named publicly (E10)
    taken = shown["taken"].get("coins", 0)
    assert hand(game, 0) == ({"coins": taken} if taken else {})
    assert game.rooms[0] == cards(coins=reveal - taken, talismans=reveal)


def test_sphinx_may_give_nothing() -> None:
    """E5: a reveal with none of the named kinds takes nothing; the map is spent."""
    game = state(
        [cards(maps=1), cards()],
        ruin="sphinx",
        rooms=[cards(talismans=2)],
        dig_site=cards(coins=1),
    )
    game, events = play(game, 0, {"type": "explore", "room": 0, "named": ["coins", "maps"]})
    assert events[1].payload["taken"] == {} and hand(game, 0) == {}
    assert game.rooms[0] == cards(talismans=2) and game.discard == cards(maps=1)


def test_the_sphinx_names_exactly_two_known_kinds() -> None:
    game = state([cards(maps=1), cards()], ruin="sphinx", rooms=[cards(coins=1)])
    for named in (["coins"], ["coins", "maps", "talismans"], "coins", None):
        with pytest.raises(RuleViolation) as refused:
            play(game, 0, {"type": "explore", "room": 0, "named": named})
        assert refused.value.rule == "bad_sphinx_kinds"
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "explore", "room": 0, "named": ["coins", "gold"]})
    assert refused.value.rule == "unknown_kind"


def test_tomb_puts_the_rest_back_face_down_and_only_the_explorer_knows() -> None:
    """A6.3, A5: the untaken cards stay in the room; nobody else learns them."""
    take = COMP.ruins["tomb"].params["take"]
    room = cards(coins=take, talismans=2)
    game = state([cards(maps=1), cards()], ruin="tomb", rooms=[room, cards()])
    game, events = play(game, 0, {"type": "explore", "room": 0})
    assert secret(events[1]) == ({"cards": {"coins": take, "talismans": 2}}, (0,))
    game, events = play(game, 0, {"type": "take", "cards": {"coins": take}})
    assert game.rooms[0] == cards(talismans=2) and hand(game, 0) == {"coins": take}
    assert events[0].payload["count"] == take and "cards" not in events[0].payload
    assert "known_rooms" not in RULES.view(game, 1)["seats"][0]
    assert RULES.view(game, 1)["rooms"][0] == {"size": 2}


def test_an_exploration_of_a_room_that_does_not_exist_is_refused() -> None:
    game = state([cards(maps=1), cards()], rooms=[cards(coins=1)] * 3)
    for room in (-1, 3, "I", True):
        with pytest.raises(RuleViolation) as refused:
            play(game, 0, {"type": "explore", "room": room})
        assert refused.value.rule == "no_such_room"


@pytest.mark.parametrize("ruin", sorted(COMP.ruins))
def test_each_ruin_is_set_up_from_the_data(ruin: str) -> None:
    """A2.4, E6: each room's number of cards (no maps), face up or down as the tile
    says, and the buried ruins' face-down reserve after the rooms."""
    from .builders import new_game

    tile = COMP.ruins[ruin]
    game = new_game(4, seed=7, ruin=ruin)
    assert tuple(sum(room) for room in game.rooms) == tile.rooms
    assert all(room[COMP.map_kind] == 0 for room in game.rooms)
    assert sum(game.reserve) == tile.reserve
    public = RULES.view(game, None)
    assert public["reserve_size"] == tile.reserve
    for room, shown in zip(game.rooms, public["rooms"], strict=True):
        if tile.face_up:
            assert shown == {"size": sum(room), "cards": hand_of(room)}
        else:
            assert shown == {"size": sum(room)}


def hand_of(room: tuple[int, ...]) -> dict[str, int]:
    """A room's cards as ``{kind: count}``."""
    return {COMP.kinds[k]: n for k, n in enumerate(room) if n}
