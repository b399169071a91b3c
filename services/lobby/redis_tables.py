"""Lobby tables in Redis, each change applied atomically (compare-and-set).

Keys under the deployment's prefix, with the hash tag ``{lobby}`` (one cluster slot: a
change touches the table and the indexes together):

- ``<prefix>:{lobby}:tables``    hash, table id -> table JSON (``LobbyTable.to_json``)
- ``<prefix>:{lobby}:open``      sorted set, table id -> created ms (the open tables)
- ``<prefix>:{lobby}:starting``  stream of started tables (``table`` = table JSON),
  capped near STARTING_MAXLEN, read by the table opener that creates their games
- ``<prefix>:{lobby}:games``     hash, game id -> the table that opened it
- ``<prefix>:{lobby}:gone``      sorted set, table id -> ms it stopped being open (the
  started and closed tables kept for lookups, trimmed by :meth:`forget_before`)

A change reads the table, decides with services.lobby.tables (pure), and writes the new
JSON only if the stored JSON is still what it decided on; another gateway's change in
between makes it read and decide again. So two players can never take one seat, and a
table starts exactly once, whichever gateways serve them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.errors import Unavailable
from services.lobby.tables import LobbyRefused, LobbyTable, TableStatus

STARTING_MAXLEN = 10_000
"""Entries the starting stream keeps (approximately)."""
FORGET_BATCH = 500
"""Tables dropped per step of :meth:`RedisLobby.forget_before`."""
MAX_ATTEMPTS = 16
"""Compare-and-set rounds before a change gives up (only under a storm of changes)."""

# KEYS: 1 tables, 2 open, 3 starting, 4 gone. ARGV: 1 table id, 2 old JSON ('' for a new
# table), 3 new JSON, 4 new status, 5 created ms, 6 now ms, 7 stream maxlen.
# Returns 'ok' or 'changed'.
_CAS = """
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 'changed' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[4] == 'open' then
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
else
  local was_open = redis.call('ZREM', KEYS[2], ARGV[1]) == 1
  if ARGV[4] == 'started' and (was_open or (ARGV[2] == '' and ARGV[8] == '1')) then
    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], '*', 'table', ARGV[3])
  end
  redis.call('ZADD', KEYS[4], ARGV[6], ARGV[1])
