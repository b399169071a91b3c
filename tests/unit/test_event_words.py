"""Events in words (issue 33, ``Event.description``): every event of every recorded
game gets a readable sentence with its seats named, and the words never fail."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from services.engine.domain.event_words import (
    DescribedEvents,
    describe_event,
    describe_stored,
    with_seat_names,
)
from services.engine.domain.game import fold
from services.engine.domain.ruleset import DomainEvent
from tests.nim import NimRuleset
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log, log_id, registry

SEAT_NUMBER = re.compile(r"\bseat \d+\b")


@pytest.mark.parametrize("path", LOGS, ids=log_id)
def test_every_recorded_event_reads_as_a_sentence(path: Path) -> None:
    """A sentence per event: non-empty, capitalised, no raw JSON (braces, quotes of
    keys), and no "seat N" for a seat that has a name."""
    events = load_log(path)
    game = fold(expected_of(path)["game_id"], events, registry())
    names = [seat.name for seat in game.seats]
    described = {}
    for event in events:
        text = describe_stored(game, event)
        starts_with_name = any(name and text.startswith(name) for name in names)
        assert text and (starts_with_name or not text[0].islower()), (event.type, text)
        assert "{" not in text and "}" not in text and '":' not in text, (event.type, text)
        numbered = {int(m.group(0).split()[1]) for m in SEAT_NUMBER.finditer(text)}
        assert not {s for s in numbered if s < len(names) and names[s]}, (event.type, text)
        described[event.type] = text
    # Each event type is worded, not only named: no sentence is its type in words.
    for kind, text in described.items():
        spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", kind).lower()
        assert text.lower() != spaced and kind not in text, (kind, text)


def test_a_seat_is_named_by_its_name_and_a_nameless_one_by_its_number() -> None:
    assert with_seat_names("seat 2 reaches step 3 of the blue temple", ["a", "b", "Teotibot"]) == (
        "Teotibot reaches step 3 of the blue temple"
    )
    assert with_seat_names("Seat 1 passes; seat 7 too", ["ann", ""]) == "Seat 1 passes; seat 7 too"
    taken = DomainEvent("StonesTaken", {"seat": 1, "count": 2})
    assert describe_event("nim", NimRuleset(), taken, ["ann", "bob"]) == "bob takes 2"


def test_engine_events_are_worded_and_broken_payloads_never_raise() -> None:
    """The engine's own events have words; a payload the ruleset cannot read (a forged
    or future log) gives its type in words rather than an error."""
    resigned = DomainEvent("SeatResigned", {"seat": 0, "outcome": "game_ended"})
    assert describe_event("nim", NimRuleset(), resigned, ["ann"]) == (
        "ann resigned (the game ended)"
    )
    joined = DomainEvent("SeatJoined", {"seat": 1, "name": "bob", "player": ""}, 3)
    assert describe_event("nim", NimRuleset(), joined, ["ann", "bob"]) == "bob joins the game"
    broken = DomainEvent("StonesTaken", {"nothing": 1})
    assert describe_event("nim", NimRuleset(), broken, ["ann"]) == "Stones taken"
    assert describe_event("gone", None, broken) == "Stones taken"
    forged = DomainEvent("ClockStarted", {"base_ms": "soon"})
    assert describe_event("nim", NimRuleset(), forged) == "The clocks start"
    forged = DomainEvent("GameCreated", {"seats": 3}, 5)
    assert describe_event("nim", NimRuleset(), forged) == "Game created (nim, 0 seats)"


@pytest.mark.parametrize(("secrets", "words"), [(1, "1 hidden value"), (2, "2 hidden values")])
def test_revealed_secrets_are_counted_in_words(secrets: int, words: str) -> None:
    revealed = DomainEvent("SecretsRevealed", {"secrets": [{}] * secrets})
    assert describe_event("nim", NimRuleset(), revealed) == f"{words.capitalize()} revealed"


def test_an_event_is_worded_once_for_all_its_readers_until_a_seat_is_named() -> None:
    """DescribedEvents keeps each sentence (the same for every watcher); a seat joined
    since (new names) words it again; the oldest goes when full."""
    path = next(p for p in LOGS if log_id(p).startswith("nim/"))
    events = load_log(path)
    game = fold(expected_of(path)["game_id"], events, registry())
    move = next(e for e in events if "seat" in e.payload)  # a sentence naming a seat
    words = DescribedEvents(size=2)
    first = words.of(game, move)
    assert first == describe_stored(game, move)
    assert words.of(game, move) is first  # kept, not worded again
    renamed = game.updated(seats=tuple(replace(s, name=f"new {s.name}") for s in game.seats))
    assert words.of(renamed, move) == describe_stored(renamed, move) != first
    words.of(game, events[0])  # a third sentence: the oldest is dropped
    assert words.of(game, move) is not first
