"""A player's request for a game (a seek, Nakama's matchmaker ticket) and its rating window.

A seek asks for a table of one ruleset, with a seat count in ``[min_seats, max_seats]``,
rated or not, under one time control. Seeks meet only inside their *pool* (ruleset,
rated, time control): two seeks of different pools never share a table, whatever else
they allow. Inside a pool two seeks are compatible when each one's rating window, which
widens with the time it has waited, holds the other's rating (as Lichess's rating range
must hold the opponent's rating on both sides).

Ratings here are display values (services.tournament.ratings ``Rating.ordinal``) in
rating points; times are milliseconds since the epoch (the caller's clock), durations
seconds. This module is pure: no I/O, no clock of its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_SEATS = 5
"""The widest table the matchmaker places (the rulesets host 1 to 5 seats)."""


class SeekInvalid(ValueError):
    """A seek the matchmaker refuses (reason ``seek_invalid``); ``str()`` says why."""

    rule = "seek_invalid"


@dataclass(frozen=True, slots=True)
class RatingWindow:
    """How far from a seek's own rating an opponent's may be, as the seek waits.

    Attributes:
        base: rating points accepted at once (>= 0).
        widen_per_s: points added per second waited (>= 0).
        limit: the widest the window grows (``math.inf``: any rating, eventually).
    """

    base: float = 5.0
    widen_per_s: float = 0.5
    limit: float = math.inf

    def at(self, waited_s: float) -> float:
        """The window's half-width after ``waited_s`` seconds (never below ``base``)."""
        return min(self.limit, self.base + self.widen_per_s * max(0.0, waited_s))


@dataclass(frozen=True, slots=True)
class Seek:
    """One request for a game.

    Attributes:
        seek_id: the request's id (unique; the caller's command id makes it idempotent).
        player: the player asking (an opaque player id).
        ruleset: the game's ruleset name.
        min_seats, max_seats: table sizes accepted, ``1 <= min <= max <= MAX_SEATS``.
        rated: whether the game counts for ratings.
        time_control: the time control's canonical JSON ("" for none): equal text, one pool.
        rating: the player's display rating in ``ruleset`` when the seek was made.
        window: the rating window (:class:`RatingWindow`).
        created_ms: when the seek was made (ms since the epoch).
        bots_after_s: fill the table's empty seats with bots once waited this long
            (``None``: never; humans only).
    """

    seek_id: str
    player: str
    ruleset: str
    min_seats: int
    max_seats: int
    rated: bool
    time_control: str
    rating: float
    window: RatingWindow
    created_ms: int
    bots_after_s: float | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.min_seats <= self.max_seats <= MAX_SEATS:
            raise SeekInvalid(
                f"seats must satisfy 1 <= min <= max <= {MAX_SEATS}, "
                f"got {self.min_seats}..{self.max_seats}"
            )
        if self.rated and self.max_seats < 2:
            raise SeekInvalid("a rated game needs at least 2 players")
        window = self.window
        if not (window.base >= 0 and window.widen_per_s >= 0 and window.limit >= window.base):
            raise SeekInvalid("rating window must have 0 <= base <= limit and widen_per_s >= 0")
        if self.bots_after_s is not None and not self.bots_after_s >= 0:
            raise SeekInvalid("bots_after_s must be >= 0")
        if not math.isfinite(self.rating):
            raise SeekInvalid("rating must be a finite number")

    @property
    def pool(self) -> str:
        """The pool this seek waits in: ruleset, rated and time control (as one key)."""
        return pool_key(self.ruleset, self.rated, self.time_control)

    def waited_s(self, now_ms: int) -> float:
        """Seconds this seek has waited at ``now_ms``."""
        return max(0, now_ms - self.created_ms) / 1000.0

    def accepts_rating(self, rating: float, now_ms: int) -> bool:
        """True if ``rating`` is inside this seek's window at ``now_ms``."""
        return abs(rating - self.rating) <= self.window.at(self.waited_s(now_ms))

    def accepts_size(self, seats: int) -> bool:
        """True if a table of ``seats`` seats is one this seek asked for."""
        return self.min_seats <= seats <= self.max_seats

    def wants_bots(self, now_ms: int) -> bool:
        """True if this seek has waited long enough to take bots at its table."""
        return self.bots_after_s is not None and self.waited_s(now_ms) >= self.bots_after_s

    def to_json(self) -> str:
        """The seek as canonical JSON text (what the Redis pool stores)."""
        return json.dumps(
            {
                "seek_id": self.seek_id,
                "player": self.player,
                "ruleset": self.ruleset,
                "min_seats": self.min_seats,
                "max_seats": self.max_seats,
                "rated": self.rated,
                "time_control": self.time_control,
                "rating": self.rating,
                "window": [self.window.base, self.window.widen_per_s, _finite(self.window.limit)],
                "created_ms": self.created_ms,
                "bots_after_s": self.bots_after_s,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Seek:
        """Inverse of :meth:`to_json`. Raises SeekInvalid (or KeyError/ValueError) for
        text that is not a seek."""
        data: Mapping[str, Any] = json.loads(text)
        base, widen, limit = data["window"]
        return cls(
            seek_id=str(data["seek_id"]),
            player=str(data["player"]),
            ruleset=str(data["ruleset"]),
            min_seats=int(data["min_seats"]),
            max_seats=int(data["max_seats"]),
            rated=bool(data["rated"]),
            time_control=str(data["time_control"]),
            rating=float(data["rating"]),
            window=RatingWindow(float(base), float(widen), math.inf if limit is None else limit),
            created_ms=int(data["created_ms"]),
            bots_after_s=None if data["bots_after_s"] is None else float(data["bots_after_s"]),
        )


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded window limit is stored as null."""
    return None if math.isinf(value) else value


def pool_key(ruleset: str, rated: bool, time_control: str) -> str:
    """The pool of seeks that may meet: ``<ruleset>|rated|<time control>`` (or ``casual``)."""
    return f"{ruleset}|{'rated' if rated else 'casual'}|{time_control}"


def compatible(a: Seek, b: Seek, now_ms: int) -> bool:
    """True if seeks ``a`` and ``b`` may share a table at ``now_ms``: one pool, two
    players, each one's window holding the other's rating."""
    return (
        a.pool == b.pool
        and a.player != b.player
        and a.accepts_rating(b.rating, now_ms)
        and b.accepts_rating(a.rating, now_ms)
    )
