"""The end of the game (A4, E14-E16), the variants (A7, E17), options and data (E1)."""

from __future__ import annotations

import json
import random

import pytest

from services.engine.rules.archaeology import ArchaeologyRuleset
from services.engine.rules.archaeology import cards as c
from services.engine.rules.archaeology.components import load_data, parse_components
from services.engine.ruleset import InvalidOptions, RuleViolation, SetupRequest

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
