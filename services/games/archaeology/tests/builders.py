"""Constructed Archaeology states for rule tests, and small helpers to play on them."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from services.engine.domain.ruleset import DomainEvent, SetupRequest
from services.games.archaeology.rules import ArchaeologyRuleset
from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.components import components
from services.games.archaeology.rules.state import GameState, Options, SeatState, Turn

RULES = ArchaeologyRuleset()
COMP = components()
KINDS = COMP.kinds


def cards(**counts: int) -> c.Cards:
    """A multiset from keyword counts, e.g. ``cards(coins=2, maps=1)``."""
    return c.from_json(counts, KINDS)


def kind(name: str) -> int:
    """Index of treasure kind ``name``."""
    return COMP.kind_index(name)


def state(
    hands: Sequence[c.Cards],
    *,
    ruin: str = "pyramid",
    dig_site: c.Cards | None = None,
    thieves: int = 0,
    sandstorms: int = 0,
    market: c.Cards | None = None,
    rooms: Sequence[c.Cards] | None = None,
    reserve: c.Cards | None = None,
    seat: int = 0,
    must_dig: bool = False,
    tent_uses: int = 1,
    **options: bool,
) -> GameState:
    """A mid-game state with the given piles (anything not given is empty)."""
    empty = c.empty(len(KINDS))
    ruin_rooms = COMP.ruins[ruin].rooms
    room_cards = tuple(rooms) if rooms is not None else tuple(empty for _ in ruin_rooms)
    return GameState(
        options=Options(ruin=ruin, **options),
        seats=tuple(SeatState(hand=h, tent_uses=tent_uses) for h in hands),
        dig_site=dig_site or empty,
        dig_thieves=thieves,
        dig_sandstorms=sandstorms,
        market=market or empty,
        rooms=room_cards,
        reserve=reserve or empty,
        discard=empty,
        removed=empty,
        first_seat=0,
        turn=Turn(seat, must_dig=must_dig),
        known_rooms=((),) * len(hands),
        hidden_hands=(0,) * len(hands),
        hidden_rooms=(0,) * len(room_cards),
    )


def play(
    game: GameState, seat: int, action: Mapping[str, Any], seed: int = 0
) -> tuple[GameState, list[DomainEvent]]:
    """Decide ``action`` and fold its events: (new state, events)."""
    events = RULES.decide(game, seat, action, random.Random(seed))
    for event in events:
        game = RULES.evolve(game, event)
    return game, events


def types(events: Sequence[DomainEvent]) -> list[str]:
    """The events' types, in order."""
    return [e.type for e in events]


def new_game(seats: int, seed: int = 0, **options: Any) -> GameState:
    """A freshly set-up game."""
    events = RULES.setup(SetupRequest(seats, options), random.Random(seed))
    game: GameState | None = None
    for event in events:
        game = RULES.evolve(game, event)
    assert game is not None
    return game


def hand(game: GameState, seat: int) -> dict[str, int]:
    """A seat's hand as ``{kind: count}``."""
    return c.to_json(game.seats[seat].hand, KINDS)


def secret(event: DomainEvent) -> tuple[Any, tuple[int, ...]]:
    """The one sealed part of ``event``: (value, seats entitled to see it)."""
    ((part),) = event.sealed.values()
    return part.value, part.seats


def with_turn(game: GameState, **changes: Any) -> GameState:
    """``game`` with its turn bookkeeping changed."""
    return replace(game, turn=replace(game.turn, **changes))
