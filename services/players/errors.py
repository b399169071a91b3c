"""Player refusals, as the domain errors the gateway already maps to statuses
(services.engine.transport.status_mapping).

``InvalidPlayer`` is an :class:`InvalidOptions` (INVALID_ARGUMENT: fix the request),
``PlayerRefused`` a :class:`RuleViolation` (FAILED_PRECONDITION: the accounts' state
forbids it), ``PlayerNotFound`` a :class:`GameNotFound` (NOT_FOUND ``player_not_found``),
``NotYourPlayer`` a :class:`NotAuthorized` (PERMISSION_DENIED). Each carries a stable
``rule`` that becomes the ErrorInfo reason. A credential's webhook (docs/players.md
"Webhooks") adds ``InvalidWebhook`` (INVALID_ARGUMENT: its URL) and ``WebhookNotFound``
(NOT_FOUND ``webhook_not_found``).
"""

from __future__ import annotations

from services.engine.domain.errors import GameNotFound, NotAuthorized
from services.engine.domain.ruleset import InvalidOptions, RuleViolation

__all__ = [
    "CredentialNotFound",
    "InvalidPlayer",
    "InvalidWebhook",
    "NotYourPlayer",
    "PlayerNotFound",
    "PlayerRefused",
    "WebhookNotFound",
]


class PlayerRefused(RuleViolation):
    """A command the accounts' state forbids: ``name_taken``, ``command_id_reused``,
    ``credential_taken``, ``too_many_credentials`` (reason in ``rule``)."""


class InvalidPlayer(InvalidOptions):
    """A malformed player request: ``player_name``, ``credential_label``,
    ``player_credential_strength``, ``player_lookup`` (reason in ``rule``)."""


class InvalidWebhook(InvalidOptions):
    """A webhook URL the server will not send to (INVALID_ARGUMENT, reason in ``rule``):
    ``webhook_url_invalid`` (not a URL, too long, a user name, password or #fragment in
    it, a scheme other than https), ``webhook_url_not_https`` (http),
    ``webhook_address_not_public`` (a loopback, private, link-local or reserved address,
    or a local name): services.notices.webhook_url's rules."""


class PlayerNotFound(GameNotFound):
    """No player has this id or name (NOT_FOUND ``player_not_found``)."""

    rule = "player_not_found"
    id_field = "player"
    noun = "player"


class CredentialNotFound(GameNotFound):
    """The caller holds no credential with this id (NOT_FOUND ``credential_not_found``):
    revoked already, or another player's."""

    rule = "credential_not_found"
    id_field = "credential_id"
    noun = "player credential"


class WebhookNotFound(GameNotFound):
    """The credential the call carries has no webhook (NOT_FOUND ``webhook_not_found``):
    never set, deleted, or set by another credential (each acts on its own)."""

    rule = "webhook_not_found"
    id_field = "credential_id"
    noun = "webhook of the credential"


class NotYourPlayer(NotAuthorized):
    """The call does not hold what it needs (PERMISSION_DENIED, reason in ``rule``):
    ``player_credential_invalid`` (no, an unknown or a revoked player credential),
    ``not_your_seat`` (a seat bound to another player)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
