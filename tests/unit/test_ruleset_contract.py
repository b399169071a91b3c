"""The Ruleset contract, swept over every registered ruleset (and the test Nim), in the
spirit of OpenSpiel's games simulation test: random play always ends with a result;
``decide`` then ``evolve`` equals ``apply``; snapshots round-trip; every action and event
has a description; refusals change nothing; views keep other seats' hands out."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from services.engine.domain.ruleset import (
    RuleViolation,
    SetupRequest,
    bot_policy_of,
    decide_and_fold,
    info_of,
    supports_snapshots,
)
from services.engine.domain.rulesets import default_registry
from tests.nim import NimRuleset

GAMES = 6
MAX_STEPS = 20_000


def _seat_counts() -> dict[str, tuple[int, ...]]:
    """Seat counts swept per ruleset: every count each registered game's RulesetInfo
    allows (min to max), and the test Nim's."""
    registry = default_registry()
    counts = {"nim": (2, 3, 4)}
    for name in registry.names():
        info = info_of(registry.get(name))
        counts[name] = tuple(range(info.min_seats, info.max_seats + 1))
    return counts


SEATS = _seat_counts()


def _rulesets() -> list[Any]:
    registry = default_registry()
    return [registry.get(name) for name in registry.names()] + [NimRuleset()]


@pytest.fixture(params=_rulesets(), ids=lambda r: r.name)
def rules(request: pytest.FixtureRequest) -> Any:
    return request.param


def test_every_registered_ruleset_is_swept() -> None:
    assert set(default_registry().names()) <= set(SEATS)


def _describe_all(rules: Any, state: Any, seat: int) -> list[Any]:
    legal = list(rules.legal_actions(state, seat))
    assert legal, f"{rules.name}: seat {seat} must act but has no legal action"
    for action in legal:
        json.dumps(action)  # JSON-safe
        text = rules.describe_action(action)
        assert isinstance(text, str) and text and "unknown" not in text
    return legal


def test_random_play_ends_with_a_result_and_keeps_the_contract(rules: Any) -> None:
    for game in range(GAMES):
        rng = random.Random(game)
        seats = rng.choice(SEATS[rules.name])
        state: Any = None
        for event in rules.setup(SetupRequest(seats, {}), random.Random(game)):
            state = rules.evolve(state, event)
        for _ in range(MAX_STEPS):
            if rules.is_terminal(state):
                break
            to_act = rules.seats_to_act(state)
            assert to_act and all(0 <= s < seats for s in to_act)
            seat = rng.choice(to_act)
            legal = _describe_all(rules, state, seat)
            action = rng.choice(legal)
            seed = rng.random()
            events = rules.decide(state, seat, action, random.Random(seed))
            folded = state
            for event in events:
                json.dumps(dict(event.payload))
                assert rules.describe_event(event)
                folded = rules.evolve(folded, event)
            apply = getattr(rules, "apply", None)
            if apply is not None:
                applied_events, applied = apply(state, seat, action, random.Random(seed))
                assert applied_events == events and applied == folded
            # What the engine calls: apply where offered, else decide + evolve.
            assert decide_and_fold(rules, state, seat, action, random.Random(seed)) == (
                events,
                folded,
            )
            for other in range(seats):
                view = rules.view(folded, other)
                json.dumps(view)
            json.dumps(rules.view(folded, None))
            state = folded
        else:
            raise AssertionError(f"{rules.name} game {game} did not end")
        result = rules.result(state)
        assert result is not None and sorted(result.ranking) == list(range(seats))
        assert len(result.scores) == seats
        if supports_snapshots(rules):
            assert rules.restore(json.loads(json.dumps(rules.snapshot(state)))) == state


def test_refusals_change_nothing(rules: Any) -> None:
    rng = random.Random(7)
    seats = SEATS[rules.name][0]
    state: Any = None
    for event in rules.setup(SetupRequest(seats, {}), rng):
        state = rules.evolve(state, event)
    before = rules.view(state, None)
    junk: list[dict[str, Any]] = [{}, {"type": []}, {"type": "no-such-action"}, {"take": -1}]
    for seat in range(seats):
        for action in junk:
            with pytest.raises(RuleViolation) as refused:
                rules.decide(state, seat, action, random.Random(0))
            assert refused.value.rule and refused.value.message
    assert rules.view(state, None) == before


def test_the_bot_of_a_ruleset_picks_a_legal_action(rules: Any) -> None:
    bot = bot_policy_of(rules)
    if bot is None:
        pytest.skip(f"{rules.name} has no bot of its own (the worker plays randomly)")
    state: Any = None
    for event in rules.setup(SetupRequest(SEATS[rules.name][0], {}), random.Random(3)):
        state = rules.evolve(state, event)
    for _ in range(30):
        if rules.is_terminal(state):
            break
        seat = rules.seats_to_act(state)[0]
        legal = list(rules.legal_actions(state, seat))
        action = bot.choose(rules, state, seat, legal, random.Random(1))
        assert action in legal
        for event in rules.decide(state, seat, action, random.Random(2)):
            state = rules.evolve(state, event)


def test_the_declared_seat_counts_are_the_ones_setup_accepts(rules: Any) -> None:
    info = info_of(rules)
    for seats in range(max(info.min_seats - 1, 0), info.max_seats + 2):
        request = SetupRequest(seats, {})
        if info.min_seats <= seats <= info.max_seats:
            assert rules.setup(request, random.Random(0)), seats
        else:
            with pytest.raises(RuleViolation):
                rules.setup(request, random.Random(0))
    if info.solo is not None:
        solo = SetupRequest(info.solo.seats, dict(info.solo.options))
        assert rules.setup(solo, random.Random(0))
