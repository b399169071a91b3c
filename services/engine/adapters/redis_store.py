"""Redis event store: one stream per game, appends through one atomic Lua script."""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import redis.asyncio as aioredis
from redis.client import NEVER_DECODE
from redis.exceptions import NoScriptError, ResponseError

from services.engine.adapters.archive import (
    Archive,
    Entry,
    decode_archive,
    encode_checked,
    revealed_secrets,
)
from services.engine.adapters.finished import STREAM_CAP as FINISHED_STREAM_CAP
from services.engine.adapters.keys import DEFAULT_SHARDS, RedisKeys
from services.engine.adapters.redis_client import (
    POOL_SIZE,
    RedisClient,
    RedisConfig,
    create_redis_client,
)
from services.engine.adapters.script_batches import ScriptBatches
from services.engine.domain.chain import GENESIS_HASH, chained
from services.engine.domain.engine_events import SEED_REVEALED
from services.engine.domain.game_ids import NOT_A_GAME_PREFIX
from services.engine.domain.records import (
    AppendResult,
    CommandKey,
    CommandRecord,
    Deadline,
    EventMetadata,
    GameIndexEntry,
    NewGame,
    PlayerTurn,
    PrivateRecords,
    Publication,
    SecretValue,
    StoredEvent,
    TurnRequest,
)
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.store_errors import ChainMismatch, VersionConflict

PLAYER_TURN_FIELDS = ("game_id", "seat", "version", "player", "ruleset", "deadline_ms")
"""A player turn's fields in the append script's order (PlayerTurn.to_fields)."""
PLAYER_TURNS_MAXLEN = 100_000
"""Entries a shard's player-turns stream keeps (approximately): far more than a
notifier that keeps up ever leaves unread; a notifier down for longer loses the oldest
(a your_turn notice is a hint, the game itself says whose turn it is)."""

