"""The dig, thieves, sandstorms and tents, from RULES.md A3.1, E2, E3, E11, E12, A6.6, A7."""

from __future__ import annotations

import pytest

from services.engine.domain.ruleset import RuleViolation
from services.games.archaeology.rules.state import SandstormPending, ThiefPending

from .builders import COMP, RULES, cards, hand, play, secret, state, types


def test_the_dig_comes_first_and_a_treasure_goes_secretly_to_the_hand() -> None:
    game = state([cards(coins=1), cards()], dig_site=cards(talismans=3), must_dig=True)
    assert RULES.legal_actions(game, 0) == [{"type": "dig"}]
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    assert refused.value.rule == "dig_first"

    game, events = play(game, 0, {"type": "dig"})
    assert types(events) == ["CardDug"]
    assert hand(game, 0) == {"coins": 1, "talismans": 1}
    assert game.dig_site_size == 2 and not game.turn.must_dig
    # A5: only the drawer learns the kind.
    assert "kind" not in events[0].payload
    assert secret(events[0]) == ({"kind": "talismans"}, (0,))


def test_a_thief_robs_a_named_seat_with_cards_of_a_random_card() -> None:
    game = state(
        [cards(), cards(coins=2), cards()], thieves=1, dig_site=cards(maps=1), must_dig=True
    )
    game, events = play(game, 0, {"type": "dig"})
    assert types(events) == ["CardDug"] and isinstance(game.pending, ThiefPending)
    # A8: not the drawer, not a seat without cards.
    assert RULES.legal_actions(game, 0) == [{"type": "rob", "victim": 1}]
    for victim in (0, 2, 7):
        with pytest.raises(RuleViolation) as refused:
            play(game, 0, {"type": "rob", "victim": victim})
        assert refused.value.rule == "bad_thief_target"

    game, events = play(game, 0, {"type": "rob", "victim": 1})
    assert types(events) == ["CardStolen"]
    assert hand(game, 0) == {"coins": 1} and hand(game, 1) == {"coins": 1}
    assert game.discard_thieves == 1 and game.pending is None
    stolen = events[0]
    assert "kind" not in stolen.payload and stolen.payload["victim"] == 1  # victim public
    assert secret(stolen) == ({"kind": "coins"}, (0, 1))  # A5: thief and victim only


def test_a_thief_with_nobody_to_rob_is_void_and_discarded() -> None:
    game = state([cards(coins=1), cards()], thieves=1, must_dig=True)
    game, events = play(game, 0, {"type": "dig"})
    assert types(events) == ["CardDug", "ThiefVoided"]  # E12
    assert game.discard_thieves == 1 and game.pending is None
    assert hand(game, 0) == {"coins": 1}
    assert not game.turn.must_dig  # a thief gives no other dig


def test_sandstorm_losses_round_half_down_tents_first_then_losses_from_the_drawers_left() -> None:
    hands = [cards(coins=5), cards(pottery_shards=3), cards(maps=1), cards()]
    game = state(hands, sandstorms=1, dig_site=cards(coins=1), seat=2, must_dig=True)
    game, events = play(game, 2, {"type": "dig"})
    assert types(events) == ["CardDug", "SandstormBegan"]
    storm = game.pending
    assert isinstance(storm, SandstormPending)
    assert storm.losses == (2, 1, 0, 0)  # floor(5/2), floor(3/2), floor(1/2), 0
    # From the drawer's (seat 2) left: 3, 0, 1; only seats that would lose are asked (E11).
    assert storm.order == (0, 1) and storm.to_declare == (0, 1)
    assert RULES.seats_to_act(game) == (0,)
    game, _ = play(game, 0, {"type": "tent", "use": False})
    assert RULES.seats_to_act(game) == (1,)
    game, _ = play(game, 1, {"type": "tent", "use": True})
    assert game.seats[1].tent_uses == 0  # the tent leaves the game
    # Losses: seat 0 chooses two cards; seat 1 is sheltered.
    assert RULES.legal_actions(game, 0) == [{"type": "lose", "kind": "coins"}]
    game, _ = play(game, 0, {"type": "lose", "kind": "coins"})
    game, events = play(game, 0, {"type": "lose", "kind": "coins"})
    assert types(events) == ["CardLost", "SandstormEnded"]
    assert hand(game, 0) == {"coins": 3} and hand(game, 1) == {"pottery_shards": 3}
    assert game.market == cards(coins=2) and game.discard_sandstorms == 1
    # The drawer digs again while the dig site has cards.
    assert game.turn.seat == 2 and game.turn.must_dig
    assert RULES.legal_actions(game, 2) == [{"type": "dig"}]


