"""Webhooks per player credential, in Redis (docs/players.md "Webhooks").

A player may ask, per credential, for its notices (services.notices: your turn, game
started, ...) to be POSTed to a URL, signed with a secret the server made and showed
once (teoti_client.webhooks). It is for bots and phones that do not hold a
stream open. The credential owns it: revoking the credential drops its webhook in the
same script (services.players.repository).

Keys, in the accounts' hash tag (one slot with the credentials they belong to):

- ``<prefix>:{account}:player:<id>:webhooks``      hash, credential id -> webhook JSON
  ``{"url", "secret", "created_ms"}``;
- ``<prefix>:{account}:player:<id>:webhook-state`` hash, credential id -> delivery state
  JSON (services.notices.webhook_state: the last notice delivered, retries, last error),
  written by the dispatcher; :meth:`RedisWebhooks.status` reads what a player is shown of
  it (:class:`WebhookStatus`).

The secret is kept as it was made (32 random bytes): signing needs it, and a random
256-bit value can't be guessed offline as a password's hash could be.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient

SECRET_PREFIX = "whsec_"
"""What a webhook secret starts with (so it is recognised if pasted somewhere)."""


def webhooks_key(prefix: str, player_id: str) -> str:
    """The hash of ``player_id``'s webhooks (credential id -> webhook JSON)."""
    return f"{prefix}:{{account}}:player:{player_id}:webhooks"


def state_key(prefix: str, player_id: str) -> str:
    """The hash of ``player_id``'s webhooks' delivery states (credential id -> JSON)."""
    return f"{prefix}:{{account}}:player:{player_id}:webhook-state"


def new_secret() -> str:
    """A fresh signing secret: ``whsec_`` and 32 random bytes, base64url (43 chars)."""
    raw = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    return SECRET_PREFIX + raw


@dataclass(frozen=True, slots=True)
class Webhook:
    """One credential's webhook.

    Attributes:
        player_id: the player whose notices it gets.
        credential_id: the credential that set it (revoking it drops the webhook).
        url: where notices are POSTed (checked by services.notices.webhook_url).
        secret: the signing secret (shown to the player once, when set).
        created_ms: when it was set, ms since the epoch; notices posted before are not
            sent to it.
    """

    player_id: str
    credential_id: str
    url: str
    secret: str
    created_ms: int

    def to_json(self) -> str:
        """The stored JSON (player and credential are in the key and field)."""
        return json.dumps(
            {"url": self.url, "secret": self.secret, "created_ms": self.created_ms},
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, player_id: str, credential_id: str, text: str | bytes) -> Webhook:
        """Inverse of :meth:`to_json`."""
        data: dict[str, Any] = json.loads(text)
        return cls(
            player_id, credential_id, str(data["url"]), str(data["secret"]), int(data["created_ms"])
        )

    def __repr__(self) -> str:  # the secret stays out of logs and tracebacks
        return (
            f"Webhook(player_id={self.player_id!r}, credential_id={self.credential_id!r}, "
            f"url={self.url!r}, created_ms={self.created_ms})"
        )


MAX_ERROR_LENGTH = 500
"""Characters of a delivery's last error a player is shown (the rest is cut)."""


@dataclass(frozen=True, slots=True)
class WebhookStatus:
    """How a webhook's deliveries stand, as its player sees them (from the delivery
    state the dispatcher keeps, services.notices.webhook_state; all 0 / "" before any).

    Attributes:
        last_ok_ms: when a notice was last delivered (answered 2xx), ms since the epoch.
        last_error: what the last failed try got ("" after a success).
        failing_since_ms: the first failure since the last success (0: not failing).
        dropped: notices given up after every retry failed, in all.
    """

    last_ok_ms: int = 0
    last_error: str = ""
    failing_since_ms: int = 0
    dropped: int = 0

    @classmethod
    def from_json(cls, text: str | bytes | None, created_ms: int | None = None) -> WebhookStatus:
        """The status in a stored delivery state, tolerant of what it can't read: no
        state, text that is no JSON object, a key missing or of another type each read
        as 0 / "". A state whose ``created_ms`` is not ``created_ms`` (when given) was
        kept for an earlier webhook of the credential (a delivery of the old one
        recorded just after it was replaced): it reads as no state."""
        if text is None:
            return cls()
        try:
            data: Any = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        kept_for = data.get("created_ms", created_ms)
        if created_ms is not None and _count(kept_for) != created_ms:
            return cls()
        error = data.get("last_error")
        return cls(
            last_ok_ms=_count(data.get("last_ok_ms")),
            last_error=error[:MAX_ERROR_LENGTH] if isinstance(error, str) else "",
            failing_since_ms=_count(data.get("failing_since_ms")),
            dropped=_count(data.get("dropped")),
        )


def _count(value: Any) -> int:
    """A stored whole number, 0 for anything else (a bool, text, a float, a negative)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return max(value, 0)


# KEYS: 1 player's credentials, 2 webhooks, 3 delivery states. ARGV: 1 credential id,
# 2 webhook JSON. Sets the webhook only while the credential exists (a revoke at the
# same time wins); a new webhook starts with a fresh delivery state. Returns 1 if set.
_SET = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""
_SET_SHA = hashlib.sha1(_SET.encode()).hexdigest()


class RedisWebhooks:
    """The players' webhooks (see the module doc for keys).

    Args:
        client: the Redis client of the accounts' login.
        prefix: the deployment's key prefix.
    """

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix

    async def set(self, webhook: Webhook) -> bool:
        """Set (or replace) the credential's webhook, its delivery state reset; False if
        the credential does not exist (revoked meanwhile). Redis errors propagate."""
        credentials = f"{self._prefix}:{{account}}:player:{webhook.player_id}:credentials"
        keys = [
            credentials,
            webhooks_key(self._prefix, webhook.player_id),
            state_key(self._prefix, webhook.player_id),
        ]
        args = [webhook.credential_id, webhook.to_json()]
        try:
            reply: Any = await self._redis.evalsha(_SET_SHA, len(keys), *keys, *args)
        except NoScriptError:
            reply = await self._redis.eval(_SET, len(keys), *keys, *args)
        return bool(int(reply))

    async def get(self, player_id: str, credential_id: str) -> Webhook | None:
        """The credential's webhook, or None."""
        text: Any = await self._redis.hget(webhooks_key(self._prefix, player_id), credential_id)
        return None if text is None else Webhook.from_json(player_id, credential_id, text)

    async def delete(self, player_id: str, credential_id: str) -> bool:
        """Drop the credential's webhook and its delivery state; False if it had none."""
        removed: Any = await self._redis.hdel(webhooks_key(self._prefix, player_id), credential_id)
        await self._redis.hdel(state_key(self._prefix, player_id), credential_id)
        return bool(int(removed))

    async def status(
        self, player_id: str, credential_id: str, created_ms: int | None = None
    ) -> WebhookStatus:
        """How the credential's webhook's deliveries stand (:class:`WebhookStatus`; all
        0 / "" without a delivery state, or with one kept for a webhook set before the
        one created at ``created_ms``)."""
        text: Any = await self._redis.hget(state_key(self._prefix, player_id), credential_id)
        return WebhookStatus.from_json(text, created_ms)

    async def of_player(self, player_id: str) -> list[Webhook]:
        """Every webhook of ``player_id`` (one per credential that set one)."""
        stored: Any = await self._redis.hgetall(webhooks_key(self._prefix, player_id))
        return [
            Webhook.from_json(player_id, _text(credential), text)
            for credential, text in sorted((stored or {}).items(), key=lambda kv: _text(kv[0]))
        ]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
