"""Counted words in the log read as a person writes them: one map, two maps (never
"map(s)")."""

from __future__ import annotations

from services.engine.domain.ruleset import DomainEvent
from services.games.archaeology.rules.describe import describe_event


def _explored(maps: int) -> str:
    return describe_event(DomainEvent("RuinExplored", {"seat": 0, "maps": maps, "room": 1}))


def _taken(count: int) -> str:
    payload = {"seat": 1, "count": count, "room": 0, "cards": {"coins": count}}
    return describe_event(DomainEvent("RoomCardsTaken", payload))


def test_maps_spent_read_singular_for_one_and_plural_for_two() -> None:
    assert _explored(1) == "seat 0 spends 1 map to explore room II"
    assert _explored(2) == "seat 0 spends 2 maps to explore room II"


def test_cards_taken_read_singular_for_one_and_plural_for_two() -> None:
    assert _taken(1) == "seat 1 takes 1 card from room I: 1 coins"
    assert _taken(2) == "seat 1 takes 2 cards from room I: 2 coins"
    for text in (_explored(1), _explored(2), _taken(1), _taken(2)):
        assert "(s)" not in text
