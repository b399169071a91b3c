"""Waiting seeks in Redis, and the atomic placement of a proposed table.

State lives in Redis, not in a gateway's memory, so several gateways match at once and a
restart loses no seek. Per pool (services.matchmaking.seeks ``pool_key``; ``<pool>`` below
is the first 16 hex digits of its SHA-256, so keys hold no client text), under the
deployment's prefix, all with the hash tag ``{mm:<pool>}`` (one cluster slot per pool):

- ``<prefix>:{mm:<pool>}:waiting``      sorted set, seek id -> created ms (who waits)
- ``<prefix>:{mm:<pool>}:seeks``        hash, seek id -> seek JSON (``Seek.to_json``)
- ``<prefix>:{mm:<pool>}:players``      hash, player -> their waiting seek id (one per pool)
- ``<prefix>:{mm:<pool>}:placed:<seek>`` string, the table id a seek was placed at
  (expires after PLACED_TTL_S: a retried or late cancel still learns it was placed)
- ``<prefix>:{mm:<pool>}:tables``       stream of placed tables (``table`` = table JSON),
  capped near TABLES_MAXLEN, read by whoever opens the games
- ``<prefix>:{mm:<pool>}:lease``        the matcher holding the pool (expires)

and ``<prefix>:mm:pools``, hash, pool -> pool key: the pools that have had a seek.

Every change is one Lua script, so a seek is placed at most once: :meth:`place` seats a
table only if every one of its seeks still waits, and removes them in the same step;
:meth:`cancel` removes a waiting seek in one step, or answers the table it was placed at.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.matchmaking.matching import Table
from services.matchmaking.seeks import Seek

PLACED_TTL_S = 3600
"""Seconds a placed seek's table id is kept (for retries and late cancels)."""
TABLES_MAXLEN = 10_000
"""Entries a pool's table stream keeps (approximately; older ones are trimmed)."""

# KEYS: 1 waiting, 2 seeks, 3 players, 4 placed:<seek>. ARGV: 1 seek id, 2 player,
# 3 created ms, 4 seek JSON. Returns {status, id}.
_ADD = """
local placed = redis.call('GET', KEYS[4])
if placed then return {'placed', placed} end
local mine = redis.call('HGET', KEYS[3], ARGV[2])
if mine then return {'waiting', mine} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'taken', ARGV[1]} end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
return {'added', ARGV[1]}
"""

# KEYS: 1 waiting, 2 seeks, 3 players, 4 tables stream, 5.. placed:<seek> per seek.
# ARGV: 1 table id, 2 placed ttl s, 3 stream maxlen, 4 table JSON, then (seek id,
# player) pairs in KEYS order. Returns {'ok', entry id} or {'gone', seek id}.
_PLACE = """
local n = (#ARGV - 4) / 2
for i = 1, n do
  if not redis.call('ZSCORE', KEYS[1], ARGV[3 + 2 * i]) then
    return {'gone', ARGV[3 + 2 * i]}
  end
end
for i = 1, n do
  local seek, player = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
  redis.call('ZREM', KEYS[1], seek)
  redis.call('HDEL', KEYS[2], seek)
  if redis.call('HGET', KEYS[3], player) == seek then redis.call('HDEL', KEYS[3], player) end
  redis.call('SET', KEYS[4 + i], ARGV[1], 'EX', ARGV[2])
end
local id = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'table', ARGV[4])
return {'ok', id}
"""

# KEYS: 1 waiting, 2 seeks, 3 players, 4 placed:<seek>. ARGV: 1 seek id, 2 player.
# Returns {'cancelled', ''}, {'placed', table id} or {'unknown', ''}.
_CANCEL = """
local mine = redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1]
if mine and redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[2])
  return {'cancelled', ''}
end
local placed = redis.call('GET', KEYS[4])
if placed then return {'placed', placed} end
return {'unknown', ''}
"""

_SCRIPTS = {name: (text, hashlib.sha1(text.encode()).hexdigest()) for name, text in
            {"add": _ADD, "place": _PLACE, "cancel": _CANCEL}.items()}  # fmt: skip