end
return 'ok'
"""
_CAS_SHA = hashlib.sha1(_CAS.encode()).hexdigest()


class TableNotFound(LookupError):
    """No lobby table has this id (reason ``table_not_found``)."""

    rule = "table_not_found"


class RedisLobby:
    """The lobby's tables in Redis (see the module doc).

    Args:
        client: the deployment's Redis client.
        prefix: the deployment's key prefix.
        now_ms: the time in ms since the epoch.
    """

    def __init__(self, client: RedisClient, prefix: str, now_ms: Callable[[], int]) -> None:
        self._redis = client
        self._now_ms = now_ms
        tag = f"{prefix}:{{lobby}}"
        self._keys = [f"{tag}:tables", f"{tag}:open", f"{tag}:starting", f"{tag}:gone"]
        self._games_key = f"{tag}:games"

    @property
    def starting_key(self) -> str:
        """The stream of started tables."""
        return self._keys[2]

    async def _cas(self, old: str, new: LobbyTable, to_stream: bool = False) -> bool:
        args = [
            new.table_id,
            old,
            new.to_json(),
            new.status.value,
            new.created_ms,
            self._now_ms(),
            STARTING_MAXLEN,
            "1" if to_stream else "0",
        ]
        try:
            reply: Any = await self._redis.evalsha(_CAS_SHA, len(self._keys), *self._keys, *args)
        except NoScriptError:
            reply = await self._redis.eval(_CAS, len(self._keys), *self._keys, *args)
        return (reply.decode() if isinstance(reply, bytes) else str(reply)) == "ok"

    async def create(self, table: LobbyTable) -> LobbyTable:
        """Store the new open ``table``; a retry of the same table returns it. Raises
        LobbyRefused ``table_id_taken`` if another table has its id."""
        if await self._cas("", table):
            return table
        stored = await self.get(table.table_id)
        if stored.host != table.host or stored.created_ms != table.created_ms:
            raise LobbyRefused("table_id_taken", "this table id names another table")
        return stored

    async def record_started(self, table: LobbyTable) -> LobbyTable:
        """Store ``table``, started elsewhere (a table the matchmaker placed), so that
        GetTable and the opener's record find it like a lobby table; it is written on no
        stream. A table already stored under its id is returned as stored (a redelivered
        placement)."""
        if await self._cas("", table):
            return table
        return await self.get(table.table_id)

    async def create_started(self, table: LobbyTable) -> LobbyTable:
        """Store ``table``, already started (a rematch: its seats were agreed elsewhere),
        and put it on the starting stream for the opener, in one step; never listed as
        open. A table already stored under its id is returned as stored (a retry)."""
        if await self._cas("", table, to_stream=True):
            return table
        return await self.get(table.table_id)

    async def record_game(self, game_id: str, table_id: str) -> None:
        """Remember that ``table_id`` opened ``game_id`` (``<prefix>:{lobby}:games``,
        hash, game id -> table id: a rematch finds its table's rated flag)."""
        await self._redis.hset(self._games_key, game_id, table_id)

    async def table_of_game(self, game_id: str) -> LobbyTable | None:
        """The table that opened ``game_id`` (None for a game no table opened)."""
        table_id: Any = await self._redis.hget(self._games_key, game_id)
        if table_id is None:
            return None
        try:
            return await self.get(table_id.decode() if isinstance(table_id, bytes) else table_id)
        except TableNotFound:
            return None

    async def get(self, table_id: str) -> LobbyTable:
        """The table ``table_id``. Raises TableNotFound."""
        text: Any = await self._redis.hget(self._keys[0], table_id)
        if text is None:
            raise TableNotFound(f"unknown table {table_id!r}")
        return LobbyTable.from_json(text)

    async def change(self, table_id: str, decide: Callable[[LobbyTable], LobbyTable]) -> LobbyTable:
        """Apply ``decide`` (a services.lobby.tables decision) to the table atomically and
        return the new table. Raises TableNotFound, the decision's LobbyRefused, or
        Unavailable if other changes kept winning for MAX_ATTEMPTS rounds."""
        for _attempt in range(MAX_ATTEMPTS):
            text: Any = await self._redis.hget(self._keys[0], table_id)
            if text is None:
                raise TableNotFound(f"unknown table {table_id!r}")
            old = text.decode() if isinstance(text, bytes) else str(text)
            new = decide(LobbyTable.from_json(old))
            if new.to_json() == old or await self._cas(old, new):
                return new
        # Contention, not a bug: the client retries (UNAVAILABLE with a retry delay).
        raise Unavailable("redis", 0.1, f"table {table_id} kept changing")

    async def list_open(
        self,
        ruleset: str = "",
        rated: bool | None = None,
        with_free_seats: bool = True,
        limit: int = 50,
        after_ms: int = 0,
    ) -> list[LobbyTable]:
        """Open tables, oldest first, created after ``after_ms`` (paging), filtered by
        ruleset ("" any), rated (None any) and free seats; at most ``limit``."""
        found: list[LobbyTable] = []
        start = f"({after_ms}" if after_ms else "-inf"
        offset = 0
        while len(found) < limit:
            ids: Any = await self._redis.zrangebyscore(
                self._keys[1], start, "+inf", start=offset, num=limit * 2
            )
            if not ids:
                break
            offset += len(ids)
            texts: Any = await self._redis.hmget(self._keys[0], list(ids))
            for text in texts:
                if text is None:
                    continue
                table = LobbyTable.from_json(text)
                if (
                    table.status is TableStatus.OPEN
                    and (not ruleset or table.ruleset == ruleset)
                    and (rated is None or table.rated == rated)
                    and (not with_free_seats or table.free_seats > 0)
                ):
                    found.append(table)
                    if len(found) == limit:
                        break
        return found

    async def forget_before(self, before_ms: int, batch: int = FORGET_BATCH) -> int:
        """Drop the started and closed tables that stopped being open before
        ``before_ms`` (ms since the epoch), with their games' entries in
        ``{lobby}:games`` (a rematch of such a game is unrated: its table is gone);
        at most ``batch`` tables per step. Returns how many tables were dropped."""
        dropped = 0
        while True:
            ids: Any = await self._redis.zrangebyscore(
                self._keys[3], "-inf", f"({before_ms}", start=0, num=batch
            )
            if not ids:
                return dropped
            stored: Any = await self._redis.hmget(self._keys[0], ids)
            games = [LobbyTable.from_json(text).game_id for text in stored if text]
            if games := [game for game in games if game]:
                await self._redis.hdel(self._games_key, *games)
            await self._redis.hdel(self._keys[0], *ids)
            await self._redis.zrem(self._keys[3], *ids)
            dropped += len(ids)
