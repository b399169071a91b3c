"""Each player's notices in Redis: one capped stream per player, grouped in shards.

Keys: ``<prefix>:{inbox:<shard>}:<player>``, a stream of notices (services.notices.notice
fields), capped near INBOX_MAXLEN entries. ``<shard>`` is the player's shard (crc32 of the
player id modulo ``shards``): every inbox of one shard shares a hash tag, so one XREAD
over all the watched inboxes of a shard is one cluster slot (services.notices.hub runs
one read loop per shard, as the WatchGame hub does per game shard).

A notice is one script: XADD to the inbox, and XADD of the player's id to the shard's
*bell* ``<prefix>:{inbox:<shard>}:bell`` (capped near BELL_MAXLEN). The inbox is the
record a client resumes from, so a notice a client missed while disconnected is there
when it comes back (as long as fewer than INBOX_MAXLEN came after it). The bell is what
the hub blocks on: one key per shard, whatever the number of open streams, telling it
whose inbox to read.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import structlog
from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.notices.notice import Notice

log = structlog.get_logger(__name__)

INBOX_MAXLEN = 1000
"""Notices an inbox keeps (approximately; the oldest are trimmed)."""
DEFAULT_SHARDS = 16
"""Inbox shards (read loops per gateway at most)."""
POSTED_TTL_S = 86_400
"""How long a notice posted once (:meth:`RedisInbox.post_once`) is remembered, in
seconds: far longer than any redelivery of what made it."""

BELL_MAXLEN = 100_000
"""Entries a shard's bell keeps (approximately): a hub further behind than that misses
notices until the player's next one (its client still gets them on resuming)."""

# Post a notice (unless its marker says it was posted before) and ring the shard's bell,
# in one step: the inbox, the bell and the "posted" marker share the player's inbox hash
# tag, so this runs on a cluster too.
# KEYS: 1 inbox, 2 bell, 3 posted marker (optional).
# ARGV: 1 marker ttl (s), 2 inbox maxlen, 3 bell maxlen, 4 player, then field/value pairs.
POST_SCRIPT = """
if #KEYS > 2 and not redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[1]) then
  return ''
end
local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', unpack(fields))
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'p', ARGV[4])
return id
"""
POST_SHA = hashlib.sha1(POST_SCRIPT.encode()).hexdigest()


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

    def bell(self, shard: int) -> str:
        """The stream key of ``shard``'s bell (the ids of players just sent a notice)."""
        return f"{self._prefix}:{{inbox:{shard}}}:bell"

    async def post(self, player: str, notice: Notice) -> str:
        """Append ``notice`` to ``player``'s inbox and ring its shard's bell; returns its
        id. Raises NoticeInvalid (data too large) or redis errors on an outage."""
        return await self._post(player, notice, None)

    async def _post(self, player: str, notice: Notice, once: str | None) -> str:
        keys = [self.key(player), self.bell(self.shard_of(player))]
        if once is not None:
            keys.append(self.posted_key(player, once))
        args = [str(POSTED_TTL_S), str(INBOX_MAXLEN), str(BELL_MAXLEN), player]
        args += [item for pair in notice.to_fields().items() for item in pair]
        try:
            found: Any = await self._redis.evalsha(POST_SHA, len(keys), *keys, *args)
        except NoScriptError:
            found = await self._redis.eval(POST_SCRIPT, len(keys), *keys, *args)
        return _text(found) if found else ""

    def posted_key(self, player: str, once: str) -> str:
        """The marker of the notice ``once`` posted to ``player`` (its inbox's slot)."""
        return f"{self._prefix}:{{inbox:{self.shard_of(player)}}}:posted:{player}:{once}"

    async def post_once(self, player: str, notice: Notice, once: str) -> str:
        """Append ``notice`` to ``player``'s inbox unless a notice was posted there under
        the key ``once`` (e.g. ``<game>:<version>:<seat>``) in the last POSTED_TTL_S:
        a redelivered cause posts nothing twice. Returns the new id, "" if it was posted
        before. Raises NoticeInvalid (data too large), redis errors on an outage."""
        return await self._post(player, notice, once)

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