@dataclass(frozen=True, slots=True)
class SeekStatus:
    """Where a seek stands after :meth:`RedisSeekPool.add` or :meth:`RedisSeekPool.cancel`.

    Attributes:
        status: ``added`` (now waiting), ``waiting`` (the player already waits in this
            pool: ``seek_id`` is that seek), ``taken`` (this seek id already waits),
            ``placed`` (seated: ``table_id`` says where), ``cancelled``, ``unknown``.
        seek_id: the seek the status is about.
        table_id: the table a placed seek sits at ("" otherwise).
    """

    status: str
    seek_id: str
    table_id: str = ""


def pool_id(pool: str) -> str:
    """The key-safe id of the pool ``pool``: 16 hex digits of its SHA-256."""
    return hashlib.sha256(pool.encode("utf-8")).hexdigest()[:16]


def table_id(table: Table) -> str:
    """A placed table's id: 20 hex digits of the SHA-256 of its seek ids, so matchers
    proposing one table name it alike (and its game's create command id is stable)."""
    joined = "|".join(sorted(s.seek_id for s in table.seeks))
    return hashlib.sha256(f"table|{joined}".encode()).hexdigest()[:20]


def table_json(table: Table, table_id_: str) -> str:
    """A placed table as the JSON text of its stream entry: ``{table_id, pool, seats,
    bots, seeks: [seek JSON objects in seat order]}``."""
    return json.dumps(
        {
            "table_id": table_id_,
            "pool": table.pool,
            "seats": table.seats,
            "bots": table.bots,
            "seeks": [json.loads(s.to_json()) for s in table.seeks],
        },
        sort_keys=True,
        separators=(",", ":"),
    )


