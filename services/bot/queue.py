"""The turn-request stream read through a Redis consumer group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.exceptions import ResponseError

from services.engine.store.keys import RedisKeys
from services.engine.store.records import TurnRequest

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Delivery:
    """One stream entry handed to this consumer; ``request`` is None if malformed."""

    entry_id: str
    request: TurnRequest | None


class TurnRequestQueue:
    """XREADGROUP/XACK/XAUTOCLAIM over ``<prefix>:turn-requests``.

    Args:
        client: redis.asyncio client with ``decode_responses=True``.
        keys: key layout (prefix).
        group: consumer group shared by every bot worker.
        consumer: this worker's name within the group.
    """

    def __init__(
        self, client: aioredis.Redis, keys: RedisKeys, group: str = "bots", consumer: str = "bot-1"
    ) -> None:
        self._redis = client
        self._stream = keys.turn_requests
        self.group = group
        self.consumer = consumer

    async def ensure_group(self) -> None:
        """Create the group (and stream) from the beginning if it does not exist."""
        try:
            await self._redis.xgroup_create(self._stream, self.group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    @staticmethod
    def _deliveries(entries: list[tuple[str, dict[str, str]]]) -> list[Delivery]:
        result = []
        for entry_id, fields in entries:
            try:
                result.append(Delivery(entry_id, TurnRequest.from_fields(fields)))
            except (KeyError, ValueError):
                log.warning("malformed_turn_request", entry_id=entry_id, fields=fields)
                result.append(Delivery(entry_id, None))
        return result

    async def read(self, count: int, block_ms: int) -> list[Delivery]:
        """New entries for this consumer, waiting up to ``block_ms`` for some."""
        reply: Any = await self._redis.xreadgroup(
            self.group, self.consumer, {self._stream: ">"}, count=count, block=block_ms
        )
        deliveries: list[Delivery] = []
        for _stream, entries in reply or []:
            deliveries += self._deliveries(entries)
        return deliveries

    async def claim_stale(self, min_idle_ms: int, count: int) -> list[Delivery]:
        """Take over entries another consumer read but did not ack for ``min_idle_ms``."""
        reply: Any = await self._redis.xautoclaim(
            self._stream,
            self.group,
            self.consumer,
            min_idle_time=min_idle_ms,
            start_id="0-0",
            count=count,
        )
        return self._deliveries([e for e in reply[1] if e and e[1] is not None])

    async def ack(self, entry_id: str) -> None:
        """Mark the entry done for the group."""
        await self._redis.xack(self._stream, self.group, entry_id)
