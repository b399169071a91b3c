"""Each player's notices in Redis: one capped stream per player, grouped in shards.

Keys: ``<prefix>:{inbox:<shard>}:<player>``, a stream of notices (services.notices.notice
fields), capped near INBOX_MAXLEN entries. ``<shard>`` is the player's shard (crc32 of the
player id modulo ``shards``): every inbox of one shard shares a hash tag, so one XREAD
over all the watched inboxes of a shard is one cluster slot (services.notices.hub runs
one read loop per shard, as the WatchGame hub does per game shard).

A notice is one XADD: the inbox is both the record a client resumes from and what the
hub reads live, so a notice a client missed while disconnected is there when it comes
back (as long as fewer than INBOX_MAXLEN came after it).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import structlog

from services.engine.adapters.redis_client import RedisClient
from services.notices.notice import Notice

log = structlog.get_logger(__name__)

INBOX_MAXLEN = 1000
"""Notices an inbox keeps (approximately; the oldest are trimmed)."""
DEFAULT_SHARDS = 16
"""Inbox shards (read loops per gateway at most)."""


def decode(entries: Sequence[Any]) -> list[Notice]:
    """Stream entries ``[(id, fields), ...]`` as notices; an entry this version cannot
    read (a newer kind) is skipped and logged, never fatal to the stream."""
    notices = []
    for entry_id, fields in entries:
        notice_id = _text(entry_id)
        try:
            notices.append(Notice.from_fields(notice_id, _texts(fields)))
        except (KeyError, ValueError) as exc:
            log.warning("notice_skipped", notice_id=notice_id, error=type(exc).__name__)
    return notices


class RedisInbox:
    """Posts and reads players' notices (see the module doc for keys).

    Args:
        client: the deployment's Redis client.
        prefix: the deployment's key prefix.
        shards: inbox shards (every process of a deployment must agree).
    """

    def __init__(self, client: RedisClient, prefix: str, shards: int = DEFAULT_SHARDS) -> None:
        self._redis = client
        self._prefix = prefix
        self.shards = shards

    @property
    def client(self) -> RedisClient:
        """The Redis client (the hub's read loops use it)."""
        return self._redis

    def shard_of(self, player: str) -> int:
        """The shard of ``player``'s inbox."""
        return zlib.crc32(player.encode("utf-8")) % self.shards

    def key(self, player: str) -> str:
        """The stream key of ``player``'s inbox."""
        return f"{self._prefix}:{{inbox:{self.shard_of(player)}}}:{player}"

    async def post(self, player: str, notice: Notice) -> str:
        """Append ``notice`` to ``player``'s inbox; returns its id. Raises NoticeInvalid
        (data too large) or redis errors on an outage."""
        fields: dict[Any, Any] = notice.to_fields()
        entry_id: Any = await self._redis.xadd(
            self.key(player), fields, maxlen=INBOX_MAXLEN, approximate=True
        )
        return _text(entry_id)

    async def since(self, player: str, after: str = "0", limit: int = 100) -> list[Notice]:
        """``player``'s notices after the id ``after`` ("0": from the oldest kept),
        oldest first, at most ``limit``."""
        entries: Any = await self._redis.xrange(
            self.key(player), min=f"({after}" if after not in ("", "0") else "-", count=limit
        )
        return decode(entries or [])


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _texts(fields: Mapping[Any, Any]) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in fields.items()}