class RedisSeekPool:
    """The waiting seeks of every pool in Redis (see the module doc for keys and rules).

    Args:
        client: the deployment's Redis client (standalone or cluster).
        prefix: the deployment's key prefix.
    """

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix
        self._seen: dict[str, dict[str, Seek]] = {}

    def _key(self, pool: str, name: str) -> str:
        return f"{self._prefix}:{{mm:{pool_id(pool)}}}:{name}"

    def _base_keys(self, pool: str) -> list[str]:
        return [self._key(pool, "waiting"), self._key(pool, "seeks"), self._key(pool, "players")]

    def tables_key(self, pool: str) -> str:
        """The stream of tables placed in ``pool``."""
        return self._key(pool, "tables")

    async def _run(self, name: str, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        text, sha = _SCRIPTS[name]
        try:
            return await self._redis.evalsha(sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self._redis.eval(text, len(keys), *keys, *args)

    async def add(self, seek: Seek) -> SeekStatus:
        """Put ``seek`` in its pool's waiting list (see :class:`SeekStatus` for answers:
        a retried add of a waiting or placed seek says so, and a player waits at most once
        per pool). Raises redis errors on an outage."""
        pool = seek.pool
        await self._redis.hset(f"{self._prefix}:mm:pools", pool_id(pool), pool)
        keys = [*self._base_keys(pool), self._key(pool, f"placed:{seek.seek_id}")]
        status, found = await self._run(
            "add", keys, [seek.seek_id, seek.player, seek.created_ms, seek.to_json()]
        )
        status, found = _text(status), _text(found)
        if status == "placed":
            return SeekStatus(status, seek.seek_id, found)
        return SeekStatus(status, found)

    async def cancel(self, pool: str, seek_id: str, player: str) -> SeekStatus:
        """Withdraw ``player``'s waiting seek ``seek_id`` from ``pool`` at once: answers
        ``cancelled``, ``placed`` (too late: the table id says where) or ``unknown`` (no
        such seek of this player)."""
        keys = [*self._base_keys(pool), self._key(pool, f"placed:{seek_id}")]
        status, table = await self._run("cancel", keys, [seek_id, player])
        return SeekStatus(_text(status), seek_id, _text(table))

    async def place(self, table: Table) -> str | None:
        """Seat ``table`` if every one of its seeks still waits (all removed from the
        waiting list in the same step, and a table entry added to the pool's stream).
        Returns the table id, or None if a seek was gone (cancelled or seated by another
        matcher: propose again)."""
        pool = table.pool
        tid = table_id(table)
        keys = [*self._base_keys(pool), self.tables_key(pool)]
        keys += [self._key(pool, f"placed:{s.seek_id}") for s in table.seeks]
        args: list[str | int] = [tid, PLACED_TTL_S, TABLES_MAXLEN, table_json(table, tid)]
        for s in table.seeks:
            args += [s.seek_id, s.player]
        status, _found = await self._run("place", keys, args)
        return tid if _text(status) == "ok" else None

    async def pool_of(self, pool_id_: str) -> str | None:
        """The pool key whose :func:`pool_id` is ``pool_id_`` (None if no seek was ever
        made in it)."""
        found: Any = await self._redis.hget(f"{self._prefix}:mm:pools", pool_id_)
        return None if found is None else _text(found)

    async def lookup(self, pool: str, seek_id: str) -> tuple[Seek | None, str]:
        """Where the seek ``seek_id`` of ``pool`` stands: (the seek while it waits, else
        None; the table id it was placed at, else ""). Both empty: cancelled, expired
        or never made."""
        stored: Any = await self._redis.hget(self._key(pool, "seeks"), seek_id)
        if stored is not None:
            return Seek.from_json(stored), ""
        placed: Any = await self._redis.get(self._key(pool, f"placed:{seek_id}"))
        return None, "" if placed is None else _text(placed)

    async def pools(self) -> list[str]:
        """Every pool that has had a seek (pool keys)."""
        found: Any = await self._redis.hvals(f"{self._prefix}:mm:pools")
        return sorted(_text(v) for v in found or ())

    async def waiting(self, pool: str) -> list[Seek]:
        """The seeks waiting in ``pool`` now, oldest first. Only seeks this pool object
        has not read before are fetched and decoded (a seek never changes while it
        waits), so a matcher passing often pays for the new seeks, not the whole list."""
        ids: Any = await self._redis.zrange(self._key(pool, "waiting"), 0, -1)
        waiting = [_text(i) for i in ids or ()]
        known = self._seen.setdefault(pool, {})
        new = [i for i in waiting if i not in known]
        if new:
            stored: Any = await self._redis.hmget(self._key(pool, "seeks"), new)
            for seek_id, text in zip(new, stored, strict=True):
                if text is not None:  # placed or cancelled between the two reads
                    known[seek_id] = Seek.from_json(text)
        self._seen[pool] = {i: known[i] for i in waiting if i in known}
        return sorted(self._seen[pool].values(), key=lambda s: (s.created_ms, s.seek_id))

    async def queue_sizes(self) -> tuple[int, int, int | None]:
        """(seeks waiting in every pool, pools with a seek waiting, the creation time in
        epoch ms of the oldest waiting seek or None): the matchmaker's queues as the
        metrics endpoint shows them on scrape: per pool, the size of its players hash
        (one waiting seek per player and pool; HLEN, which the lobby's Redis user may
        run), and the first of its waiting set."""
        pools = await self.pools()
        sizes = await asyncio.gather(
            *(self._redis.hlen(self._key(pool, "players")) for pool in pools)
        )
        busy = [self._key(pool, "waiting") for pool, size in zip(pools, sizes, strict=True) if size]
        firsts: list[Any] = await asyncio.gather(
            *(self._redis.zrange(key, 0, 0, withscores=True) for key in busy)
        )
        oldest = [int(first[0][1]) for first in firsts if first]
        return sum(int(size) for size in sizes), len(busy), min(oldest, default=None)

    async def lease(self, pool: str, holder: str, ttl_ms: int) -> bool:
        """Take or renew the pool's matcher lease for ``holder`` (True if held now).
        Only saves work: placement is safe without it."""
        key = self._key(pool, "lease")
        if await self._redis.set(key, holder, nx=True, px=ttl_ms):
            return True
        current: Any = await self._redis.get(key)
        if current is not None and _text(current) == holder:
            await self._redis.pexpire(key, ttl_ms)
            return True
        return False


def _text(value: Any) -> str:
    """A Redis reply as text (bytes or str)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
