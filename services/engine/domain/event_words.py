"""An event in one sentence of the game's own words, with seats named (issue 33).

Every face that shows a log to a person uses this: the API's ``Event.description``
(filled when a log is read, never stored or hashed: docs/events.md), ``teoti replay``
and the terminal table. The engine's own events (GameCreated, SeatJoined, the clocks,
leaving) are worded here, the ruleset's by its ``describe_event``; ``"seat N"`` in
either becomes the seat's name when it has one.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.domain.engine_events import (
    ENGINE_EVENTS,
    GAME_CREATED,
    SEAT_JOINED,
    SECRETS_REVEALED,
    SEED_REVEALED,
    upcast,
)
from services.engine.domain.game import GameSnapshot
from services.engine.domain.leaving import SEAT_CLAIMED_FOR_BOT, SEAT_RESIGNED
from services.engine.domain.records import StoredEvent
from services.engine.domain.ruleset import DomainEvent, Ruleset
from services.engine.domain.timing.seat_clocks import (
    CLOCK_STARTED,
    CLOCKS_UPDATED,
    SEAT_FORFEITED,
    SEAT_RECLAIMED,
    SEAT_TAKEN_OVER,
    SEAT_TIMED_OUT,
)
from services.safe_text import count, printable

__all__ = [
    "DescribedEvents",
    "describe_event",
    "describe_stored",
    "engine_event_words",
    "seat_label",
    "with_seat_names",
]

_SEAT = re.compile(r"\b[Ss]eat (\d+)\b")

_OUTCOME_WORDS = {
    "game_ended": "the game ended",
    "forfeited": "out, a bot makes its moves",
    "taken_over": "a bot plays it",
}


def seat_label(names: Sequence[str], seat: int) -> str:
    """The seat's name (control characters escaped), or ``"seat N"`` when it has none."""
    if 0 <= seat < len(names) and names[seat]:
        return printable(names[seat])
    return f"seat {seat}"


def with_seat_names(text: str, names: Sequence[str]) -> str:
    """``text`` with every ``"seat N"`` of a seat in ``names`` replaced by its name
    (rulesets describe events with seat numbers; people read names)."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return printable(names[seat]) if seat < len(names) and names[seat] else match.group(0)

    return _SEAT.sub(name, text)


def _leaving(payload: Mapping[str, Any]) -> str:
    """SeatResigned / SeatClaimedForBot in words (docs/events.md, "Leaving a game")."""
    seat = printable(str(payload.get("seat")))  # a forged file may hold anything here
    if "outcome" in payload:
        outcome = str(payload.get("outcome"))
        return f"seat {seat} resigned ({_OUTCOME_WORDS.get(outcome, printable(outcome))})"
    reason = "its clock ran out" if payload.get("reason") == "timed_out" else "absent"
    by = printable(str(payload.get("claimed_by")))
    return f"seat {seat} handed to a bot by seat {by} ({reason})"


def engine_event_words(ruleset_name: str, event: DomainEvent) -> str | None:
    """The engine's own ``event`` in words, or None for a ruleset's event.

    ``ruleset_name`` names the game in GameCreated's sentence. Payload fields read with
    ``get``: a log read from a file may be forged, and words must never raise.
    """
    p = event.payload
    seat = printable(str(p.get("seat")))
    kind = event.type
    words: dict[str, str] = {
        SEAT_TIMED_OUT: f"seat {seat}'s time ran out",
        SEAT_TAKEN_OVER: f"a bot takes over seat {seat}",
        SEAT_FORFEITED: f"seat {seat} forfeits: a bot makes its remaining moves",
        SEAT_RECLAIMED: f"seat {seat} is back and plays again",
        CLOCKS_UPDATED: "the clocks are updated",
    }
    if kind in words:
        return words[kind]
    if kind == GAME_CREATED:
        return f"game created ({ruleset_name}, {_count(p.get('seats'))} seats)"
    if kind == SEAT_JOINED:
        return f"seat {seat} joins the game"
    if kind == SECRETS_REVEALED:
        return f"{count(_count(p.get('secrets')), 'hidden value')} revealed"
    if kind == SEED_REVEALED:
        return f"seed revealed: {printable(str(p.get('seed')))}"
    if kind in (SEAT_RESIGNED, SEAT_CLAIMED_FOR_BOT):
        return _leaving(p)
    if kind == CLOCK_STARTED:
        base = p.get("base_ms")
        each = f" ({base // 1000} s each)" if isinstance(base, int) else ""
        return f"the clocks start{each}"
    return None


def _count(items: Any) -> int:
    """How many ``items`` a payload lists (0 for anything but a list: a forged log)."""
    return len(items) if isinstance(items, list) else 0


def _sentence(text: str) -> str:
    """``text`` starting with a capital, as a sentence does."""
    return text[:1].upper() + text[1:]


def describe_event(
    ruleset_name: str,
    ruleset: Ruleset[Any] | None,
    event: DomainEvent,
    names: Sequence[str] = (),
) -> str:
    """One sentence telling what ``event`` means, seats named by ``names``.

    Args:
        ruleset_name: the game's ruleset name (GameCreated's sentence names it).
        ruleset: the game's rules for its own events (None: not installed here; the
            event's type is said instead).
        event: the event, upcast to its current version.
        names: each seat's name by index ("" for none: ``"seat N"`` stays).

    Returns:
        A non-empty sentence. Never raises: a ruleset whose ``describe_event`` fails on
        a payload (a forged or future log) gives the event's type in words.
    """
    text = engine_event_words(ruleset_name, event)
    if text is None and ruleset is not None:
        try:
            text = ruleset.describe_event(event)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            text = None
    if not text:
        text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", event.type).lower() or "an event"
    # Capitalised before naming: a seat's name keeps its own case.
    return with_seat_names(_sentence(text), names)


def describe_stored(snapshot: GameSnapshot, event: StoredEvent) -> str:
    """:func:`describe_event` of a stored ``event`` of the game ``snapshot`` folds (any
    version of it: its ruleset and its seats' current names are used), upcast first as
    the fold upcasts it. What reads fill into ``Event.description`` (issue 33)."""
    domain = event.to_domain()
    if domain.type in ENGINE_EVENTS:
        domain = upcast(domain)
    else:
        # A payload no upcaster reads is described as it is (or by its type).
        with contextlib.suppress(KeyError, IndexError, TypeError, ValueError):
            domain = snapshot.ruleset.upcast(domain)
    names = [seat.name for seat in snapshot.seats]
    return describe_event(snapshot.ruleset_name, snapshot.ruleset, domain, names)


class DescribedEvents:
    """:func:`describe_stored` with the last ``size`` sentences kept: every watcher of a
    game is sent the same events, and wording one costs 15-25 us (issue 33), so a game
    watched by a thousand pages words each event once, not a thousand times.

    Keyed by game, version, hash and the seats' names (a seat joined since: new words);
    the oldest sentence goes first when full. Not thread-safe: one per event loop.
    """

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._kept: dict[tuple[str, int, str, tuple[str, ...]], str] = {}

    def of(self, snapshot: GameSnapshot, event: StoredEvent) -> str:
        """The sentence of ``event`` of ``snapshot``'s game (:func:`describe_stored`)."""
        names = tuple(seat.name for seat in snapshot.seats)
        key = (snapshot.game_id, event.version, event.hash, names)
        text = self._kept.get(key)
        if text is None:
            text = describe_stored(snapshot, event)
            if len(self._kept) >= self._size:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = text
        return text
