"""Redis event store: one stream per game, appends through one atomic Lua script."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from services.engine.ruleset import DomainEvent
from services.engine.store.errors import VersionConflict
from services.engine.store.keys import RedisKeys
from services.engine.store.records import (
    CommandRecord,
    EventMetadata,
    StoredEvent,
    TurnRequest,
    canonical_json,
)

TURN_REQUEST_MAXLEN = 100_000
"""Approximate cap of the turn-request stream (old, acked entries are trimmed)."""

# Compare-and-append. Idempotency is checked first: a retried command carries a stale
# expected version and must still get its original result, not a conflict.
# Entry ids are "<version>-1", so Redis itself refuses any out-of-order id.
APPEND_SCRIPT = """
-- KEYS: 1 events stream, 2 commands hash, 3 games index, 4 turn-request stream
-- ARGV: 1 game_id, 2 expected, 3 command_id, 4 seat, 5 recorded_at, 6 created score,
--       7 #events, 8 #turn requests, 9 turn maxlen, then 3 per event, 3 per request
local command_id = ARGV[3]
if command_id ~= '' then
  local done = redis.call('HGET', KEYS[2], command_id)
  if done then return {'dup', done} end
end
local expected = tonumber(ARGV[2])
local actual = 0
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then actual = tonumber(string.match(last[1][1], '^(%d+)-')) end
if actual ~= expected then return {'conflict', tostring(actual)} end
local n = tonumber(ARGV[7])
local t = tonumber(ARGV[8])
local base = 9
local version = expected
for i = 0, n - 1 do
  version = version + 1
  redis.call('XADD', KEYS[1], string.format('%d-1', version),
    'type', ARGV[base + 1 + i * 3], 'schema_version', ARGV[base + 2 + i * 3],
    'payload', ARGV[base + 3 + i * 3], 'command_id', command_id,
    'seat', ARGV[4], 'recorded_at', ARGV[5])
end
local range = string.format('%d-%d', expected + 1, version)
if command_id ~= '' then redis.call('HSET', KEYS[2], command_id, range) end
if expected == 0 then redis.call('ZADD', KEYS[3], 'NX', ARGV[6], ARGV[1]) end
base = base + n * 3
for i = 0, t - 1 do
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[9], '*',
    'game_id', ARGV[base + 1 + i * 3], 'seat', ARGV[base + 2 + i * 3],
    'version', ARGV[base + 3 + i * 3])
end
return {'ok', range}
"""
APPEND_SHA = hashlib.sha1(APPEND_SCRIPT.encode()).hexdigest()


def _version_of(entry_id: str) -> int:
    return int(entry_id.split("-", 1)[0])


def _parse_range(text: str) -> CommandRecord:
    first, last = text.split("-", 1)
    return CommandRecord(int(first), int(last))


def _decode(entry_id: str, fields: dict[str, str]) -> StoredEvent:
    return StoredEvent(
        version=_version_of(entry_id),
        type=fields["type"],
        schema_version=int(fields["schema_version"]),
        payload=json.loads(fields["payload"]),
        metadata=EventMetadata(
            command_id=fields.get("command_id", ""),
            seat=int(fields.get("seat", "-1")),
            recorded_at=fields.get("recorded_at", ""),
        ),
    )


class RedisEventStore:
    """EventStore on Redis streams (see services.engine.store.keys for the layout).

    Construct with a ``redis.asyncio.Redis`` created with ``decode_responses=True``, or
    with :meth:`from_url`; nothing connects until the first command.
    """

    def __init__(self, client: aioredis.Redis, keys: RedisKeys | None = None) -> None:
        self._redis = client
        self.keys = keys or RedisKeys()

    @classmethod
    def from_url(cls, url: str, prefix: str = "teoti") -> RedisEventStore:
        """Store on the Redis at ``url`` (e.g. ``redis://127.0.0.1:6379/0``)."""
        return cls(aioredis.from_url(url, decode_responses=True), RedisKeys(prefix))

    @property
    def client(self) -> aioredis.Redis:
        """The underlying client (shared with the turn-request consumer)."""
        return self._redis

    async def _run_script(self, keys: list[str], args: list[str]) -> Any:
        try:
            return await self._redis.evalsha(APPEND_SHA, len(keys), *keys, *args)
        except NoScriptError:
            # First use on this server (or after SCRIPT FLUSH): EVAL also caches it.
            return await self._redis.eval(APPEND_SCRIPT, len(keys), *keys, *args)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[DomainEvent],
        metadata: EventMetadata,
        turn_requests: Sequence[TurnRequest] = (),
    ) -> int:
        """See EventStore.append (one EVALSHA: check, XADD events, record, publish)."""
        if not events:
            raise ValueError("append needs at least one event")
        created_ms = int(datetime.fromisoformat(metadata.recorded_at).timestamp() * 1000)
        args: list[str] = [
            game_id,
            str(expected_version),
            metadata.command_id,
            str(metadata.seat),
            metadata.recorded_at,
            str(created_ms),
            str(len(events)),
            str(len(turn_requests)),
            str(TURN_REQUEST_MAXLEN),
        ]
        for event in events:
            args += [event.type, str(event.schema_version), canonical_json(dict(event.payload))]
        for request in turn_requests:
            args += [request.game_id, str(request.seat), str(request.version)]
        keys = [
            self.keys.events(game_id),
            self.keys.commands(game_id),
            self.keys.games,
            self.keys.turn_requests,
        ]
        status, value = await self._run_script(keys, args)
        if status == "conflict":
            raise VersionConflict(game_id, expected_version, int(value))
        return _parse_range(value).last_version

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """See EventStore.read."""
        entries: Any = await self._redis.xrange(
            self.keys.events(game_id),
            min=f"{from_version + 1}-0",
            max="+",
            count=limit if limit > 0 else None,
        )
        return [_decode(entry_id, fields) for entry_id, fields in entries]

    async def read_after(self, game_id: str, version: int, block_ms: int) -> list[StoredEvent]:
        """See EventStore.read_after (XREAD BLOCK from entry id ``<version>-1``)."""
        if block_ms <= 0:
            return await self.read(game_id, version)
        key = self.keys.events(game_id)
        reply: Any = await self._redis.xread({key: f"{version}-1"}, block=block_ms)
        events: list[StoredEvent] = []
        for _stream, entries in reply or []:
            events += [_decode(entry_id, fields) for entry_id, fields in entries]
        return events

    async def version(self, game_id: str) -> int:
        """See EventStore.version."""
        last: Any = await self._redis.xrevrange(self.keys.events(game_id), count=1)
        return _version_of(last[0][0]) if last else 0

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        """See EventStore.command_result."""
        if not command_id:
            return None
        value: Any = await self._redis.hget(self.keys.commands(game_id), command_id)
        return _parse_range(value) if value else None

    async def list_games(self) -> list[str]:
        """See EventStore.list_games."""
        games: Any = await self._redis.zrange(self.keys.games, 0, -1)
        return [str(game) for game in games]

    async def close(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()
