"""The clock deadlines sets, as the timekeeper uses them (several processes safely).

Each shard's sorted set ``<prefix>:{s<k>}:deadlines`` maps a clocked game's id to the
earliest deadline of its running clocks (ms since the epoch). The engine's append script
sets or drops the entry in the same atomic step as the events (see
``RedisEventStore.append``), so a deadline never disagrees with the log for long.

A timekeeper **claims** the entries that are due: one script per shard moves each due
entry's score to ``now + lease_ms``, so another timekeeper sees it only once the lease
has passed (if the claimer died before appending the timeout, the game is not lost). The
claimer then appends the timeout on the version it loaded (optimistic concurrency: a
move appended first wins and the timeout is dropped); that append rewrites or drops the
entry. If no seat turned out to be due, the claimer puts the true deadline back with
:meth:`RedisDeadlines.release`, only if the entry still holds its lease (a move may have
rewritten it meanwhile).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Protocol

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, RedisError

from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.redis_client import RedisClient

log = structlog.get_logger(__name__)

CLAIM_SCRIPT = """
-- KEYS: 1 deadlines. ARGV: 1 now ms, 2 lease-until ms, 3 at most this many
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member)
end
return due
"""
CLAIM_SHA = hashlib.sha1(CLAIM_SCRIPT.encode()).hexdigest()

RELEASE_SCRIPT = """
-- KEYS: 1 deadlines. ARGV: 1 game id, 2 lease-until ms claimed, 3 new score ('' = drop)
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
end
return 1
"""
RELEASE_SHA = hashlib.sha1(RELEASE_SCRIPT.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Claim:
    """A due game claimed until ``lease_until_ms``."""

    game_id: str
    lease_until_ms: int


class DeadlineQueue(Protocol):
    """Claim due clocked games; put back a deadline that was not due after all."""

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[Claim]:
        """Games whose deadline is at or before ``now_ms`` (at most ``limit`` per shard),
        each leased to this caller for ``lease_ms``."""
        ...

    async def release(self, claim: Claim, deadline_ms: int | None) -> bool:
        """Set the claimed game's deadline to ``deadline_ms`` (None: drop it) if the
        entry still holds the claim's lease; True if it did."""
        ...


class RedisDeadlines:
    """:class:`DeadlineQueue` on the shards' Redis sorted sets (standalone or cluster: each
    script names one shard's key)."""

    def __init__(self, client: RedisClient, keys: RedisKeys) -> None:
        self._redis = client
        self._keys = keys

    async def _script(self, script: str, sha: str, key: str, *args: str) -> Any:
        try:
            return await self._redis.evalsha(sha, 1, key, *args)
        except NoScriptError:
            return await self._redis.eval(script, 1, key, *args)

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[Claim]:
        """See DeadlineQueue.claim_due: one claim script per shard. On a standalone Redis
        all shards go in one pipelined round trip (a pass runs every 0.5 s in every
        engine process: 16 round trips of their own were about 3% of a busy ``teoti
        serve``'s samples; issue 16); a cluster client refuses scripts in a pipeline, so
        there each shard is its own call. A shard whose script Redis lost (a restart) is
        sent the script itself. A shard whose claim fails (a cluster master down, a key
        of the wrong type) is logged (``deadlines_claim_failed``) and the other shards'
        claims are returned: raising would throw their leases away, so no clock of the
        deployment would run out while that one shard failed. Raises RedisError/OSError
        on an outage (every shard failed)."""
        until = now_ms + lease_ms
        args = (str(now_ms), str(until), str(limit))
        keys = [self._keys.deadlines(shard) for shard in range(self._keys.shards)]
        replies: list[Any]
        if isinstance(self._redis, RedisCluster):
            replies = []
            for key in keys:
                try:
                    replies.append(await self._script(CLAIM_SCRIPT, CLAIM_SHA, key, *args))
                except (RedisError, OSError) as exc:
                    replies.append(exc)
        else:
            pipe = self._redis.pipeline(transaction=False)
            for key in keys:
                pipe.evalsha(CLAIM_SHA, 1, key, *args)
            replies = await pipe.execute(raise_on_error=False)
        claims: list[Claim] = []
        failed: list[tuple[str, Exception]] = []
        for key, due in zip(keys, replies, strict=True):
            if isinstance(due, NoScriptError):
                try:
                    due = await self._redis.eval(CLAIM_SCRIPT, 1, key, *args)
                except (RedisError, OSError) as exc:
                    due = exc
            if isinstance(due, Exception):
                failed.append((key, due))
                continue
            claims += [Claim(str(game_id), until) for game_id in due or []]
        if len(failed) == len(keys):
            raise failed[0][1]  # an outage: the timekeeper logs it once
        for key, error in failed:
            log.warning("deadlines_claim_failed", key=key, error=repr(error))
        return claims

    async def release(self, claim: Claim, deadline_ms: int | None) -> bool:
        """See DeadlineQueue.release."""
        done = await self._script(
            RELEASE_SCRIPT,
            RELEASE_SHA,
            self._keys.deadlines_of(claim.game_id),
            claim.game_id,
            str(claim.lease_until_ms),
            "" if deadline_ms is None else str(deadline_ms),
        )
        return bool(done)

    async def deadline_of(self, game_id: str) -> int | None:
        """The game's entry (ms), or None (tests and operators)."""
        score: Any = await self._redis.zscore(self._keys.deadlines_of(game_id), game_id)
        return None if score is None else int(score)


class MemoryDeadlines:
    """:class:`DeadlineQueue` over an in-memory store's ``deadlines`` dict (tests)."""

    def __init__(self, deadlines: dict[str, int]) -> None:
        self._deadlines = deadlines

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[Claim]:
        """See DeadlineQueue.claim_due."""
        due = sorted((ms, g) for g, ms in self._deadlines.items() if ms <= now_ms)[:limit]
        for _, game_id in due:
            self._deadlines[game_id] = now_ms + lease_ms
        return [Claim(game_id, now_ms + lease_ms) for _, game_id in due]

    async def release(self, claim: Claim, deadline_ms: int | None) -> bool:
        """See DeadlineQueue.release."""
        if self._deadlines.get(claim.game_id) != claim.lease_until_ms:
            return False
        if deadline_ms is None:
            del self._deadlines[claim.game_id]
        else:
            self._deadlines[claim.game_id] = deadline_ms
        return True