# Compare-and-append. Idempotency is checked first: a retried command carries a stale
# expected version and must still get its original result, not a conflict. Then every
# check runs before the first write, because Redis does not roll a script back on error.
# The head key is the source of truth for version and hash; the stream must agree with
# it, so deleting entries (or the head) is refused, not "healed". The stream is checked by
# its length (issue 35): entry ids are 1-1 .. <version>-1 and nothing trims or deletes a
# live game's entries (the archive script deletes the whole stream, and relies on the same
# XLEN == version), so the length is the version. It is cheaper than reading the last
# entry (XREVRANGE copied its fields, payload included, into Lua for one number) and
# stricter: an entry deleted anywhere is refused, not only the last. A stream of the right
# length whose ids run past the version (only a hand-made one) fails the first XADD (an
# id not above the stream's last is an error, which append reports as ChainMismatch),
# still before anything is written.
APPEND_SCRIPT = """
-- KEYS: 1 events, 2 head, 3 commands, 4 secret, 5 games index, 6 turn requests,
--       7 sealed secrets, 8 token bindings, 9 clock deadlines, 10 player turns,
--       11 game-finished notifications
-- ARGV: 1 game_id, 2 expected, 3 prev_hash, 4 command_id, 5 seat, 6 recorded_at,
--       7 created_ms ('' = not in the games index), 8 secret seed, 9 #events,
--       10 #requests, 11 #secrets, 12 #tokens,
--       13 command key (the sender-scoped field of the commands hash; '' = none),
--       14 request hash (stored with the result), 15 the game's clock deadline
--       ('' = leave it, '-' = drop it, else ms), 16 #player turns,
--       then 4 per event (type, schema_version, payload, hash), 3 per request,
--       2 per secret (id, json), 2 per token binding (seat, token hash),
--       6 per player turn (game_id, seat, version, player, ruleset, deadline_ms)
local command_id = ARGV[4]
local command_key = ARGV[13]
if command_key ~= '' then
  local done = redis.call('HGET', KEYS[3], command_key)
  if done then return {'dup', done} end
end
local expected = tonumber(ARGV[2])
local head = redis.call('HMGET', KEYS[2], 'version', 'hash')
local actual = tonumber(head[1]) or 0
if actual ~= expected then return {'conflict', tostring(actual)} end
local head_hash = head[2] or '__GENESIS__'
if ARGV[3] ~= head_hash then return {'chain', 'head hash is ' .. head_hash} end
local stream_length = redis.call('XLEN', KEYS[1])
if stream_length ~= expected then
  return {'chain', 'stream holds ' .. stream_length .. ' entries, head at ' .. expected}
end
local n = tonumber(ARGV[9])
local t = tonumber(ARGV[10])
local ns = tonumber(ARGV[11])
local nt = tonumber(ARGV[12])
local np = tonumber(ARGV[16])
local base = 16
local version = expected
local hash = head_hash
for i = 0, n - 1 do
  version = version + 1
  hash = ARGV[base + 4 + i * 4]
  redis.call('XADD', KEYS[1], string.format('%d-1', version),
    'type', ARGV[base + 1 + i * 4], 'schema_version', ARGV[base + 2 + i * 4],
    'payload', ARGV[base + 3 + i * 4], 'command_id', command_id,
    'seat', ARGV[5], 'recorded_at', ARGV[6], 'hash', hash)
end
redis.call('HSET', KEYS[2], 'version', version, 'hash', hash)
for i = 0, n - 1 do
  -- The game ends in this append (its seed is revealed only then): its notice goes out
  -- with it, so no crash between the two can lose it (directors and the rater read it).
  -- Not for a log that is no game (ARGV[7] ''): a tournament reveals its seed too.
  if ARGV[7] == '' then break end
  if ARGV[base + 1 + i * 4] == 'GAME_ENDED_TYPE' then
    redis.call('XADD', KEYS[11], 'MAXLEN', '~', FINISHED_MAXLEN, '*',
      'game_id', ARGV[1], 'version', tostring(version))
    break
  end
end
local range = string.format('%d-%d', expected + 1, version)
if command_key ~= '' then
  local record = range
  if ARGV[14] ~= '' then record = range .. ':' .. ARGV[14] end
  redis.call('HSET', KEYS[3], command_key, record)
end
if expected == 0 then
  if ARGV[7] ~= '' then redis.call('ZADD', KEYS[5], 'NX', ARGV[7], ARGV[1]) end
  if ARGV[8] ~= '' then redis.call('SET', KEYS[4], ARGV[8]) end
end
base = base + n * 4
for i = 0, t - 1 do
  redis.call('XADD', KEYS[6], '*',
    'game_id', ARGV[base + 1 + i * 3], 'seat', ARGV[base + 2 + i * 3],
    'version', ARGV[base + 3 + i * 3])
end
base = base + t * 3
for i = 0, ns - 1 do
  redis.call('HSET', KEYS[7], ARGV[base + 1 + i * 2], ARGV[base + 2 + i * 2])
end
base = base + ns * 2
for i = 0, nt - 1 do
  redis.call('HSET', KEYS[8], ARGV[base + 1 + i * 2], ARGV[base + 2 + i * 2])
end
base = base + nt * 2
for i = 0, np - 1 do
  local at = base + i * 6
  redis.call('XADD', KEYS[10], 'MAXLEN', '~', PLAYER_TURNS_MAXLEN, '*',
    'game_id', ARGV[at + 1], 'seat', ARGV[at + 2], 'version', ARGV[at + 3],
    'player', ARGV[at + 4], 'ruleset', ARGV[at + 5], 'deadline_ms', ARGV[at + 6])
end
if ARGV[15] == '-' then
  redis.call('ZREM', KEYS[9], ARGV[1])
elseif ARGV[15] ~= '' then
  redis.call('ZADD', KEYS[9], ARGV[15], ARGV[1])
end
return {'ok', range}
"""
APPEND_SCRIPT = (
    APPEND_SCRIPT.replace("__GENESIS__", GENESIS_HASH)
    .replace("PLAYER_TURNS_MAXLEN", str(PLAYER_TURNS_MAXLEN))
    .replace("GAME_ENDED_TYPE", SEED_REVEALED)
    .replace("FINISHED_MAXLEN", str(FINISHED_STREAM_CAP))
)
_STREAM_AHEAD = "equal or smaller than the target stream top item"
"""What Redis says of an XADD whose id is not above the stream's last: in the append
script, a stream of the head's length whose ids run past its version."""
APPEND_SHA = hashlib.sha1(APPEND_SCRIPT.encode()).hexdigest()