def test_a_seat_without_a_usable_tent_is_not_asked_and_the_drawer_may_stop_digging() -> None:
    game = state([cards(coins=2), cards(maps=2)], sandstorms=1, must_dig=True, tent_uses=0)
    game, events = play(game, 0, {"type": "dig"})
    storm = game.pending
    assert isinstance(storm, SandstormPending) and storm.to_declare == ()
    assert RULES.seats_to_act(game) == (1,)  # the drawer's left loses first
    with pytest.raises(RuleViolation) as refused:
        play(game, 1, {"type": "tent", "use": True})
    assert refused.value.rule == "action_not_allowed_now"
    game, _ = play(game, 1, {"type": "lose", "kind": "maps"})
    game, events = play(game, 0, {"type": "lose", "kind": "coins"})
    assert types(events)[-1] == "SandstormEnded"
    assert not game.turn.must_dig  # E11: the dig site is empty, no dig again
    assert {"type": "end_turn"} in RULES.legal_actions(game, 0)


def test_nobody_to_lose_ends_the_sandstorm_at_once() -> None:
    game = state([cards(coins=1), cards()], sandstorms=2, must_dig=True)
    game, events = play(game, 0, {"type": "dig"})
    assert types(events) == ["CardDug", "SandstormBegan", "SandstormEnded"]
    assert game.turn.must_dig  # another sandstorm is still in the dig site


def test_buried_ruins_add_reserve_cards_to_each_room_before_the_losses() -> None:
    rooms = [cards(), cards(coins=1), cards()]
    game = state(
        [cards(maps=2), cards()],
        ruin="buried_ruins",
        rooms=rooms,
        reserve=cards(talismans=2),
        sandstorms=1,
        must_dig=True,
    )
    game, events = play(game, 0, {"type": "dig"})
    began = events[1]
    # Rooms I, II, then III; the reserve runs out before room III (A6.6).
    assert began.payload["reserve_added"] == ["talismans", "talismans", None]
    assert game.rooms == (cards(talismans=1), cards(coins=1, talismans=1), cards())
    assert began.payload["losses"] == [1, 0]


def test_sand_hell_tents_last_two_uses() -> None:
    game = state(
        [cards(coins=2), cards()], sandstorms=2, must_dig=True, tent_uses=2, sand_hell=True
    )
    for expected in (1, 0):
        game, _ = play(game, 0, {"type": "dig"})
        game, _ = play(game, 0, {"type": "tent", "use": True})
        assert game.seats[0].tent_uses == expected
    assert hand(game, 0) == {"coins": 2}


def test_setup_numbers_come_from_the_data() -> None:
    from .builders import new_game

    for seats in range(COMP.min_seats, COMP.max_seats + 1):
        game = new_game(seats, seed=seats, ruin="pyramid")
        assert all(sum(s.hand) == COMP.starting_hand for s in game.seats)
        assert sum(game.market) == COMP.starting_market
        assert tuple(sum(r) for r in game.rooms) == COMP.ruins["pyramid"].rooms
        assert game.dig_thieves == COMP.thieves_by_seats[seats]
        assert game.dig_sandstorms == COMP.sandstorms_by_seats[seats]
        removed = {COMP.kinds[k] for k, n in enumerate(game.removed) if n}
        assert removed == {COMP.kinds[k] for k in COMP.removed_by_seats[seats]}
        # A2.4: no maps among the starting cards, the market or the rooms.
        assert all(s.hand[COMP.map_kind] == 0 for s in game.seats)
        assert game.market[COMP.map_kind] == 0
        assert game.dig_site[COMP.map_kind] == COMP.counts[COMP.map_kind]


