"""The per-shard turn-request streams, read through one Redis consumer group."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Any

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, ResponseError

from services.engine.adapters.consumer_groups import ensure_groups
from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.records import TurnRequest
from services.metrics.families import BOT_DEAD_LETTERED

log = structlog.get_logger(__name__)

# Ack-and-delete, and dead-letter-then-ack-and-delete, each atomic in one script: the
# turn stream and its dead-letter stream share the shard's hash tag, so this also runs on
# a Redis Cluster (where redis-py < 6 has no MULTI for the async cluster client).
# KEYS: 1 turns, 2 dead (dead-lettering only). ARGV: 1 group, 2 entry id, then field/value
# pairs of the dead letter.
FINISH_SCRIPT = """
if #KEYS > 1 then
  local record = {}
  for i = 3, #ARGV do record[#record + 1] = ARGV[i] end
  redis.call('XADD', KEYS[2], '*', unpack(record))
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
return 1
"""
FINISH_SHA = hashlib.sha1(FINISH_SCRIPT.encode()).hexdigest()

DEFAULT_MAX_DELIVERIES = 5
"""A request handed out more often than this is moved to its shard's dead-letter stream."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One stream entry handed to this consumer; ``request`` is None if malformed."""

    stream: str
    entry_id: str
    request: TurnRequest | None
    fields: dict[str, str] = field(default_factory=dict)
    deliveries: int = 1


class TurnRequestQueue:
    """XREADGROUP / XACK+XDEL / XAUTOCLAIM over every shard's ``turns`` stream.

    Acked entries are deleted, so the streams stay short without trimming (trimming
    could drop a request still pending for a crashed worker).

    On a standalone Redis one XREADGROUP reads every shard's stream. On a Redis Cluster
    the shards' streams live in different slots (and usually on different nodes), and a
    command may only name keys of one slot, so :meth:`stream_groups` hands out one group
    per stream and the worker keeps a blocking read open on each.

    Args:
        client: redis.asyncio client (standalone or cluster) with ``decode_responses=True``.
        keys: key layout (prefix and shard count).
        group: consumer group shared by every bot worker.
        consumer: this worker's name within the group.
        max_deliveries: deliveries after which a reclaimed request is dead-lettered.
    """

    def __init__(
        self,
        client: RedisClient,
        keys: RedisKeys,
        group: str = "bots",
        consumer: str = "bot-1",
        max_deliveries: int = DEFAULT_MAX_DELIVERIES,
    ) -> None:
        self._redis = client
        self._keys = keys
        self._streams = keys.all_turns()
        self.group = group
        self.consumer = consumer
        self.max_deliveries = max_deliveries

    async def ensure_group(self) -> None:
        """Create the group (and streams) from the beginning where it does not exist."""
        await ensure_groups(self._redis, self._streams, self.group)

    @staticmethod
    def _delivery(stream: str, entry_id: str, fields: dict[str, str], count: int) -> Delivery:
        try:
            request: TurnRequest | None = TurnRequest.from_fields(fields)
        except (KeyError, ValueError):
            log.warning("malformed_turn_request", entry_id=entry_id, fields=fields)
            request = None
        return Delivery(stream, entry_id, request, dict(fields), count)

    @property
    def is_cluster(self) -> bool:
        """True on a Redis Cluster (one read per stream)."""
        return isinstance(self._redis, RedisCluster)

    def stream_groups(self) -> list[list[str]]:
        """Streams that one XREADGROUP may read together: all of them, or one per slot."""
        if self.is_cluster:
            return [[stream] for stream in self._streams]
        return [list(self._streams)]

    async def read(
        self, count: int, block_ms: int, streams: list[str] | None = None
    ) -> list[Delivery]:
        """New entries for this consumer, waiting up to ``block_ms``.

        ``streams`` is one of :meth:`stream_groups` (default: every shard's stream, which
        a cluster refuses unless there is one shard).
        """
        reply: Any = await self._redis.xreadgroup(
            self.group,
            self.consumer,
            dict.fromkeys(streams if streams is not None else self._streams, ">"),
            count=count,
            block=block_ms,
        )
        return [
            self._delivery(stream, entry_id, fields, 1)
            for stream, entries in reply or []
            for entry_id, fields in entries
        ]

    async def claim_stale(self, min_idle_ms: int, count: int) -> list[Delivery]:
        """Take over entries a consumer read but did not ack for ``min_idle_ms``.

        Entries delivered more than ``max_deliveries`` times are dead-lettered here and
        not returned.
        """
        claimed: list[Delivery] = []
        for stream in self._streams:
            reply: Any = await self._redis.xautoclaim(
                stream,
                self.group,
                self.consumer,
                min_idle_time=min_idle_ms,
                start_id="0-0",
                count=count,
            )
            for entry_id, fields in reply[1]:
                if fields is None:  # deleted while pending: nothing left to do
                    await self._redis.xack(stream, self.group, entry_id)
                    continue
                pending: Any = await self._redis.xpending_range(
                    stream, self.group, min=entry_id, max=entry_id, count=1
                )
                times = int(pending[0]["times_delivered"]) if pending else 1
                delivery = self._delivery(stream, entry_id, fields, times)
                if times > self.max_deliveries:
                    await self.dead_letter(delivery, f"delivered {times} times")
                else:
                    claimed.append(delivery)
        return claimed

    async def _finish(self, keys: list[str], args: list[str]) -> None:
        try:
            await self._redis.evalsha(FINISH_SHA, len(keys), *keys, *args)
        except NoScriptError:
            await self._redis.eval(FINISH_SCRIPT, len(keys), *keys, *args)

    async def depths(self) -> tuple[int, int, int]:
        """(entries in the turn streams, of those handed out and not yet acked, entries
        in the dead-letter streams), over every shard: what the metrics endpoint shows
        when scraped (acked entries are deleted, so an entry is waiting or pending)."""
        streams = list(self._streams)
        dead = [stream.removesuffix(":turns") + ":dead" for stream in streams]
        lengths = await asyncio.gather(*(self._redis.xlen(key) for key in (*streams, *dead)))
        pending = await asyncio.gather(*(self._pending(stream) for stream in streams))
        return sum(lengths[: len(streams)]), sum(pending), sum(lengths[len(streams) :])

    async def _pending(self, stream: str) -> int:
        """Entries of ``stream`` the group handed out and nobody acked (0 with no group)."""
        try:
            summary: Any = await self._redis.xpending(stream, self.group)
        except ResponseError:  # NOGROUP: no worker has read this stream yet
            return 0
        return int(summary.get("pending", 0) if isinstance(summary, dict) else summary[0])

    async def ack(self, delivery: Delivery) -> None:
        """Mark the entry done for the group and delete it (atomically)."""
        await self._finish([delivery.stream], [self.group, delivery.entry_id])

    async def dead_letter(self, delivery: Delivery, reason: str) -> None:
        """Move the entry to its shard's dead-letter stream with ``reason``, then ack it."""
        BOT_DEAD_LETTERED.inc()
        dead = delivery.stream.removesuffix(":turns") + ":dead"
        log.error(
            "turn_request_dead_lettered",
            entry_id=delivery.entry_id,
            reason=reason,
            deliveries=delivery.deliveries,
            **delivery.fields,
        )
        record: dict[str, str] = {
            **delivery.fields,
            "entry_id": delivery.entry_id,
            "reason": reason,
            "deliveries": str(delivery.deliveries),
        }
        pairs = [item for pair in record.items() for item in pair]
        await self._finish([delivery.stream, dead], [self.group, delivery.entry_id, *pairs])
