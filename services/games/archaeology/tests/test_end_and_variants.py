"""The end of the game (A4, E14-E16), the variants (A7, E17), options and data (E1)."""

from __future__ import annotations

import json
import random

import pytest

from services.engine.domain.ruleset import InvalidOptions, RuleViolation, SetupRequest
from services.games.archaeology.rules import ArchaeologyRuleset
from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.components import load_data, parse_components

from .builders import COMP, RULES, cards, hand, kind, new_game, play, state, types


def test_a_pass_is_impossible_while_the_dig_site_has_cards() -> None:
    game = state([cards(coins=1), cards()], dig_site=cards(coins=1), must_dig=True)
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "end_turn"})
    assert refused.value.rule == "dig_first"


def test_everyone_passing_makes_selling_compulsory_from_the_first_passer() -> None:
    game = state([cards(coins=2), cards(), cards(talismans=1)], seat=1)
    for seat in (1, 2, 0):  # seat 1 passes first
        game, events = play(game, seat, {"type": "end_turn"})
    assert types(events) == ["TurnEnded", "CompulsorySellingBegan"]
    assert events[1].payload["seat"] == 1 and game.compulsory
    # Seat 1 has an empty hand: it can only pass.
    assert RULES.legal_actions(game, 1) == [{"type": "end_turn"}]
    game, _ = play(game, 1, {"type": "end_turn"})
    # Seat 2 holds a card: it must sell before ending its turn (E14).
    assert {"type": "end_turn"} not in RULES.legal_actions(game, 2)
    with pytest.raises(RuleViolation) as refused:
        play(game, 2, {"type": "end_turn"})
    assert refused.value.rule == "sale_required"
    game, _ = play(game, 2, {"type": "sell", "kind": "talismans", "count": 1})
    game, _ = play(game, 2, {"type": "end_turn"})
    game, _ = play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    # Trading and exploring stay allowed; ending needs no more sales.
    assert {"type": "end_turn"} in RULES.legal_actions(game, 0)


def test_the_game_ends_when_the_dig_site_and_every_hand_are_empty() -> None:
    table = COMP.sale[kind("coins")]
    game = state([cards(coins=1), cards(talismans=1)])
    game, events = play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    assert "ExpeditionEnded" not in types(events)
    game, _ = play(game, 0, {"type": "end_turn"})
    game, events = play(game, 1, {"type": "sell", "kind": "talismans", "count": 1})
    assert types(events)[-1] == "ExpeditionEnded"
    assert RULES.is_terminal(game) and RULES.seats_to_act(game) == ()
    result = RULES.result(game)
    assert result is not None
    assert result.scores == (table[0], COMP.sale[kind("talismans")][0])


def test_empty_hands_do_not_end_the_game_while_the_dig_site_has_cards() -> None:
    game = state([cards(coins=1), cards()], dig_site=cards(coins=1))
    game, events = play(game, 0, {"type": "sell", "kind": "coins", "count": 1})
    assert "ExpeditionEnded" not in types(events)  # E15


def test_a_tie_on_points_goes_to_the_seat_that_sold_fewer_cards() -> None:
    # Two sets worth the same points, one needing more cards (found in the data).
    pairs = [
        ((k1, n1), (k2, n2))
        for k1, t1 in enumerate(COMP.sale)
        for n1, p1 in enumerate(t1, 1)
        for k2, t2 in enumerate(COMP.sale)
        for n2, p2 in enumerate(t2, 1)
        if p1 == p2 and n1 < n2
    ]
    (few_kind, few), (many_kind, many) = pairs[0]
    few_name, many_name = COMP.kinds[few_kind], COMP.kinds[many_kind]
    game = state([c.one(len(COMP.kinds), many_kind, many), c.one(len(COMP.kinds), few_kind, few)])
    game, _ = play(game, 0, {"type": "sell", "kind": many_name, "count": many})
    game, _ = play(game, 0, {"type": "end_turn"})
    game, _ = play(game, 1, {"type": "sell", "kind": few_name, "count": few})
    result = RULES.result(game)
    assert result is not None and result.scores[0] == result.scores[1]
    assert result.ranking == (1, 0)


def test_long_expedition_keeps_tablets_and_pendants_and_adds_a_thief() -> None:
    for seats in COMP.long_expedition_seats:
        game = new_game(seats, long_expedition=True)
        kept = {COMP.kinds[k] for k in COMP.long_expedition_keeps}
        assert not any(game.removed[kind(k)] for k in kept)
        extra = COMP.long_expedition_extra_thieves
        assert game.dig_thieves == COMP.thieves_by_seats[seats] + extra
    with pytest.raises(InvalidOptions):
        new_game(COMP.max_seats, long_expedition=True)


