"""Seats leaving a game: resignations, seats claimed for a bot, and who plays each seat.

Engine events (the ruleset never sees them; fields in docs/events.md, "Leaving a game"):

- ``SeatResigned`` v1 ``{seat, outcome}``: the seat's player resigned (ResignSeat).
  ``outcome`` is a :class:`~services.engine.domain.ruleset.Resignation` value:
  ``game_ended`` (the append also holds ``SeatForfeited``, the secrets left, and
  ``SeedRevealed``: the game is over), ``forfeited`` (followed by ``SeatForfeited``) or
  ``taken_over`` (followed by ``SeatTakenOver``, never reclaimable).
- ``SeatClaimedForBot`` v1 ``{seat, claimed_by, reason, idle_since_ms, absence_ms}``:
  the player of seat ``claimed_by`` handed ``seat`` to a bot (ClaimSeatForBot), because
  its clock ran out (``reason`` ``timed_out``: ``SeatTimedOut`` follows, as the
  timekeeper writes it) or because it was absent (``absent``: the seat was to act and no
  event had been appended since ``idle_since_ms``, the previous event's
  ``recorded_at``, for at least ``absence_ms``). The policy's event follows
  (``SeatTakenOver`` or ``SeatForfeited``).

Who plays a seat (:class:`SeatControl`) is folded from these and from the clock events
``SeatTakenOver``, ``SeatForfeited`` and ``SeatReclaimed``
(:mod:`services.engine.domain.timing.seat_clocks`), which since this module may appear in
a game without a clock too: a resignation or a claim there writes them without
``ClockStarted``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from services.engine.domain.ruleset import DomainEvent, Resignation
from services.engine.domain.timing.seat_clocks import (
    SEAT_FORFEITED,
    SEAT_RECLAIMED,
    SEAT_TAKEN_OVER,
)

SEAT_RESIGNED = "SeatResigned"
SEAT_CLAIMED_FOR_BOT = "SeatClaimedForBot"
LEAVING_EVENTS = frozenset({SEAT_RESIGNED, SEAT_CLAIMED_FOR_BOT})
"""The engine events of this module."""
HANDOVER_EVENTS = frozenset({SEAT_TAKEN_OVER, SEAT_FORFEITED, SEAT_RECLAIMED})
"""The clock events that say who plays a seat (folded with or without a clock)."""

ABSENCE_MS = 300_000
"""Platform default absence (5 minutes of wall time): a seat to act with no event
appended to its game for this long may be claimed for a bot (ClaimSeatForBot). The
engine records the figure it applied in each ``SeatClaimedForBot``."""


class ClaimReason(StrEnum):
    """Why a seat was claimed for a bot (``SeatClaimedForBot.reason``)."""

    TIMED_OUT = "timed_out"
    """The seat's clock ran out (its deadline passed) before the timekeeper settled it."""
    ABSENT = "absent"
    """The seat was to act and the game saw no event for at least the absence time."""


@dataclass(frozen=True, slots=True)
class SeatControl:
    """Who plays each human seat, folded from the log (bot seats are the bot's anyway).

    Attributes:
        taken_over: seats a bot plays for now (a timeout under BOT_TAKEOVER, a claim,
            a resignation handing the seat to a bot), until reclaimed.
        forfeited: seats out, in the order they left (the first ranks last): forfeits
            on time, withdrawals, resignations; a zombie bot makes their moves.
        resigned: seats whose player resigned (never reclaimable).
        ended: a resignation ended the game (``SeatResigned`` ``game_ended``).
    """

    taken_over: frozenset[int] = frozenset()
    forfeited: tuple[int, ...] = ()
    resigned: frozenset[int] = frozenset()
    ended: bool = False

    def bot_controlled(self) -> frozenset[int]:
        """Human seats a bot plays now (taken over or forfeited)."""
        return self.taken_over | frozenset(self.forfeited)

    def seats_in(self, seats: int) -> tuple[int, ...]:
        """Seats of a ``seats``-seat game not out (neither forfeited nor resigned out)."""
        return tuple(s for s in range(seats) if s not in self.forfeited)

    def apply(self, event: DomainEvent) -> SeatControl:
        """This record with one event folded in (events it does not concern leave it)."""
        kind = event.type
        if kind not in HANDOVER_EVENTS and kind != SEAT_RESIGNED:
            return self
        seat = int(event.payload["seat"])
        if kind == SEAT_TAKEN_OVER:
            return replace(self, taken_over=self.taken_over | {seat})
        if kind == SEAT_FORFEITED:
            if seat in self.forfeited:
                return self
            return replace(
                self, taken_over=self.taken_over - {seat}, forfeited=(*self.forfeited, seat)
            )
        if kind == SEAT_RECLAIMED:
            return replace(self, taken_over=self.taken_over - {seat})
        ended = self.ended or event.payload["outcome"] == Resignation.GAME_ENDS.value
        return replace(self, resigned=self.resigned | {seat}, ended=ended)

    def to_json(self) -> dict[str, Any]:
        """Stored snapshot form."""
        return {
            "taken_over": sorted(self.taken_over),
            "forfeited": list(self.forfeited),
            "resigned": sorted(self.resigned),
            "ended": self.ended,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatControl:
        """Inverse of :meth:`to_json`. Raises KeyError/ValueError/TypeError."""
        return cls(
            frozenset(int(s) for s in data["taken_over"]),
            tuple(int(s) for s in data["forfeited"]),
            frozenset(int(s) for s in data["resigned"]),
            bool(data["ended"]),
        )


NO_LEAVERS = SeatControl()
"""Every human seat played by its player (a game's start)."""


def seat_resigned(seat: int, outcome: Resignation) -> DomainEvent:
    """``SeatResigned``: ``seat``'s player resigned, with what that did."""
    return DomainEvent(SEAT_RESIGNED, {"seat": seat, "outcome": outcome.value})


def seat_claimed_for_bot(
    seat: int, claimed_by: int, reason: ClaimReason, idle_since_ms: int, absence_ms: int
) -> DomainEvent:
    """``SeatClaimedForBot``: seat ``claimed_by``'s player handed ``seat`` to a bot."""
    return DomainEvent(
        SEAT_CLAIMED_FOR_BOT,
        {
            "seat": seat,
            "claimed_by": claimed_by,
            "reason": reason.value,
            "idle_since_ms": idle_since_ms,
            "absence_ms": absence_ms,
        },
    )
