"""Tournament refusals, as the domain errors the gRPC layer already maps.

``InvalidTournament`` is an :class:`InvalidOptions` (INVALID_ARGUMENT: fix the request),
``TournamentRefused`` a :class:`RuleViolation` (FAILED_PRECONDITION: the tournament's
state forbids it), ``TournamentNotFound`` a :class:`GameNotFound` (NOT_FOUND). Each
carries a stable ``rule`` that becomes the ErrorInfo reason.
"""

from __future__ import annotations

from services.engine.errors import GameNotFound
from services.engine.ruleset import InvalidOptions, RuleViolation

__all__ = ["InvalidTournament", "TournamentNotFound", "TournamentRefused"]


class TournamentRefused(RuleViolation):
    """A command the tournament's state forbids: registration closed, full, started,
    duplicate registration, unknown player (reason in ``rule``)."""


class InvalidTournament(InvalidOptions):
    """A malformed tournament request: bad config, table sizes the ruleset cannot seat,
    a timeout policy it cannot honour, a short player token (reason in ``rule``)."""


class TournamentNotFound(GameNotFound):
    """No tournament has this id."""