def test_sand_hell_puts_every_sandstorm_in_and_gives_tents_two_uses() -> None:
    game = new_game(COMP.max_seats, sand_hell=True)
    assert game.dig_sandstorms == COMP.sand_hell_sandstorms
    assert all(s.tent_uses == COMP.sand_hell_tent_uses for s in game.seats)


def test_lucky_beginner_starts_with_the_lowest_starting_trade_value() -> None:
    for seed in range(20):
        game = new_game(4, seed=seed, lucky_beginner=True)
        values = [c.value(s.hand, COMP.trade) for s in game.seats]
        assert values[game.first_seat] == min(values)


def test_variants_combine() -> None:
    game = new_game(3, long_expedition=True, sand_hell=True, lucky_beginner=True, ruin="mine")
    assert game.options.ruin == "mine" and game.dig_sandstorms == COMP.sand_hell_sandstorms


@pytest.mark.parametrize(
    "options",
    [{"sand_hell": "yes"}, {"sand_hell": 1}, {"ruin": "castle"}, {"ruin": 3}, {"nope": True}],
)
def test_bad_options_are_refused_never_coerced(options: dict[str, object]) -> None:
    with pytest.raises(InvalidOptions):
        RULES.setup(SetupRequest(3, options), random.Random(0))


@pytest.mark.parametrize("seats", [1, 6])
def test_seat_counts_outside_the_data_are_refused(seats: int) -> None:
    with pytest.raises(InvalidOptions):
        RULES.setup(SetupRequest(seats, {}), random.Random(0))


def test_every_number_comes_from_the_data_file() -> None:
    """E1: correcting a provisional value is an edit of components.json alone."""
    data = load_data()
    data = json.loads(json.dumps(data))
    for treasure in data["treasures"]:
        if treasure["kind"] == "coins":
            treasure["sale"] = [5, 50]
            treasure["trade"] = 7
    data["specials"]["sandstorms"]["by_seats"]["3"] = 1
    rules = ArchaeologyRuleset(parse_components(data))
    game = state([cards(coins=3), cards()])
    events = rules.decide(game, 0, {"type": "sell", "kind": "coins", "count": 2}, random.Random(0))
    assert events[0].payload["points"] == 50
    sales = [a for a in rules.legal_actions(game, 0) if a["type"] == "sell"]
    assert len(sales) == 2  # the new table has two entries
    opening = rules.setup(SetupRequest(3, {}), random.Random(0))[0]
    assert opening.payload["dig_sandstorms"] == 1
    assert hand(game, 0) == {"coins": 3}


def test_a_turn_with_an_action_breaks_the_run_of_passes() -> None:
    """A4: N passes *in a row*; a turn in which the seat acted is not a pass."""
    game = state([cards(coins=2), cards(talismans=1)], seat=0)
    game, _ = play(game, 0, {"type": "end_turn"})  # a pass
    game, _ = play(game, 1, {"type": "sell", "kind": "talismans", "count": 1})
    game, events = play(game, 1, {"type": "end_turn"})
    assert events[0].payload["passed"] is False and game.passes == 0
    game, events = play(game, 0, {"type": "end_turn"})
    assert types(events) == ["TurnEnded"] and not game.compulsory
    game, events = play(game, 1, {"type": "end_turn"})
    assert types(events) == ["TurnEnded", "CompulsorySellingBegan"]
    assert events[1].payload["seat"] == 0  # the first passer of the run plays next


def test_a_cancelled_trade_is_no_action_and_ending_the_turn_is_a_pass() -> None:
    game = state([cards(coins=1), cards()], market=cards(coins=1))
    game, _ = play(game, 0, {"type": "offer", "kind": "coins"})
    game, _ = play(game, 0, {"type": "cancel_trade"})
    game, events = play(game, 0, {"type": "end_turn"})
    assert events[0].payload["passed"] is True and game.passes == 1


def test_a_seat_with_an_empty_hand_can_only_pass_once_the_dig_site_is_empty() -> None:
    """A4: with nothing to dig and nothing in hand, the one action is the pass."""
    game = state([cards(), cards(coins=1)], market=cards(coins=3), rooms=[cards(coins=1)] * 3)
    assert RULES.legal_actions(game, 0) == [{"type": "end_turn"}]
    game, events = play(game, 0, {"type": "end_turn"})
    assert events[0].payload["passed"] is True


