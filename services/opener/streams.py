"""The streams the table opener reads, as one Redis consumer group (``openers``).

Two kinds of stream carry tables whose game is to be opened: the lobby's
``{lobby}:starting`` (services.lobby.redis_tables) and each matchmaking pool's
``{mm:<pool>}:tables`` (services.matchmaking.redis_pool; pools appear as players seek, so
the list is read again on every pass). Every gateway joins the group under its own
consumer name: an entry goes to one of them, is acked (and deleted) only once handled,
and an entry a crashed gateway read and never acked is taken over by another after
``claim_idle_ms`` (XAUTOCLAIM), as the bot worker (services.bot.queue) and the
tournament director (services.tournament.director) do.

One XREADGROUP reads every stream on a single Redis; on a Redis Cluster, where each
stream has its own slot, each is read by a command of its own
(services.engine.adapters.consumer_groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.engine.adapters.consumer_groups import ensure_group, read_batches
from services.engine.adapters.redis_client import RedisClient

GROUP = "openers"
"""The consumer group of every table opener."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One stream entry: its ``stream`` key, ``entry_id`` and the ``table`` JSON text
    ("" if the entry has no such field: malformed, acked and skipped)."""

    stream: str
    entry_id: str
    table: str


class OpenerStreams:
    """Reads and acks the opener's streams as the group :data:`GROUP`.

    Args:
        client: the deployment's Redis client.
        consumer: this process's consumer name (unique per process).
    """

    def __init__(self, client: RedisClient, consumer: str) -> None:
        self._redis = client
        self.consumer = consumer
        self._grouped: set[str] = set()

    async def _ensure_group(self, stream: str) -> None:
        if stream not in self._grouped:
            await ensure_group(self._redis, stream, GROUP)
            self._grouped.add(stream)

    async def read(self, streams: Sequence[str], count: int) -> list[Entry]:
        """New entries of ``streams`` (at most ``count`` from each), without waiting."""
        found: list[Entry] = []
        for stream in streams:
            await self._ensure_group(stream)
        for batch in read_batches(self._redis, streams):
            reply: Any = await self._redis.xreadgroup(
                GROUP, self.consumer, dict.fromkeys(batch, ">"), count=count
            )
            found += [
                Entry(_text(key), _text(entry_id), _table(fields))
                for key, entries in reply or []
                for entry_id, fields in entries
            ]
        return found

    async def claim_stale(
        self, streams: Sequence[str], min_idle_ms: int, count: int
    ) -> list[Entry]:
        """Entries another opener read and did not ack within ``min_idle_ms``."""
        claimed: list[Entry] = []
        for stream in streams:
            await self._ensure_group(stream)
            reply: Any = await self._redis.xautoclaim(
                stream, GROUP, self.consumer, min_idle_time=min_idle_ms, count=count
            )
            claimed += [
                Entry(stream, _text(entry_id), _table(fields) if fields else "")
                for entry_id, fields in reply[1]
            ]
        return claimed

    async def ack(self, entry: Entry) -> None:
        """Done with ``entry``: ack and delete it in one pipelined round trip."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.xack(entry.stream, GROUP, entry.entry_id)
        pipe.xdel(entry.stream, entry.entry_id)
        await pipe.execute()


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _table(fields: Any) -> str:
    for key, value in (fields or {}).items():
        if _text(key) == "table":
            return _text(value)
    return ""
