"""Where a webhook's delivery stands: the last notice it got, its retries, its last error.

Kept per webhook in ``services.players.webhooks.state_key`` (a hash, credential id ->
this JSON), written only by the gateway delivering the webhook's shard
(services.notices.webhook_dispatcher). ``created_ms`` ties a state to the webhook it
was for: setting a webhook again (a new URL and secret) starts from a fresh state, even
if a delivery of the old one writes its state a moment after.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.players.webhooks import Webhook, state_key, webhooks_key

# KEYS: 1 webhooks, 2 states. ARGV: 1 credential id, 2 state JSON, 3 the webhook's
# created_ms. Writes the state only while the credential still has that webhook (not
# after a delete, a revoke or a replacement: then its delivery stops there).
_PUT = """
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored or cjson.decode(stored)['created_ms'] ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""
_PUT_SHA = hashlib.sha1(_PUT.encode()).hexdigest()


LAST_SEQUENCE = 2**64 - 1
"""The highest sequence number of a stream id (Redis's own bound)."""


@dataclass(frozen=True, slots=True)
class DeliveryState:
    """One webhook's delivery (all times in ms since the epoch; 0: never).

    Attributes:
        created_ms: the ``created_ms`` of the webhook this state is for.
        cursor: the id of the last notice delivered or given up ("" before the first:
            notices after the webhook's creation are sent).
        attempts: failed tries of the oldest pending notice.
        retry_ms: when to try it again (0: not waiting).
        last_ok_ms: when a notice was last delivered.
        last_error: what the last failed try got ("" after a success).
        failing_since_ms: the first failure since the last success.
        dropped: notices given up after every retry failed, in all.
    """

    created_ms: int
    cursor: str = ""
    attempts: int = 0
    retry_ms: int = 0
    last_ok_ms: int = 0
    last_error: str = ""
    failing_since_ms: int = 0
    dropped: int = 0

    def after(self, webhook: Webhook) -> str:
        """The notice id deliveries resume after (at first, the last id a notice
        posted before the webhook's creation ms could have)."""
        return self.cursor or f"{webhook.created_ms - 1}-{LAST_SEQUENCE}"

    def delivered(self, notice_id: str, now_ms: int) -> DeliveryState:
        """The state after notice ``notice_id`` was answered 2xx."""
        return replace(
            self,
            cursor=notice_id,
            attempts=0,
            retry_ms=0,
            last_ok_ms=now_ms,
            last_error="",
            failing_since_ms=0,
        )

    def failed(self, error: str, now_ms: int, retry_ms: int) -> DeliveryState:
        """The state after a failed try, to be tried again at ``retry_ms``."""
        return replace(
            self,
            attempts=self.attempts + 1,
            retry_ms=retry_ms,
            last_error=error,
            failing_since_ms=self.failing_since_ms or now_ms,
        )

    def gave_up(self, through: str, notices: int) -> DeliveryState:
        """The state after giving up on ``notices`` pending notices up to ``through``."""
        return replace(self, cursor=through, attempts=0, retry_ms=0, dropped=self.dropped + notices)

    def to_json(self) -> str:
        """The stored JSON."""
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> DeliveryState:
        """Inverse of :meth:`to_json` (keys it does not know are ignored)."""
        data: dict[str, Any] = json.loads(text)
        return cls(
            created_ms=int(data.get("created_ms", 0)),
            cursor=str(data.get("cursor", "")),
            attempts=int(data.get("attempts", 0)),
            retry_ms=int(data.get("retry_ms", 0)),
            last_ok_ms=int(data.get("last_ok_ms", 0)),
            last_error=str(data.get("last_error", "")),
            failing_since_ms=int(data.get("failing_since_ms", 0)),
            dropped=int(data.get("dropped", 0)),
        )


class RedisDeliveryStates:
    """Reads and writes webhooks' delivery states.

    Args:
        client: the accounts' Redis client.
        prefix: the deployment's key prefix.
    """

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix

    async def get(self, webhook: Webhook) -> DeliveryState:
        """``webhook``'s state (a fresh one if none, or one kept for an earlier webhook
        of the same credential)."""
        key = state_key(self._prefix, webhook.player_id)
        text: Any = await self._redis.hget(key, webhook.credential_id)
        if text is not None:
            state = DeliveryState.from_json(text)
            if state.created_ms == webhook.created_ms:
                return state
        return DeliveryState(created_ms=webhook.created_ms)

    async def put(self, webhook: Webhook, state: DeliveryState) -> bool:
        """Store ``state`` for ``webhook``; False (nothing written) if the credential
        has no webhook any more, or another one (set again since)."""
        keys = [
            webhooks_key(self._prefix, webhook.player_id),
            state_key(self._prefix, webhook.player_id),
        ]
        args = [webhook.credential_id, state.to_json(), str(webhook.created_ms)]
        try:
            reply: Any = await self._redis.evalsha(_PUT_SHA, len(keys), *keys, *args)
        except NoScriptError:
            reply = await self._redis.eval(_PUT, len(keys), *keys, *args)
        return bool(int(reply))
