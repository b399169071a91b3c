"""Rematch offers in Redis, each change applied atomically (compare-and-set).

Key: ``<prefix>:{lobby}:rematches``, hash, finished game id -> rematch JSON
(services.lobby.rematch ``Rematch.to_json``), in the lobby's hash tag. Entries are kept
(one rematch per finished game: an expired or declined offer is not made again).

A change reads the offer, decides with services.lobby.rematch (pure), and writes the new
JSON only if the stored JSON is still what it decided on ("" for none yet), so two
players accepting at once on two gateways both count, and the rematch opens once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.errors import Unavailable
from services.lobby.rematch import Rematch

MAX_ATTEMPTS = 16
"""Compare-and-set rounds before a change gives up."""

# KEYS: 1 rematches. ARGV: 1 game id, 2 old JSON ('' for none), 3 new JSON.
_CAS = """
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 'changed' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 'ok'
"""
_CAS_SHA = hashlib.sha1(_CAS.encode()).hexdigest()


class RedisRematches:
    """The rematch offers (see the module doc).

    Args:
        client: the deployment's Redis client.
        prefix: the deployment's key prefix.
    """

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        self._key = f"{prefix}:{{lobby}}:rematches"

    async def get(self, game_id: str) -> Rematch | None:
        """The rematch of ``game_id`` (None if none was offered)."""
        text: Any = await self._redis.hget(self._key, game_id)
        return None if text is None else Rematch.from_json(text)

    async def change(
        self, game_id: str, decide: Callable[[Rematch | None], Rematch]
    ) -> tuple[Rematch | None, Rematch]:
        """Apply ``decide`` (given the stored rematch, or None) atomically; returns
        (the rematch before, after). Raises the decision's refusal, or Unavailable if
        other changes kept winning for MAX_ATTEMPTS rounds."""
        for _attempt in range(MAX_ATTEMPTS):
            text: Any = await self._redis.hget(self._key, game_id)
            old = "" if text is None else (text.decode() if isinstance(text, bytes) else str(text))
            before = Rematch.from_json(old) if old else None
            after = decide(before)
            new = after.to_json()
            if new == old:
                return before, after
            args = [game_id, old, new]
            try:
                reply: Any = await self._redis.evalsha(_CAS_SHA, 1, self._key, *args)
            except NoScriptError:
                reply = await self._redis.eval(_CAS, 1, self._key, *args)
            if (reply.decode() if isinstance(reply, bytes) else str(reply)) == "ok":
                return before, after
        # Contention, not a bug: the client retries (UNAVAILABLE with a retry delay).
        raise Unavailable("redis", 0.1, f"the rematch of {game_id} kept changing")