@pytest.mark.parametrize("name", COMP.kinds)
def test_digging_each_treasure_kind_puts_it_secretly_in_the_hand(name: str) -> None:
    """A3.1: every treasure, maps included, goes to the drawer's hand and ends the dig."""
    game = state([cards(), cards()], dig_site=cards(**{name: 1}), must_dig=True)
    game, events = play(game, 0, {"type": "dig"})
    assert types(events) == ["CardDug"] and events[0].payload["card"] == "treasure"
    assert hand(game, 0) == {name: 1} and game.dig_site_size == 0
    assert secret(events[0]) == ({"kind": name}, (0,))
    assert not game.turn.must_dig and game.pending is None


def test_a_robbery_ends_the_dig() -> None:
    """A3.1: a thief does not give another dig, even with cards left in the dig site."""
    game = state([cards(), cards(coins=1)], thieves=1, dig_site=cards(coins=3), must_dig=True)
    game, _ = play(game, 0, {"type": "dig"})
    game, _ = play(game, 0, {"type": "rob", "victim": 1})
    assert not game.turn.must_dig and game.dig_site_size == 3
    assert {"type": "dig"} not in RULES.legal_actions(game, 0)
    assert hand(game, 1) == {}  # the victim's only card is gone


@pytest.mark.parametrize("sizes", [(0, 1, 2, 3, 4), (5, 6, 7, 8, 9), (9, 7, 5, 3, 1)])
def test_every_seat_the_drawer_included_is_to_lose_half_its_hand_rounded_down(
    sizes: tuple[int, ...],
) -> None:
    """A3.1b: floor(n / 2) of the hand size when the sandstorm is drawn."""
    hands = [cards(pottery_shards=n) for n in sizes]
    game = state(hands, sandstorms=1, seat=2, must_dig=True, tent_uses=0)
    game, events = play(game, 2, {"type": "dig"})
    storm = game.pending
    assert isinstance(storm, SandstormPending)
    expected = [n // 2 for n in sizes]
    assert events[1].payload["losses"] == expected and list(storm.losses) == expected
    # Losses are paid from the drawer's (seat 2) left round to the drawer, seat by seat.
    order = [s % len(sizes) for s in range(3, 3 + len(sizes)) if sizes[s % len(sizes)] >= 2]
    assert list(storm.order) == order
    paid: list[int] = []
    while isinstance(game.pending, SandstormPending):
        (seat,) = RULES.seats_to_act(game)
        paid.append(seat)
        game, _ = play(game, seat, {"type": "lose", "kind": "pottery_shards"})
    assert paid == [s for s in order for _ in range(sizes[s] // 2)]
    assert [sum(s.hand) for s in game.seats] == [n - n // 2 for n in sizes]
    assert game.market == cards(pottery_shards=sum(expected))  # face up into the market


def test_a_seat_with_nothing_to_lose_is_not_asked_and_keeps_its_tent() -> None:
    """E11, A8: a hand of 0 or 1 loses nothing; its tent may not be used."""
    game = state([cards(coins=1), cards(coins=2), cards()], sandstorms=1, must_dig=True)
    game, _ = play(game, 0, {"type": "dig"})
    assert RULES.seats_to_act(game) == (1,)
    for seat in (0, 2):
        with pytest.raises(RuleViolation) as refused:
            play(game, seat, {"type": "tent", "use": True})
        assert refused.value.rule == "not_your_turn"
    game, _ = play(game, 1, {"type": "tent", "use": False})
    game, _ = play(game, 1, {"type": "lose", "kind": "coins"})
    assert game.pending is None
    assert [s.tent_uses for s in game.seats] == [1, 1, 1]


def test_a_loss_must_be_a_card_of_the_hand() -> None:
    game = state([cards(coins=2), cards()], sandstorms=1, must_dig=True, tent_uses=0)
    game, _ = play(game, 0, {"type": "dig"})
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "lose", "kind": "talismans"})
    assert refused.value.rule == "card_not_in_hand"


def test_the_drawer_digs_again_through_several_sandstorms_in_a_row() -> None:
    """A3.1e, E11: any number of sandstorms may follow one another; the digging stops
    when the dig site is empty."""
    held = 8
    game = state([cards(coins=held), cards()], sandstorms=3, must_dig=True, tent_uses=0)
    for left in (2, 1, 0):
        game, events = play(game, 0, {"type": "dig"})
        assert types(events) == ["CardDug", "SandstormBegan"]
        for _ in range(held // 2):
            game, events = play(game, 0, {"type": "lose", "kind": "coins"})
        held -= held // 2
        assert types(events) == ["CardLost", "SandstormEnded"] and hand(game, 0) == {"coins": held}
        assert game.dig_site_size == left and game.turn.must_dig == (left > 0)
    assert game.discard_sandstorms == 3 and game.turn.seat == 0


def test_buried_ruins_with_an_empty_reserve_still_suffer_the_sandstorm() -> None:
    """A6.6: once the reserve is empty nothing is added and the sandstorm takes effect."""
    game = state(
        [cards(coins=2), cards()], ruin="buried_ruins", sandstorms=1, must_dig=True, tent_uses=0
    )
    game, events = play(game, 0, {"type": "dig"})
    assert events[1].payload["reserve_added"] == [None, None, None]
    assert game.rooms == (cards(), cards(), cards())
    game, events = play(game, 0, {"type": "lose", "kind": "coins"})
    assert types(events) == ["CardLost", "SandstormEnded"] and hand(game, 0) == {"coins": 1}


def test_a_buried_ruins_room_emptied_by_an_exploration_is_refilled_and_explorable_again() -> None:
    """A6.6: emptied rooms included, each room gets the reserve's top card face up."""
    maps = COMP.ruins["buried_ruins"].maps
    game = state(
        [cards(maps=maps), cards(coins=1)],
        ruin="buried_ruins",
        rooms=[cards(coins=1), cards(talismans=1), cards(pottery_shards=1)],
        reserve=cards(parchment_scrolls=3),
        sandstorms=1,
    )
    game, _ = play(game, 0, {"type": "explore", "room": 0})
    assert game.rooms[0] == cards()
    game, _ = play(game, 0, {"type": "end_turn"})
    game, _ = play(game, 1, {"type": "dig"})
    assert game.rooms == (
        cards(parchment_scrolls=1),
        cards(talismans=1, parchment_scrolls=1),
        cards(pottery_shards=1, parchment_scrolls=1),
    )
    assert game.reserve == cards()
    # The refilled room is public (face up) and may be explored again.
    assert RULES.view(game, None)["rooms"][0] == {"size": 1, "cards": {"parchment_scrolls": 1}}


def test_the_thief_takes_a_random_card_of_the_victims_hand() -> None:
    """E2: the drawer names the victim; the card taken is drawn at random."""
    victim_hand = cards(coins=1, talismans=1)
    game = state([cards(), victim_hand], thieves=1, must_dig=True)
    game, _ = play(game, 0, {"type": "dig"})
    taken: set[str] = set()
    for seed in range(30):
        robbed, events = play(game, 0, {"type": "rob", "victim": 1}, seed=seed)
        (name,) = hand(robbed, 0)
        assert secret(events[0]) == ({"kind": name}, (0, 1))
        assert hand(robbed, 1) == {k: 1 for k in ("coins", "talismans") if k != name}
        taken.add(name)
    assert taken == {"coins", "talismans"}