# Moves a finished game's stream (and its command ids, inside the blob) into its archive
# blob, only if nothing changed since the blob was built (head at the archived version,
# stream as long), so no append is lost. The sealed secrets go too when the caller found
# the log rebuilds them exactly (ARGV 3 = '1').
ARCHIVE_SCRIPT = """
-- KEYS: 1 events, 2 head, 3 commands, 4 secret, 5 snapshot, 6 archive, 7 sealed
-- ARGV: 1 version archived, 2 blob, 3 '1' to delete the sealed secrets
local version = tonumber(ARGV[1])
local head = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if head ~= version or redis.call('XLEN', KEYS[1]) ~= version then
  return {'changed', tostring(head)}
end
redis.call('SET', KEYS[6], ARGV[2])
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4], KEYS[5])
if ARGV[3] == '1' then redis.call('DEL', KEYS[7]) end
return {'ok', tostring(version)}
"""
ARCHIVE_SHA = hashlib.sha1(ARCHIVE_SCRIPT.encode()).hexdigest()

# A snapshot is cached only for a game still in its stream: an archived game is read from
# its archive, and a key written back after archiving would stay for ever (issue 30 item
# 12), also when a read races the archive step.
SAVE_SNAPSHOT_SCRIPT = """
-- KEYS: 1 snapshot, 2 archive; ARGV: 1 the snapshot
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""
SAVE_SNAPSHOT_SHA = hashlib.sha1(SAVE_SNAPSHOT_SCRIPT.encode()).hexdigest()

_APPEND_KEYS_CACHE = 8192
"""Games whose append-script keys a store remembers (the recently played ones)."""

_INDEX_SLACK = 100
"""Extra index entries read per shard to step over games created in the cursor's ms."""


def _deadline_arg(deadline: Deadline | None) -> str:
    """ARGV 15 of the append script: '' leaves the deadline, '-' drops it, else ms."""
    if deadline is None:
        return ""
    return "-" if deadline.at_ms is None else str(deadline.at_ms)


def _version_of(entry_id: str) -> int:
    return int(entry_id.split("-", 1)[0])


def _rebuilt_from_log(entries: Sequence[Entry], sealed: Mapping[str, str]) -> bool:
    """True if ``entries``' reveals rebuild the ``sealed`` hash exactly (every secret
    with its value, nonce and seats), so the hash can go; False also for a log that
    does not parse (the hash then stays)."""
    try:
        rebuilt = revealed_secrets(entries)
        return rebuilt == {str(k): SecretValue.from_json(v) for k, v in sealed.items()}
    except (ValueError, KeyError, TypeError):
        return False


def _decode(entry_id: str, fields: dict[str, str]) -> StoredEvent:
    return StoredEvent(
        version=_version_of(entry_id),
        type=fields["type"],
        schema_version=int(fields["schema_version"]),
        payload=json.loads(fields["payload"]),
        metadata=EventMetadata(
            command_id=fields["command_id"],
            seat=int(fields["seat"]),
            recorded_at=fields["recorded_at"],
        ),
        hash=fields.get("hash", ""),
    )


