"""A game's time control, chosen at CreateGame, and the rules that refuse a bad one.

Rules (INVALID_ARGUMENT, ErrorInfo reason in brackets):

- ``time_control_invalid``: a negative figure; neither ``base_ms`` nor
  ``move_deadline_ms`` set (a clock that never runs out); ``increment_ms`` without
  ``base_ms``; a figure under :data:`MIN_MS` (base, deadline) or over :data:`MAX_MS`.
- ``timeout_policy_unsupported``: BOT_TAKEOVER for a ruleset that has no bot of its own
  (``bot_policy_of``): a seat taken over must be played, not walked at random. FORFEIT is
  always honoured: the "zombie" playing a forfeited seat's moves may play any legal move
  (the ruleset's bot, else random play) since the seat is ranked last anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from services.engine.domain.errors import InvalidArgument
from services.engine.domain.ruleset import Ruleset, bot_policy_of

MIN_MS = 1_000
"""Shortest base time or per-move deadline (1 s)."""
MAX_MS = 90 * 24 * 3600 * 1000
"""Longest base time, increment or per-move deadline (90 days, in ms)."""


class TimeoutPolicy(StrEnum):
    """What happens to a seat whose clock runs out."""

    BOT_TAKEOVER = "bot_takeover"
    """A bot plays the seat; the player may reclaim it with their next move."""
    FORFEIT = "forfeit"
    """The seat forfeits: ranked last, a zombie bot makes its remaining moves."""


class TimeControlInvalid(InvalidArgument):
    """A time control outside the module's rules (reason ``time_control_invalid``)."""

    rule = "time_control_invalid"


class TimeoutPolicyUnsupported(InvalidArgument):
    """A timeout policy the ruleset cannot honour (reason ``timeout_policy_unsupported``)."""

    rule = "timeout_policy_unsupported"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-seat clocks of one game (every human seat gets the same).

    Attributes:
        base_ms: each seat's time budget for the whole game (live play); 0: none.
        increment_ms: added to a seat's budget after each of its moves (Fischer); needs
            ``base_ms``.
        move_deadline_ms: each move must come within this long of the seat's turn
            starting (correspondence play); 0: none.
        policy: what a timeout does (:class:`TimeoutPolicy`).
    """

    base_ms: int = 0
    increment_ms: int = 0
    move_deadline_ms: int = 0
    policy: TimeoutPolicy = TimeoutPolicy.BOT_TAKEOVER

    def to_json(self) -> dict[str, Any]:
        """Payload form (ClockStarted v1): ``{base_ms, increment_ms, move_deadline_ms,
        timeout_policy}``."""
        return {
            "base_ms": self.base_ms,
            "increment_ms": self.increment_ms,
            "move_deadline_ms": self.move_deadline_ms,
            "timeout_policy": self.policy.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        """Inverse of :meth:`to_json`. Raises KeyError/ValueError on a bad payload."""
        return cls(
            int(data["base_ms"]),
            int(data["increment_ms"]),
            int(data["move_deadline_ms"]),
            TimeoutPolicy(data["timeout_policy"]),
        )

    def check(self, ruleset: Ruleset[Any] | None) -> TimeControl:
        """This time control if ``ruleset`` can be played under it (see the module's
        rules; None: the figures alone, as no ruleset has a bot); raises
        TimeControlInvalid or TimeoutPolicyUnsupported."""
        figures = {
            "base_ms": self.base_ms,
            "increment_ms": self.increment_ms,
            "move_deadline_ms": self.move_deadline_ms,
        }
        for name, value in figures.items():
            if not 0 <= value <= MAX_MS:
                raise TimeControlInvalid(f"time control {name} must be 0 to {MAX_MS} ms")
        if not self.base_ms and not self.move_deadline_ms:
            raise TimeControlInvalid("a time control needs base_ms or move_deadline_ms")
        if self.increment_ms and not self.base_ms:
            raise TimeControlInvalid("increment_ms is added to base_ms: set base_ms too")
        for name in ("base_ms", "move_deadline_ms"):
            if 0 < figures[name] < MIN_MS:
                raise TimeControlInvalid(f"time control {name} must be at least {MIN_MS} ms")
        if self.policy is TimeoutPolicy.BOT_TAKEOVER and (
            ruleset is None or bot_policy_of(ruleset) is None
        ):
            name = ruleset.name if ruleset is not None else "this ruleset"
            raise TimeoutPolicyUnsupported(
                f"{name} has no bot to take over a seat: choose the FORFEIT timeout policy"
            )
        return self
