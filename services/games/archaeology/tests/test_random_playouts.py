"""Random full games over seat counts, ruins and variants: every game ends, no count goes
negative, every card is accounted for, the log refolds to the same state, snapshots
round-trip, and readers never see another seat's secrets."""

from __future__ import annotations

import os
import random
from collections import defaultdict
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.domain.ruleset import DomainEvent, RuleViolation, SetupRequest
from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.state import GameState, MinePending

from .builders import COMP, RULES

PLAYOUTS = int(os.environ.get("TEOTI_PLAYOUTS", "1000"))
"""Full random games of the slow run (issue 14: 1,000); the default run plays a sample."""
MAX_STEPS = 20_000


def card_locations(game: GameState) -> dict[str, int]:
    """Every card of the box by where it is (sums to the components' total)."""
    mine = game.pending.revealed if isinstance(game.pending, MinePending) else ()
    tents_in_play = sum(1 for s in game.seats if s.tent_uses > 0) * COMP.tents_per_seat
    return {
        "dig_site": game.dig_site_size,
        "hands": sum(c.size(s.hand) for s in game.seats),
        "market": c.size(game.market),
        "rooms": sum(c.size(r) for r in game.rooms),
        "reserve": c.size(game.reserve),
        "mine_revealed": c.size(mine) if mine else 0,
        "discard": c.size(game.discard) + game.discard_thieves + game.discard_sandstorms,
        "museum": sum(s.cards_sold for s in game.seats),
        "tents": tents_in_play,
        "removed": c.size(game.removed)
        + (COMP.thieves_total - game.dig_thieves - game.discard_thieves)
        + (COMP.sandstorms_total - game.dig_sandstorms - game.discard_sandstorms)
        + (COMP.tents_total - tents_in_play),
    }


def check_invariants(game: GameState) -> None:
    piles = [game.dig_site, game.market, game.reserve, game.discard, game.removed, *game.rooms]
    piles += [s.hand for s in game.seats]
    assert all(n >= 0 for pile in piles for n in pile)
    assert min(game.dig_thieves, game.dig_sandstorms, *(s.tent_uses for s in game.seats)) >= 0
    assert sum(card_locations(game).values()) == COMP.card_total == 106


HIDDEN_KEYS = {"hands", "dig_site", "reserve"}
"""Payload keys that would carry hidden values (A5): never in a public payload."""


def check_secrecy(event: DomainEvent) -> None:
    """Hidden values travel only as sealed parts, each visible to the right seats."""
    p = event.payload
    assert not HIDDEN_KEYS & set(p), event
    seats = [part.seats for part in event.sealed.values()]
    if event.type == "ExpeditionSetUp":
        assert ("rooms" in p) == COMP.ruins[p["ruin"]].face_up
        assert sorted(seats) == sorted(
            [(), (), *(() for _ in [0] if "rooms" not in p)] + [(s,) for s in range(p["seats"])]
        )
    elif event.type == "CardStolen":
        assert seats == [(p["seat"], p["victim"])] and "kind" not in p
    elif (
        (event.type == "CardDug" and p["card"] == "treasure")
        or event.type in ("TombSearched", "RoomPeeked")
        or (event.type == "RoomCardsTaken" and not p["face_up"])
    ):
        assert seats == [(p["seat"],)] and "cards" not in p and "kind" not in p
    else:
        assert not event.sealed


def as_logged(event: DomainEvent) -> DomainEvent:
    """``event`` as a public reader gets it: sealed values replaced by commitments."""
    if not event.sealed:
        return DomainEvent(event.type, event.payload, event.schema_version)
    committed = {
        k: {"commitment": "0" * 64, "seats": list(v.seats)} for k, v in event.sealed.items()
    }
    return DomainEvent(event.type, {**event.payload, "sealed": committed}, event.schema_version)


def play_out(
    seed: int, seats: int, options: dict[str, Any], public: bool = False
) -> tuple[GameState, list[DomainEvent]]:
    """A random game; with ``public``, a reader folding the public log alongside sees the
    same public view after every action."""
    rng = random.Random(seed)
    log = RULES.setup(SetupRequest(seats, options), random.Random(seed))
    game: GameState | None = None
    reader: GameState | None = None
    for event in log:
        check_secrecy(event)
        game = RULES.evolve(game, event)
        reader = RULES.evolve(reader, as_logged(event)) if public else None
    assert game is not None
    for _ in range(MAX_STEPS):
        if RULES.is_terminal(game):
            return game, log
        (seat,) = RULES.seats_to_act(game)
        action = rng.choice(list(RULES.legal_actions(game, seat)))
        events = RULES.decide(game, seat, action, random.Random(rng.random()))
        for event in events:
            check_secrecy(event)
            game = RULES.evolve(game, event)
            if public:
                reader = RULES.evolve(reader, as_logged(event))
        check_invariants(game)
        if public:
            assert RULES.view(reader, None) == RULES.view(game, None)
        log += events
    raise AssertionError(f"game {seed} did not end in {MAX_STEPS} steps")


