"""Domain errors of the engine (mapped to gRPC statuses in
services.engine.transport.status_mapping)."""

from __future__ import annotations

from services.engine.domain.ruleset import InvalidOptions, RuleViolation
from services.engine.domain.store_errors import ArchiveMismatch, ChainMismatch, VersionConflict

__all__ = [
    "ArchiveMismatch",
    "ChainMismatch",
    "CorruptLog",
    "GameNotFound",
    "InvalidArgument",
    "InvalidOptions",
    "NotAuthorized",
    "RuleViolation",
    "Unavailable",
    "UnknownRuleset",
    "VersionConflict",
]


class GameNotFound(LookupError):
    """No game has this id.

    ``rule`` is the ErrorInfo reason and ``id_field`` the metadata key of the id; a
    subclass for another kind of log (a tournament) overrides both and ``noun``.
    """

    rule = "game_not_found"
    id_field = "game_id"
    noun = "game"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"unknown {self.noun} {game_id!r}")
        self.game_id = game_id


class InvalidArgument(ValueError):
    """A request was malformed: bad JSON, unknown seat, bad seat list, bad game id."""


class UnknownRuleset(InvalidArgument):
    """No ruleset is registered under this name (or its module failed to import)."""


class CorruptLog(RuntimeError):
    """A stored log cannot be folded: no GameCreated first, version gaps, unknown types."""


class NotAuthorized(PermissionError):
    """The request does not hold the token of the seat it acts for or looks at."""


class Unavailable(ConnectionError):
    """A service this call needs (Redis, the engine) is down or overloaded: retry later.

    ``service`` names it (``"redis"``, ``"engine"``); ``retry_after_s`` is the suggested
    wait before the retry.
    """

    def __init__(self, service: str, retry_after_s: float = 1.0, detail: str = "") -> None:
        super().__init__(f"{service} is unavailable{': ' + detail if detail else ''}; retry")
        self.service = service
        self.retry_after_s = retry_after_s
