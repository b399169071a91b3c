"""Lobby and seek refusals, as the domain errors the faces already map to statuses
(services.engine.transport.status_mapping), each with a stable ``rule`` (the ErrorInfo
reason): ``LobbyInvalid`` an :class:`InvalidOptions` (INVALID_ARGUMENT: fix the
request), ``LobbyRuleRefused`` a :class:`RuleViolation` (FAILED_PRECONDITION: the
table's or seek's state forbids it), ``TableIdNotFound`` / ``SeekNotFound`` a
:class:`GameNotFound` (NOT_FOUND)."""

from __future__ import annotations

from services.engine.domain.errors import GameNotFound
from services.engine.domain.ruleset import InvalidOptions, RuleViolation
from services.lobby.tables import LobbyRefused


class LobbyInvalid(InvalidOptions):
    """A malformed lobby or seek request (``options_invalid``, ``seek_invalid``,
    ``table_id``, ``seek_id``, ``command_id``, ``ruleset``, ``page_token``)."""


class LobbyRuleRefused(RuleViolation):
    """A request the lobby's rules or a seek's state refuse (the rules of
    services.lobby.tables, ``too_many_tables``, ``too_many_seeks``, ``already_seeking``,
    ``command_id_reused``)."""


class TableIdNotFound(GameNotFound):
    """No lobby table has this id (NOT_FOUND ``table_not_found``)."""

    rule = "table_not_found"
    id_field = "table_id"
    noun = "table"


class SeekNotFound(GameNotFound):
    """The caller has no seek with this id (NOT_FOUND ``seek_not_found``): never made,
    cancelled, expired, or another player's."""

    rule = "seek_not_found"
    id_field = "seek_id"
    noun = "seek"


class RematchNotFound(GameNotFound):
    """No rematch of this game was offered (NOT_FOUND ``rematch_not_found``)."""

    rule = "rematch_not_found"
    id_field = "game_id"
    noun = "rematch of game"


def refused(exc: LobbyRefused) -> LobbyRuleRefused:
    """A lobby rule's refusal as the domain error the faces map."""
    return LobbyRuleRefused(exc.rule, exc.message)
