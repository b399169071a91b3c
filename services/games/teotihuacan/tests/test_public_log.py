"""Teotihuacan's public log (docs/events.md "Teotihuacan"): explicit setup payload, sealed
hidden tiles, folds of the public events alone, and upcasters from the v1 events of old
logs (where hidden tiles were written in clear, hence public)."""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.domain.commitments import commitment, new_nonce
from services.engine.domain.ruleset import DomainEvent, SetupRequest
from services.games.teotihuacan.rules.components import components
from services.games.teotihuacan.rules.public_setup import (
    DISCOVERY_BAG,
    setup_event,
    state_from_setup,
)
from services.games.teotihuacan.rules.state import GameState, state_to_dict
from services.games.teotihuacan.rules.tasks import AGENDA_FIELDS, TASK_TYPES, task_field_names

from .builders import RULES

OPTION_SETS: list[tuple[int, dict[str, Any]]] = [
    (4, {"first_game": True}),
    (3, {"first_game": False}),
    (2, {"first_game": False, "draft_starting_tiles": True}),
    (2, {"solo": True, "first_game": False}),
    (2, {"solo": True, "first_game": True}),
]


def _public(event: DomainEvent) -> DomainEvent:
    """``event`` as a folder without the service-only secrets sees it."""
    return DomainEvent(event.type, event.payload, event.schema_version)


def _v1(event: DomainEvent, before: GameState | None) -> DomainEvent | None:
    """The v1 (today's logs) form of a v2 event, from the state it folds onto."""
    if event.type == "GameSetUp":
        return DomainEvent("GameSetUp", {"state": state_to_dict(state_from_setup(event))})
    if event.type == "StartingTilesChosen":
        (choice,) = event.sealed.values()
        return DomainEvent(event.type, {"seat": event.payload["seat"], "tiles": choice.value})
    if event.type == "StartingTilesRevealed":
        return DomainEvent(event.type, {"choices": event.payload["choices"]})
    if event.type == "StartingTilesReturned":
        (returned,) = event.sealed.values()
        return DomainEvent(event.type, {"discoveries": returned.value})
    return None


def _batches(seats: int, options: dict[str, Any], seed: int, steps: int) -> list[list[DomainEvent]]:
    """The setup batch, then one batch per decision, of a seeded random game."""
    rng = random.Random(seed)
    batches = [RULES.setup(SetupRequest(seat_count=seats, options=options), rng)]
    state: Any = None
    for event in batches[0]:
        state = RULES.evolve(state, event)
    for _ in range(steps):
        if RULES.is_terminal(state):
            break
        seat = rng.choice(RULES.seats_to_act(state))
        new, state = RULES.apply(
            state, seat, rng.choice(list(RULES.legal_actions(state, seat))), rng
        )
        batches.append(new)
    return batches


def _play(seats: int, options: dict[str, Any], seed: int, steps: int) -> list[DomainEvent]:
    return [e for batch in _batches(seats, options, seed, steps) for e in batch]


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(OPTION_SETS), st.integers(0, 10_000))
def test_the_setup_payload_rebuilds_the_opening_state_exactly(
    setup: tuple[int, dict[str, Any]], seed: int
) -> None:
    seats, options = setup
    (first, *_rest) = RULES.setup(SetupRequest(seats, options), random.Random(seed))
    state = state_from_setup(first)
    assert state_from_setup(setup_event(state)) == state
    assert "state" not in first.payload and first.schema_version == 2
    secret_hands = any(state.players[s].starting_tiles for s in range(seats))
    if secret_hands and not state.starting_tile_offer:  # the bag would tell the hands
        bag = first.sealed[DISCOVERY_BAG].value
        assert first.sealed[DISCOVERY_BAG].seats == () and DISCOVERY_BAG not in first.payload
    else:  # first game, draft: nothing face down, the bag is deducible anyway
        bag = first.payload[DISCOVERY_BAG]
        assert not first.sealed
    assert first.payload["discovery_bag_size"] == len(bag) == len(state.discovery_supply)


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(OPTION_SETS), st.integers(0, 10_000))
def test_the_public_events_alone_fold_to_the_same_public_view(
    setup: tuple[int, dict[str, Any]], seed: int
) -> None:
    """What ``teoti replay --verify`` relies on: a fold without the sealed values shows
    the public view exactly as the service (which folds them) does, after every append
    (the versions a log's head can be at)."""
    seats, options = setup
    whole: Any = None
    public: Any = None
    for batch in _batches(seats, options, seed, 150):
        for event in batch:
            whole = RULES.evolve(whole, event)
            public = RULES.evolve(public, _public(event))
        assert RULES.view(public, None) == RULES.view(whole, None), batch[0].type
        assert RULES.seats_to_act(public) == RULES.seats_to_act(whole)


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(OPTION_SETS[1:4]), st.integers(0, 10_000))
def test_v1_events_of_old_logs_upcast_and_fold_to_the_same_states(
    setup: tuple[int, dict[str, Any]], seed: int
) -> None:
    seats, options = setup
    current: Any = None
    old: Any = None
    for event in _play(seats, options, seed, 60):
        legacy = _v1(event, current)
        current = RULES.evolve(current, event)
        if legacy is not None:
            upcast = RULES.upcast(legacy)
            assert upcast.schema_version == event.schema_version == 2
            assert (
                dict(upcast.payload) == dict(event.payload) or event.type == "StartingTilesRevealed"
            )
            assert {k: v.value for k, v in upcast.sealed.items()} == {
                k: v.value for k, v in event.sealed.items()
            }
        old = RULES.evolve(old, RULES.upcast(legacy if legacy is not None else event))
        assert old == current or event.type == "StartingTilesRevealed"


def test_nothing_is_recovered_from_the_starting_tile_commitments() -> None:
    """Every candidate of every sealed part, hashed as a spectator can (no nonce, or any
    nonce it might guess): none matches what the log shows."""
    tiles = range(len(components().raw["starting_tiles"]))
    discoveries = range(len(components().raw["discovery_tiles"]))
    events = _play(3, {"first_game": False}, 7, 6)
    sealed = {k: v.value for e in events for k, v in e.sealed.items()}
    nonces = {k: new_nonce() for k in sealed}  # what the engine draws; unknown to spectators
    shown = {commitment(v, nonces[k]) for k, v in sealed.items()}
    guesses = ["", "00" * 16, "00" * 32, "ff" * 32]
    candidates: list[Any] = [list(p) for p in itertools.permutations(tiles, 2)]
    candidates += [
        {"tiles": list(hand), "discoveries": v["discoveries"]}
        for k, v in sealed.items()
        if k.startswith("starting_hand")
        for hand in itertools.permutations(v["tiles"])
    ]
    returned = sealed["returned_discoveries"]
    candidates += [sorted(c) for c in itertools.combinations(discoveries, len(returned))]
    for candidate in candidates:
        for nonce in guesses:
            assert commitment(candidate, nonce) not in shown
    assert sealed["returned_discoveries"] in candidates  # the true value was among them


def test_the_agenda_wire_format_is_explicit_and_matches_every_task_class() -> None:
    """AgendaUpdated v1 is written from AGENDA_FIELDS, not reflected from the classes: a
    renamed class keeps its kind, and a renamed or added field fails here (bump the
    version and add an upcaster instead of changing the logs silently)."""
    assert set(TASK_TYPES) == set(AGENDA_FIELDS)
    for kind, cls in TASK_TYPES.items():
        assert task_field_names(cls) == AGENDA_FIELDS[kind], kind