def _get_raw(target: Any, key: str) -> Any:
    """GET ``key`` on a client or pipeline, the reply left as bytes: a ``z3`` archive blob
    is binary, and the store's client otherwise decodes every reply as UTF-8 text."""
    return target.execute_command("GET", key, **{NEVER_DECODE: True})


@lru_cache(maxsize=4)
def _decoded(blob: bytes) -> Archive:
    """The archive ``blob`` holds, decoded once for the few reads of one game that follow
    each other (a cold load reads its log and then its secrets from the same blob; a
    ``z3`` decode recomputes every hash). Keyed by the blob's bytes, so a blob that
    changed is decoded afresh; callers only read what it returns."""
    return decode_archive(blob)


@dataclass(frozen=True)
class ArchivedLog:
    """What :meth:`RedisEventStore.archive` moved: the version archived (0: nothing), the
    bytes of the log it read (entry ids, stream fields and command-id fields and values,
    UTF-8; what Redis holds is more, its own overhead not counted) and the blob's bytes."""

    version: int
    logged_bytes: int
    blob_bytes: int


def _logged_bytes(entries: Sequence[Entry], commands: Mapping[str, str]) -> int:
    fields = sum(
        len(entry_id) + sum(len(k) + len(v.encode()) for k, v in f.items())
        for entry_id, f in entries
    )
    return fields + sum(len(k.encode()) + len(v) for k, v in commands.items())


