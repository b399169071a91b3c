"""The turn's free actions, listed in one pass over the hand, are exactly the long way's.

``decide._free_actions`` lists the offers and the museum sales together; the long way
below builds them as the rules state them: an offer per kind held, then the explorations,
then every sale ``museum.sellable`` allows, then ending the turn if
``turn.may_end_turn`` allows it. Same actions, same order (a random player's choice
depends on the order, so the golden games do too).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.domain.ruleset import JsonDict, RuleViolation
from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules import museum, ruins, turn
from services.games.archaeology.rules.decide import _free_actions
from services.games.archaeology.rules.state import GameState

from .builders import COMP, KINDS, RULES, new_game, play, state, with_turn
from .test_random_playouts import SETUPS, play_out


def long_way(game: GameState, seat: int) -> list[JsonDict]:
    """The free actions built one rule at a time."""
    actions: list[JsonDict] = [
        {"type": "offer", "kind": KINDS[k]} for k, n in enumerate(game.seats[seat].hand) if n
    ]
    ruin = COMP.ruins[game.options.ruin]
    for room in ruins.explorable_rooms(game, ruin, seat, COMP.map_kind):
        if ruin.special == ruins.SPHINX:
            actions += [
                {"type": "explore", "room": room, "named": [KINDS[a], KINDS[b]]}
                for a, b in ruins.sphinx_namings(len(KINDS))
            ]
        else:
            actions.append({"type": "explore", "room": room})
    actions += [
        {"type": "sell", "kind": KINDS[k], "count": n}
        for k, n in museum.sellable(game, seat, COMP.sale)
    ]
    if turn.may_end_turn(game, seat):
        actions.append({"type": "end_turn"})
    return actions


counts = st.tuples(*(st.integers(min_value=0, max_value=7) for _ in KINDS))


@settings(max_examples=300, deadline=None)
@given(
    hand=counts,
    room=counts,
    ruin=st.sampled_from(sorted(COMP.ruins)),
    sold=st.lists(st.integers(0, len(KINDS) - 1), unique=True, max_size=4),
    flags=st.fixed_dictionaries(
        {"acted": st.booleans(), "explored": st.booleans(), "compulsory": st.booleans()}
    ),
)
def test_free_actions_are_the_long_ways(
    hand: c.Cards, room: c.Cards, ruin: str, sold: list[int], flags: dict[str, bool]
) -> None:
    rooms = [room] + [c.empty(len(KINDS))] * (len(COMP.ruins[ruin].rooms) - 1)
    game = state([hand, c.empty(len(KINDS))], ruin=ruin, rooms=rooms)
    game = with_turn(game, sold=tuple(sold), acted=flags["acted"], explored=flags["explored"])
    game = replace(game, compulsory=flags["compulsory"])
    assert _free_actions(COMP, game, 0) == long_way(game, 0)


def test_free_actions_after_every_event_of_seeded_games() -> None:
    """Every state of seeded random games (every ruin) where the free actions apply."""
    checked = 0
    for seed in range(0, len(SETUPS), len(SETUPS) // 24):
        seats, options = SETUPS[seed]
        _, log = play_out(seed, seats, options)
        game: GameState | None = None
        for event in log:
            game = RULES.evolve(game, event)
            if game.ended or game.pending is not None or game.turn.must_dig:
                continue
            seat = game.turn.seat
            assert _free_actions(COMP, game, seat) == long_way(game, seat)
            checked += 1
    assert checked > 1000


def test_only_the_seats_to_act_have_actions_at_every_decision_of_seeded_games() -> None:
    """``legal_actions`` and ``decide`` answer "not your turn" without ``seats_to_act``
    when nothing is pending; the answer is the same as asking it, at every decision and at
    the end."""
    for seed in range(6):
        seats, options = SETUPS[seed * 7 % len(SETUPS)]
        rng = random.Random(seed)
        game = new_game(seats, seed, **options)
        while True:
            acting = RULES.seats_to_act(game)
            for seat in range(seats):
                assert bool(RULES.legal_actions(game, seat)) == (seat in acting)
                if seat not in acting and not game.ended:
                    with pytest.raises(RuleViolation) as refused:
                        RULES.decide(game, seat, {"type": "end_turn"}, random.Random(0))
                    assert refused.value.rule == "not_your_turn"
            if game.ended:
                break
            seat = acting[0]
            action = rng.choice(list(RULES.legal_actions(game, seat)))
            game, _ = play(game, seat, action, seed=rng.randrange(1 << 30))
        assert acting == ()