def every_setup() -> list[tuple[int, dict[str, Any]]]:
    """Every seat count x ruin x combination of variants (``long_expedition`` only where
    the data allows it, A7, E17)."""
    setups = []
    for seats in range(COMP.min_seats, COMP.max_seats + 1):
        longs = (False, True) if seats in COMP.long_expedition_seats else (False,)
        for ruin, long_expedition, sand_hell, lucky in product(
            sorted(COMP.ruins), longs, (False, True), (False, True)
        ):
            options: dict[str, Any] = {"ruin": ruin, "sand_hell": sand_hell}
            options["lucky_beginner"] = lucky
            if long_expedition:
                options["long_expedition"] = True
            setups.append((seats, options))
    return setups


SETUPS = every_setup()


def check_full_game(seed: int, seats: int, options: dict[str, Any]) -> None:
    """One random game ends with a result, its log refolds to the same state and its
    snapshot round-trips (invariants are checked after every action by play_out)."""
    game, log = play_out(seed, seats, options, public=seed % 4 == 0)
    assert c.size(game.market) + sum(s.cards_sold for s in game.seats) > 0
    refolded: GameState | None = None
    for event in log:
        refolded = RULES.evolve(refolded, event)
    assert refolded == game
    assert RULES.restore(RULES.snapshot(game)) == game
    result = RULES.result(game)
    assert result is not None and sorted(result.ranking) == list(range(seats))


def sample_setups() -> list[tuple[int, dict[str, Any]]]:
    """One setup per seat count x ruin, each taking the next variant combination of its
    pair in turn, so that the sample still plays every variant."""
    by_pair: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
    for seats, options in SETUPS:
        by_pair[(seats, options["ruin"])].append(options)
    return [
        (seats, combos[n % len(combos)])
        for n, ((seats, _), combos) in enumerate(sorted(by_pair.items()))
    ]


def test_random_games_of_every_seat_count_and_ruin() -> None:
    """The default run's sample of the slow test below."""
    played = sample_setups()
    assert len(played) == len(COMP.ruins) * (COMP.max_seats - COMP.min_seats + 1)
    for variant in ("long_expedition", "sand_hell", "lucky_beginner"):
        assert any(options.get(variant) for _, options in played), variant
    for seed, (seats, options) in enumerate(played):
        check_full_game(seed, seats, options)


@pytest.mark.slow
def test_a_thousand_random_games_over_every_setup() -> None:
    """Issue 14: 1,000 random full games (TEOTI_PLAYOUTS to change it) cycling through
    every seat count x ruin x variant combination: no negative count, all 106 cards
    accounted for after every action, the fold equals the state."""
    for seed in range(PLAYOUTS):
        seats, options = SETUPS[seed % len(SETUPS)]
        check_full_game(seed, seats, options)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 200),
    junk=st.dictionaries(
        st.sampled_from(["type", "kind", "count", "room", "victim", "use", "go", "named", "cards"]),
        st.one_of(
            st.none(),
            st.integers(-3, 9),
            st.text(max_size=12),
            st.booleans(),
            st.lists(st.text(max_size=8), max_size=3),
        ),
    ),
)
def test_refusals_change_nothing(seed: int, steps: int, junk: dict[str, Any]) -> None:
    """Any action, legal or not, either is refused with a RuleViolation or yields events
    that fold; the state before is untouched (it is immutable) and snapshots still match."""
    rng = random.Random(seed)
    game: GameState | None = None
    for event in RULES.setup(SetupRequest(3, {"ruin": rng.choice(sorted(COMP.ruins))}), rng):
        game = RULES.evolve(game, event)
    assert game is not None
    for _ in range(steps):
        if RULES.is_terminal(game):
            break
        (seat,) = RULES.seats_to_act(game)
        action = rng.choice(list(RULES.legal_actions(game, seat)))
        for event in RULES.decide(game, seat, action, random.Random(rng.random())):
            game = RULES.evolve(game, event)
    before = RULES.snapshot(game)
    for seat in range(3):
        try:
            events = RULES.decide(game, seat, junk, random.Random(0))
        except RuleViolation as refusal:
            assert refusal.rule and refusal.message
            continue
        assert junk in RULES.legal_actions(game, seat) or junk.get("type") in {
            "confirm_trade",
            "cancel_trade",
            "end_turn",
            "dig",
            "no_peek",
        }
        for event in events:
            RULES.evolve(game, event)
    assert RULES.snapshot(game) == before
