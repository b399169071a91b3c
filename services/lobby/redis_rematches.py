"""Rematch offers in Redis, each change applied atomically (compare-and-set).

Keys, in the lobby's hash tag:

- ``<prefix>:{lobby}:rematches``, hash, finished game id -> rematch JSON
  (services.lobby.rematch ``Rematch.to_json``);
- ``<prefix>:{lobby}:rematches:lapse``, sorted set, game id -> its offer's
  ``expires_ms``: when the rematch was settled at the latest (accepted, declined or
  lapsed). The lobby's sweeper (services.lobby.retention) drops the rematches that
  lapsed :data:`~services.lobby.rematch.REMATCH_KEEP_MS` ago, so the hash does not grow
  with every game ever finished; the offer window keeps such a game from a second one.
- ``<prefix>:{lobby}:rematches:indexed``, string: set once every rematch written before
  the lapse index existed has been put in it (the first sweep after an upgrade).

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
FORGET_BATCH = 500
"""Rematches dropped per step of a sweep (one script call each)."""

# KEYS: 1 rematches, 2 lapse index. ARGV: 1 game id, 2 old JSON ('' for none), 3 new
# JSON, 4 its expires_ms.
_CAS = """
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 'changed' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 'ok'
"""
_CAS_SHA = hashlib.sha1(_CAS.encode()).hexdigest()

# KEYS: 1 rematches, 2 lapse index. ARGV: 1 lapsed before (ms), 2 batch. Drops at most
# a batch of the rematches that lapsed before ARGV[1]; returns how many.
_FORGET = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
if #ids == 0 then return 0 end
redis.call('HDEL', KEYS[1], unpack(ids))
redis.call('ZREM', KEYS[2], unpack(ids))
return #ids
"""
_FORGET_SHA = hashlib.sha1(_FORGET.encode()).hexdigest()


class RedisRematches:
    """The rematch offers (see the module doc).

    Args:
        client: the deployment's Redis client.
        prefix: the deployment's key prefix.
    """

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        self._key = f"{prefix}:{{lobby}}:rematches"
        self._lapse_key = f"{self._key}:lapse"
        self._indexed_key = f"{self._key}:indexed"

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
            old = "" if text is None else _text(text)
            before = Rematch.from_json(old) if old else None
            after = decide(before)
            new = after.to_json()
            if new == old:
                return before, after
            args: list[str | int] = [game_id, old, new, after.expires_ms]
            reply = await self._script(_CAS_SHA, _CAS, *args)
            if _text(reply) == "ok":
                return before, after
        # Contention, not a bug: the client retries (UNAVAILABLE with a retry delay).
        raise Unavailable("redis", 0.1, f"the rematch of {game_id} kept changing")

    async def forget_lapsed_before(self, before_ms: int, batch: int = FORGET_BATCH) -> int:
        """Drop the rematches whose offer lapsed (or would have: ``expires_ms``) before
        ``before_ms`` (ms since the epoch), at most ``batch`` per script call; returns
        how many were dropped. Idempotent: two gateways sweeping at once drop each once.
        Redis errors propagate."""
        await self._index_earlier_rematches()
        dropped = 0
        while True:
            reply: Any = await self._script(_FORGET_SHA, _FORGET, before_ms, batch)
            dropped += int(reply)
            if int(reply) < batch:
                return dropped

    async def _index_earlier_rematches(self) -> None:
        """Put the rematches stored before the lapse index existed in it (once per
        deployment: a marker key says it was done; a repeat only re-adds the same
        scores)."""
        if await self._redis.exists(self._indexed_key):
            return
        cursor = 0
        while True:
            page: Any = await self._redis.hscan(self._key, cursor, count=500)
            cursor, entries = int(page[0]), page[1]
            lapses = {
                _text(game): Rematch.from_json(text).expires_ms for game, text in entries.items()
            }
            if lapses:
                await self._redis.zadd(self._lapse_key, lapses, nx=True)
            if cursor == 0:
                break
        await self._redis.set(self._indexed_key, "1")

    async def _script(self, sha: str, source: str, *args: str | int) -> Any:
        keys = (self._key, self._lapse_key)
        try:
            return await self._redis.evalsha(sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self._redis.eval(source, len(keys), *keys, *args)


def _text(value: Any) -> str:
    """A reply as text (a client may or may not decode replies)."""
    return value.decode() if isinstance(value, bytes) else str(value)
