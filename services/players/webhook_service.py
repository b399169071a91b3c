"""A credential's webhook, as its player sets, reads and drops it (docs/players.md
"Webhooks"): PlayerService's SetPlayerWebhook, GetPlayerWebhook and DeletePlayerWebhook.

Each call acts on the credential it carries, never another: a player's other credentials
(another device, a bot) keep their own webhooks. The store is services.players.webhooks
(revoking a credential drops its webhook there); delivery is services.notices'.

The URL's policy (services.notices.webhook_url: https, public addresses) is given to
:class:`WebhookService` as a function, because services.notices imports this package
(its dispatcher reads the webhooks) and not the other way round: the gateway, which may
import both, passes it (services.gateway.player_servicer.webhook_url_check).

Nothing here logs or stores more of a URL than it must: the logs name its host only (a
query string can carry the receiver's own token), and the secret is returned once, by
:meth:`WebhookService.set`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

import structlog

from services.engine.domain.clock import Clock, iso, system_clock
from services.players.errors import NotYourPlayer, WebhookNotFound
from services.players.service import INVALID_CREDENTIAL
from services.players.webhooks import RedisWebhooks, Webhook, WebhookStatus, new_secret

log = structlog.get_logger(__name__)

UrlCheck = Callable[[str], object]
"""Checks a URL a player asks its webhook to be: raises InvalidWebhook (its rule as
the reason) if the server will not send to it; what it returns is ignored."""


@dataclass(frozen=True, slots=True)
class WebhookInfo:
    """A credential's webhook as its player is shown it: never its secret.

    Attributes:
        credential_id: the credential that set it.
        url: where notices are POSTed.
        created_at: when it was set, ISO 8601 UTC.
        status: how its deliveries stand.
    """

    credential_id: str
    url: str
    created_at: str
    status: WebhookStatus


def created_at(created_ms: int) -> str:
    """ISO 8601 UTC text of ``created_ms`` (ms since the epoch)."""
    return iso(datetime.fromtimestamp(created_ms / 1000, UTC))


def url_host(url: str) -> str:
    """The host of ``url`` (what the logs name), "" if it has none or does not parse."""
    try:
        return (urlsplit(url).hostname or "")[:255]
    except ValueError:
        return ""


class WebhookService:
    """Set, read and drop the webhook of the credential a call carries.

    Args:
        store: the webhooks, on the accounts' Redis client and prefix (the
            PlayerRepository's ``webhooks``).
        check_url: the URL policy (:data:`UrlCheck`), with the deployment's choice of
            private addresses.
        clock: when a webhook is set (``created_ms``: notices posted before are not
            sent to it).
    """

    def __init__(
        self, store: RedisWebhooks, check_url: UrlCheck, clock: Clock = system_clock
    ) -> None:
        self._store = store
        self._check_url = check_url
        self._clock = clock

    async def set(self, player_id: str, credential_id: str, url: str) -> tuple[WebhookInfo, str]:
        """Set (or replace) the webhook of ``player_id``'s credential ``credential_id``
        to ``url``, with a new secret: returns (the webhook, the secret), the one time
        the secret is shown. Setting again replaces the URL and the secret and starts
        its deliveries' status afresh. Raises InvalidWebhook (the URL, nothing changed),
        NotYourPlayer ``player_credential_invalid`` (the credential was revoked
        meanwhile)."""
        self._check_url(url)
        created_ms = int(self._clock().timestamp() * 1000)
        webhook = Webhook(player_id, credential_id, url, new_secret(), created_ms)
        if not await self._store.set(webhook):
            raise NotYourPlayer(
                INVALID_CREDENTIAL, "unknown or revoked player credential; register or get one"
            )
        log.info(
            "player_webhook_set",
            player_id=player_id,
            credential_id=credential_id,
            host=url_host(url),
        )
        return _info(webhook, WebhookStatus()), webhook.secret

    async def get(self, player_id: str, credential_id: str) -> WebhookInfo:
        """The webhook of the credential and how its deliveries stand (never its secret).
        Raises WebhookNotFound if it has none."""
        webhook = await self._store.get(player_id, credential_id)
        if webhook is None:
            raise WebhookNotFound(credential_id)
        status = await self._store.status(player_id, credential_id, webhook.created_ms)
        return _info(webhook, status)

    async def delete(self, player_id: str, credential_id: str) -> None:
        """Drop the webhook of the credential (nothing more is sent to it). Raises
        WebhookNotFound if it has none."""
        webhook = await self._store.get(player_id, credential_id)
        if webhook is None or not await self._store.delete(player_id, credential_id):
            raise WebhookNotFound(credential_id)
        log.info(
            "player_webhook_deleted",
            player_id=player_id,
            credential_id=credential_id,
            host=url_host(webhook.url),
        )


def _info(webhook: Webhook, status: WebhookStatus) -> WebhookInfo:
    return WebhookInfo(webhook.credential_id, webhook.url, created_at(webhook.created_ms), status)