def test_compulsory_selling_still_allows_trades_and_explorations() -> None:
    """E14: at least one sale before ending the turn; trading and exploring stay allowed."""
    game = state(
        [cards(maps=1, coins=1), cards()],
        market=cards(coins=1),
        rooms=[cards(talismans=1), cards(), cards()],
    )
    game, _ = play(game, 0, {"type": "end_turn"})
    game, events = play(game, 1, {"type": "end_turn"})
    assert types(events)[-1] == "CompulsorySellingBegan" and game.compulsory
    legal = RULES.legal_actions(game, 0)
    assert {"type": "explore", "room": 0} in legal and {"type": "offer", "kind": "coins"} in legal
    assert {"type": "end_turn"} not in legal
    game, _ = play(game, 0, {"type": "explore", "room": 0})
    game, _ = play(game, 0, {"type": "offer", "kind": "coins"})
    game, _ = play(game, 0, {"type": "choose", "kind": "coins"})
    game, _ = play(game, 0, {"type": "confirm_trade"})
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "end_turn"})
    assert refused.value.rule == "sale_required"
    game, _ = play(game, 0, {"type": "sell", "kind": "talismans", "count": 1})
    game, _ = play(game, 0, {"type": "end_turn"})
    assert game.compulsory and game.turn.seat == 1  # until the game ends


def test_the_game_ends_at_once_when_the_last_hand_empties_mid_turn() -> None:
    """E15: a mine bust that spends the last card of the last hand ends the game."""
    dear = max(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    needed = COMP.ruins["mine"].params["bust_over_trade_total"] // COMP.trade[kind(dear)] + 1
    game = state([cards(maps=1), cards()], ruin="mine", rooms=[cards(**{dear: needed})])
    game, events = play(game, 0, {"type": "explore", "room": 0})
    while types(events)[-1] != "ExpeditionEnded":
        assert not RULES.is_terminal(game)
        game, events = play(game, 0, {"type": "mine", "go": True})
    assert types(events)[-2:] == ["MineBusted", "ExpeditionEnded"]
    with pytest.raises(RuleViolation) as refused:
        play(game, 0, {"type": "end_turn"})
    assert refused.value.rule == "game_over"


def test_a_tie_on_points_and_cards_sold_is_shared_in_seat_order() -> None:
    """E16: the ranking lists the tied seats in seat order; scores and cards say it."""
    name = COMP.kinds[0]
    game = state([cards(), cards(**{name: 1}), cards(**{name: 1})], seat=1)
    game, _ = play(game, 1, {"type": "sell", "kind": name, "count": 1})
    game, _ = play(game, 1, {"type": "end_turn"})
    game, events = play(game, 2, {"type": "sell", "kind": name, "count": 1})
    ended = events[-1]
    assert ended.type == "ExpeditionEnded"
    points = COMP.sale[0][0]
    assert ended.payload["scores"] == [0, points, points]
    assert ended.payload["cards_sold"] == [0, 1, 1]
    assert ended.payload["ranking"] == [1, 2, 0]


def test_acting_out_of_turn_is_refused() -> None:
    game = state([cards(coins=1), cards(coins=1)])
    for action in ({"type": "end_turn"}, {"type": "sell", "kind": "coins", "count": 1}):
        with pytest.raises(RuleViolation) as refused:
            play(game, 1, action)
        assert refused.value.rule == "not_your_turn"
    assert RULES.legal_actions(game, 1) == []


def test_lucky_beginner_ties_are_drawn_among_the_lowest_only() -> None:
    """A7, E7: the lowest starting trade value starts; a tie is drawn at random."""
    from services.games.archaeology.rules.options import ArchaeologyOptions
    from services.games.archaeology.rules.setup import _first_seat

    cheap = min(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    dear = max(COMP.kinds, key=lambda k: COMP.trade[kind(k)])
    hands = [cards(**{dear: 4}), cards(**{cheap: 4}), cards(**{cheap: 4})]
    options = ArchaeologyOptions(lucky_beginner=True)
    starters = {_first_seat(COMP, hands, options, random.Random(seed)) for seed in range(40)}
    assert starters == {1, 2}


def test_without_a_ruin_option_the_ruin_is_drawn() -> None:
    """A2.4: the default ruin is random, from the data's ruins."""
    drawn = {new_game(3, seed=seed).options.ruin for seed in range(60)}
    assert drawn == set(COMP.ruins)


def test_long_expedition_puts_the_kept_kinds_into_the_game() -> None:
    """A7: with long_expedition the kinds removed for 2-3 seats are dealt and dug."""
    for seats in COMP.long_expedition_seats:
        game = new_game(seats, seed=seats, long_expedition=True, ruin="pyramid")
        for k in COMP.long_expedition_keeps:
            dealt = sum(s.hand[k] for s in game.seats) + game.market[k]
            dealt += sum(room[k] for room in game.rooms) + game.dig_site[k]
            assert dealt == COMP.counts[k] and game.removed[k] == 0
        plain = new_game(seats, seed=seats, ruin="pyramid")
        assert sum(plain.removed) == sum(COMP.counts[k] for k in COMP.removed_by_seats[seats])
