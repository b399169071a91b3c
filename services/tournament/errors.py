"""Tournament refusals, as the domain errors the gRPC layer already maps.

``InvalidTournament`` is an :class:`InvalidOptions` (INVALID_ARGUMENT: fix the request),
``TournamentRefused`` a :class:`RuleViolation` (FAILED_PRECONDITION: the tournament's
state forbids it), ``TournamentNotFound`` a :class:`GameNotFound` (NOT_FOUND). Each
carries a stable ``rule`` that becomes the ErrorInfo reason.
"""

from __future__ import annotations

from services.engine.domain.errors import GameNotFound, NotAuthorized
from services.engine.domain.ruleset import InvalidOptions, RuleViolation

__all__ = ["InvalidTournament", "NotPermitted", "TournamentNotFound", "TournamentRefused"]


class TournamentRefused(RuleViolation):
    """A command the tournament's state forbids: registration closed, full, started,
    duplicate registration, unknown player (reason in ``rule``)."""


class InvalidTournament(InvalidOptions):
    """A malformed tournament request: bad config, table sizes the ruleset cannot seat,
    a timeout policy it cannot honour, a short player token (reason in ``rule``)."""


class TournamentNotFound(GameNotFound):
    """No tournament has this id (NOT_FOUND ``tournament_not_found``)."""

    rule = "tournament_not_found"
    id_field = "tournament_id"
    noun = "tournament"


class NotPermitted(NotAuthorized):
    """The caller does not hold the token the command needs (PERMISSION_DENIED, reason
    in ``rule``: ``not_the_organiser``, ``not_your_player``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