class RedisEventStore:
    """EventStore on Redis Streams (see :mod:`services.engine.adapters.keys` for the layout).

    Construct with a ``redis.asyncio.Redis`` or ``redis.asyncio.cluster.RedisCluster``
    created with ``decode_responses=True``, or with :meth:`from_config` / :meth:`from_url`;
    nothing connects until the first command. Every command, the append script included,
    names keys of one hash tag, so on a cluster each goes to the one node owning the slot.
    """

    def __init__(self, client: RedisClient, keys: RedisKeys | None = None) -> None:
        self._redis = client
        self.keys = keys or RedisKeys()
        # Appends go through a script lane of their own connection, those made while one
        # is in flight in one round trip (script_batches). A cluster's commands split by
        # node and follow redirections: not batched there.
        self._batches = ScriptBatches(client) if isinstance(client, aioredis.Redis) else None
        # KEYS of the append script per game: they never change, and naming them costs a
        # few microseconds per append.
        self._append_keys = lru_cache(maxsize=_APPEND_KEYS_CACHE)(self._compute_append_keys)

    @classmethod
    def from_url(
        cls, url: str, prefix: str = "teoti", shards: int = DEFAULT_SHARDS
    ) -> RedisEventStore:
        """Store on the Redis at ``url`` (e.g. ``redis://127.0.0.1:6379/0``)."""
        return cls.from_config(url, prefix, shards)

    @classmethod
    def from_config(
        cls,
        redis: RedisConfig | str,
        prefix: str = "teoti",
        shards: int = DEFAULT_SHARDS,
        pool_size: int = POOL_SIZE,
    ) -> RedisEventStore:
        """Store on a standalone Redis (config or URL) or a Redis Cluster (config), with
        at most ``pool_size`` connections (see redis_client.POOL_SIZE)."""
        return cls(create_redis_client(redis, pool_size), RedisKeys(prefix, shards))

    def _compute_append_keys(self, game_id: str) -> tuple[str, ...]:
        """The eleven KEYS of the append script for ``game_id``, in the script's order."""
        keys = [
            self.keys.events(game_id),
            self.keys.head(game_id),
            self.keys.commands(game_id),
            self.keys.secret(game_id),
            self.keys.games_of(game_id),
            self.keys.turns_of(game_id),
            self.keys.sealed(game_id),
            self.keys.tokens(game_id),
            self.keys.deadlines_of(game_id),
            self.keys.player_turns_of(game_id),
            self.keys.finished_of(game_id),
        ]
        if game_id.startswith(NOT_A_GAME_PREFIX):
            # A log that is not a game (a tournament's) has no games-index entry, turn
            # requests or clock, so the script touches none of the shard's shared keys:
            # its own events key fills those slots (EVALSHA needs access to every key it
            # names), and the tournament director's Redis user needs no write access to
            # the games' keys (services.engine.adapters.acl).
            keys[4] = keys[5] = keys[8] = keys[9] = keys[10] = keys[0]
        return tuple(keys)

    @property
    def client(self) -> RedisClient:
        """The underlying client (shared with the turn-request consumer)."""
        return self._redis

    @property
    def lane(self) -> ScriptBatches | None:
        """The appends' script lane (None on a cluster), for the engine's other one-off
        commands that may run twice (see ScriptBatches.execute)."""
        return self._batches

    async def _run_script(
        self,
        keys: Sequence[str],
        args: Sequence[str | bytes],
        script: str = APPEND_SCRIPT,
        sha: str = APPEND_SHA,
    ) -> Any:
        try:
            if self._batches is not None and sha == APPEND_SHA:
                return await self._batches.evalsha(sha, len(keys), *keys, *args)
            return await self._redis.evalsha(sha, len(keys), *keys, *args)
        except NoScriptError:
            # First use on this server, or on this cluster node (each node has its own
            # script cache), or after SCRIPT FLUSH: EVAL runs it and caches it there.
            return await self._redis.eval(script, len(keys), *keys, *args)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[DomainEvent],
        metadata: EventMetadata,
        turn_requests: Sequence[Publication] = (),
        prev_hash: str | None = None,
        new_game: NewGame | None = None,
        private: PrivateRecords | None = None,
        command: CommandKey | None = None,
        deadline: Deadline | None = None,
    ) -> AppendResult:
        """See EventStore.append (one EVALSHA: check, XADD events, record, publish, keep
        the secrets and token bindings, set the clock deadline).

        The script may run twice for one call (a retry after a lost reply, see
        script_batches and redis_client.resilience): the second run answers "dup" under
        a command id, or else a conflict; either is reported as this call's own write
        when the log holds its events (the last one's hash chains content, metadata and
        the recorded instant), and a "dup" otherwise as the command's earlier result."""
        if not events:
            raise ValueError("append needs at least one event")
        log_only = game_id.startswith(NOT_A_GAME_PREFIX)
        if log_only and (turn_requests or deadline is not None):
            raise ValueError(f"{game_id!r} is not a game: no turn requests, no clock")
        bots = [r for r in turn_requests if isinstance(r, TurnRequest)]
        players = [r for r in turn_requests if isinstance(r, PlayerTurn)]
        if prev_hash is None:
            prev_hash = GENESIS_HASH if expected_version == 0 else (await self.head(game_id))[1]
        args: list[str] = [
            game_id,
            str(expected_version),
            prev_hash,
            metadata.command_id,
            str(metadata.seat),
            metadata.recorded_at,
            "" if log_only else str(new_game.created_ms) if new_game else "0",
            new_game.secret_seed if new_game else "",
            str(len(events)),
            str(len(bots)),
            str(len(private.secrets) if private else 0),
            str(len(private.token_hashes) if private else 0),
            command.field if command else metadata.command_id,
            command.request_hash if command else "",
            _deadline_arg(deadline),
            str(len(players)),
        ]
        records = chained(expected_version, events, metadata, prev_hash)
        for payload, record in records:
            args += [record.type, str(record.schema_version), payload, record.hash]
        for request in bots:
            args += [request.game_id, str(request.seat), str(request.version)]
        if private is not None:
            for secret_id, secret in private.secrets.items():
                args += [secret_id, secret.to_json()]
            for seat, token_hash in private.token_hashes.items():
                args += [str(seat), token_hash]
        for turn in players:
            fields = turn.to_fields()
            args += [fields[name] for name in PLAYER_TURN_FIELDS]
        try:
            status, value = await self._run_script(self._append_keys(game_id), args)
        except ResponseError as error:
            if _STREAM_AHEAD not in str(error):
                raise
            # The stream's length is the head's version but its ids run past it (entries
            # written by hand): the first XADD refused, nothing written. A log off its
            # head, as the script's own checks report it, not a bug of ours.
            raise ChainMismatch(
                game_id, f"the stream holds ids past version {expected_version}, head at it"
            ) from error
        written = tuple(record for _, record in records)
        landed = status == "conflict" and int(value) >= written[-1].version
        if landed and await self._landed(game_id, written):
            # A retry (the lane's or redis-py's) of a try whose reply was lost after Redis
            # ran it: these very events are in the log, so this call wrote them (with a
            # command id the retry is a "dup", answered as one).
            return AppendResult(written[0].version, written[-1].version, written)
        if status == "conflict":
            raise VersionConflict(game_id, expected_version, int(value))
        if status == "chain":
            raise ChainMismatch(game_id, str(value))
        done = CommandRecord.from_text(value)
        if status == "dup":
            mine = (done.first_version, done.last_version) == (
                written[0].version,
                written[-1].version,
            )
            if mine and await self._landed(game_id, written):
                # The retry of a try that ran (its reply lost): the command's events are
                # these very ones, so this call wrote them; its caller folds them into
                # its cache and sends the game's end notice, as for any write.
                return AppendResult(done.first_version, done.last_version, written)
            return AppendResult(done.first_version, done.last_version, (), done.request_hash)
        return AppendResult(done.first_version, done.last_version, written)

    async def _landed(self, game_id: str, written: Sequence[StoredEvent]) -> bool:
        """True if the log holds ``written``'s last event, hash and all: the hash chains
        every event before it, its content and metadata (the command's recorded time
        included), so only a try of this very append stored it (or one of the same bytes
        decided at the same instant). One read, made only after a conflict."""
        last = written[-1]
        stored = await self.read(game_id, last.version - 1, 1)
        return bool(stored) and stored[0].version == last.version and stored[0].hash == last.hash

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """See EventStore.read; an archived game is read from its archive blob.

        The stream and the archive are asked in one pipelined round trip (only one of
        the two exists), so a live game's read costs no extra round trip.
        """
        pipe = self._redis.pipeline(transaction=False)
        pipe.xrange(
            self.keys.events(game_id),
            min=f"{max(from_version, 0) + 1}-0",
            max="+",
            count=limit if limit > 0 else None,
        )
        _get_raw(pipe, self.keys.archive(game_id))
        entries, blob = await pipe.execute()
        if not entries and blob:
            entries = _decoded(blob).entries[max(from_version, 0) :]
            entries = entries[:limit] if limit > 0 else entries
        return [_decode(entry_id, fields) for entry_id, fields in entries]

    async def read_after_many(
        self, positions: Mapping[str, int], block_ms: int, limit: int = 0
    ) -> dict[str, list[StoredEvent]]:
        """See EventStore.read_after_many: one XREAD BLOCK over every game's stream.

        On a Redis Cluster every game must be in one shard (one hash slot); callers group
        games by :meth:`watch_partition`.
        """
        if not positions:
            return {}
        streams: dict[Any, Any] = {
            self.keys.events(game): f"{version}-1" for game, version in positions.items()
        }
        by_key = {self.keys.events(game): game for game in positions}
        reply: Any = await self._redis.xread(
            streams, block=block_ms if block_ms > 0 else None, count=limit if limit > 0 else None
        )
        found: dict[str, list[StoredEvent]] = {}
        for stream, entries in reply or []:
            found[by_key[str(stream)]] = [_decode(entry_id, fields) for entry_id, fields in entries]
        return found

    def watch_partition(self, game_id: str) -> int:
        """See EventStore.watch_partition: the game's shard (its hash slot on a cluster)."""
        return self.keys.shard_of(game_id)

    async def archive(self, game_id: str) -> ArchivedLog:
        """Move the game's log into its compressed archive blob; returns what moved
        (version 0: nothing to archive, the game is unknown or already archived).

        Only the engine's retention job calls this, and only for a finished game (see
        :mod:`services.engine.adapters.retention`). The blob (entries and command ids, format
        ``z3`` of :mod:`services.engine.adapters.archive`, ``z2`` for a log ``z3`` cannot
        hold exactly) is decoded and compared with what
        was read before the swap, and the swap (one script) is refused when the log moved
        since: raises VersionConflict then, ValueError if the blob does not round-trip.
        The head, token bindings, the games index entry and the archive stay; the
        stream, command ids (now in the blob), secret seed and snapshot go, and so do
        the sealed secrets when the log's reveals rebuild them exactly (a finished game
        opened every one); otherwise they stay.
        """
        pipe = self._redis.pipeline(transaction=False)
        pipe.xrange(self.keys.events(game_id))
        pipe.hgetall(self.keys.commands(game_id))
        pipe.hgetall(self.keys.sealed(game_id))
        entries, commands, sealed = await pipe.execute()
        if not entries:
            return ArchivedLog(0, 0, 0)
        stored = [(str(entry_id), dict(fields)) for entry_id, fields in entries]
        kept = {str(k): str(v) for k, v in (commands or {}).items()}
        try:
            blob = encode_checked(stored, kept)
        except ValueError as exc:
            raise ValueError(f"archive of {game_id}: {exc}") from exc
        version = _version_of(stored[-1][0])
        keys = [
            self.keys.events(game_id),
            self.keys.head(game_id),
            self.keys.commands(game_id),
            self.keys.secret(game_id),
            self.keys.snapshot(game_id),
            self.keys.archive(game_id),
            self.keys.sealed(game_id),
        ]
        drop_sealed = _rebuilt_from_log(stored, sealed or {})
        status, value = await self._run_script(
            keys, [str(version), blob, "1" if drop_sealed else "0"], ARCHIVE_SCRIPT, ARCHIVE_SHA
        )
        if status != "ok":
            raise VersionConflict(game_id, version, int(value))
        return ArchivedLog(version, _logged_bytes(stored, kept), len(blob))

    async def tidy_archived(self, game_id: str) -> int:
        """Delete what an archived game no longer needs and older code left or wrote back:
        its snapshot key, and its sealed secrets when the archived log rebuilds them
        exactly. Returns the number of keys deleted (0 for a game not archived). One
        round trip when there is nothing to delete (every pass asks each archived game);
        the blob is read only to check a sealed key that is still there."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.exists(self.keys.archive(game_id))
        pipe.exists(self.keys.snapshot(game_id))
        pipe.hgetall(self.keys.sealed(game_id))
        archived, snapshot, sealed = await pipe.execute()
        if not archived:
            return 0
        doomed = [self.keys.snapshot(game_id)] if snapshot else []
        if sealed:
            blob: Any = await _get_raw(self._redis, self.keys.archive(game_id))
            if blob and _rebuilt_from_log(_decoded(blob).entries, sealed):
                doomed.append(self.keys.sealed(game_id))
        return int(await self._redis.delete(*doomed)) if doomed else 0

    async def is_archived(self, game_id: str) -> bool:
        """True once :meth:`archive` moved the game out of its stream."""
        return bool(await self._redis.exists(self.keys.archive(game_id)))

    async def read_after(
        self, game_id: str, version: int, block_ms: int, limit: int = 0
    ) -> list[StoredEvent]:
        """See EventStore.read_after (XREAD BLOCK from entry id ``<version>-1``)."""
        if block_ms <= 0:
            return await self.read(game_id, version, limit)
        key = self.keys.events(game_id)
        reply: Any = await self._redis.xread(
            {key: f"{max(version, 0)}-1"}, block=block_ms, count=limit if limit > 0 else None
        )
        events: list[StoredEvent] = []
        for _stream, entries in reply or []:
            events += [_decode(entry_id, fields) for entry_id, fields in entries]
        return events

    async def head(self, game_id: str) -> tuple[int, str]:
        """See EventStore.head."""
        version, digest = await self._redis.hmget(self.keys.head(game_id), ["version", "hash"])
        return (int(version), str(digest)) if version else (0, GENESIS_HASH)

    async def version(self, game_id: str) -> int:
        """See EventStore.version."""
        return (await self.head(game_id))[0]

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        """See EventStore.command_result; an archived game's ids are read from its
        archive (one pipelined round trip asks both: only one of the two exists)."""
        if not command_id:
            return None
        pipe = self._redis.pipeline(transaction=False)
        pipe.hget(self.keys.commands(game_id), command_id)
        _get_raw(pipe, self.keys.archive(game_id))
        value, blob = await pipe.execute()
        if not value and blob:
            value = _decoded(blob).commands.get(command_id)
        return CommandRecord.from_text(str(value)) if value else None

    async def list_games(
        self, after: GameIndexEntry | None = None, limit: int = 0
    ) -> list[GameIndexEntry]:
        """See EventStore.list_games (merges every shard's index)."""
        start = after.created_ms if after else "-inf"
        per_shard = limit + _INDEX_SLACK if limit > 0 else None
        pipe = self._redis.pipeline(transaction=False)
        for shard in range(self.keys.shards):
            pipe.zrangebyscore(
                self.keys.games(shard),
                start,
                "+inf",
                start=0 if per_shard else None,
                num=per_shard,
                withscores=True,
            )
        replies: Any = await pipe.execute()
        merged = heapq.merge(
            *[[GameIndexEntry(int(score), str(game)) for game, score in reply] for reply in replies]
        )
        result = [
            entry
            for entry in merged
            if (after is None or entry > after) and not entry.game_id.startswith(NOT_A_GAME_PREFIX)
        ]
        return result[:limit] if limit > 0 else result

    async def secret_seed(self, game_id: str) -> str | None:
        """See EventStore.secret_seed."""
        value: Any = await self._redis.get(self.keys.secret(game_id))
        return str(value) if value is not None else None

    async def read_private(self, game_id: str) -> PrivateRecords:
        """See EventStore.read_private (HGETALL of the sealed and tokens keys). An
        archived game's secrets are rebuilt from the reveals in its archived log (its
        sealed key went with archiving; one the archive step kept wins)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(self.keys.sealed(game_id))
        pipe.hgetall(self.keys.tokens(game_id))
        _get_raw(pipe, self.keys.archive(game_id))
        sealed, tokens, blob = await pipe.execute()
        secrets = {str(k): SecretValue.from_json(v) for k, v in (sealed or {}).items()}
        if blob:
            secrets = {**revealed_secrets(_decoded(blob).entries), **secrets}
        return PrivateRecords(secrets, {int(k): str(v) for k, v in (tokens or {}).items()})

    async def save_snapshot(self, game_id: str, data: str) -> None:
        """See EventStore.save_snapshot; nothing is saved for an archived game (one
        script checks and writes, so a read racing the archive step writes none)."""
        keys = [self.keys.snapshot(game_id), self.keys.archive(game_id)]
        await self._run_script(keys, [data], SAVE_SNAPSHOT_SCRIPT, SAVE_SNAPSHOT_SHA)

    async def load_snapshot(self, game_id: str) -> str | None:
        """See EventStore.load_snapshot."""
        value: Any = await self._redis.get(self.keys.snapshot(game_id))
        return str(value) if value is not None else None

    async def delete_snapshot(self, game_id: str) -> None:
        """See EventStore.delete_snapshot."""
        await self._redis.delete(self.keys.snapshot(game_id))

    async def close(self) -> None:
        """Close the connection pool and the script lane's connection."""
        if self._batches is not None:
            await self._batches.aclose()
        await self._redis.aclose()
