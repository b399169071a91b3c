"""Recovery without a person: republish lost turn requests.

A turn request can go missing although its game waits for a bot: Redis lost the last
writes (a cut AOF, a failover to a lagging replica) after the game's log was rolled back
to a version whose request went with them, or a request was dead-lettered. Nothing else
would ever move such a game again. So, every ``interval_s``, one process of the
deployment (whichever holds a short Redis lease) looks at every running game and, for
each bot seat to act that has no request pending at the game's version, publishes one.

A pass does not read every game ever indexed (the games indexes are never trimmed, so
that work grew with every game played): it reads each shard's entries created from
``RESCAN_MARGIN_MS`` before the newest it has read, and looks again at every game it saw
running. An entry's score is its creating engine's clock, so one can land behind entries
read before; the margin covers engines whose clocks disagree by less than that. A window
never starts later than the margin before this process's own clock (one entry from an
engine whose clock ran a day ahead would otherwise leave everyone else's games behind
the window for that day). A process reads everything on its first pass.

A request can also be in its stream and still lost: the bot read it, played it and
acknowledged it, and then Redis lost that last second (the move, the acknowledgement and
the next request with it). The request is pending again for a consumer that is alive
and has forgotten it; XAUTOCLAIM would hand it out only ``--claim-idle-ms`` (30 s) after
its delivery (issue 30 item 6: games waited 37.6 s). So a request delivered at least
``STUCK_PENDING_MS`` ago, whose game still waits at its version, counts as lost too.

A request published twice does no harm: the bot plays it under the command id
``bot:<game>:<version>:<seat>`` with the expected version, so the second one is stale or
a duplicate. The lease only saves work; it is not needed for correctness.

The lease is an entry in a small stream, added with the explicit id ``<pass number>-1``
(pass number: wall-clock time divided by ``interval_s``): Redis accepts only the first
XADD of an id, so one process per pass wins. It needs no SET, which the bot's Redis user
is not granted (on Redis 6 it could overwrite the snapshots the engine trusts).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import structlog
from redis.exceptions import RedisError, ResponseError

from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.errors import CorruptLog, GameNotFound, UnknownRuleset
from services.engine.domain.game_ids import NOT_A_GAME_PREFIX
from services.engine.domain.reader import GameReader
from services.engine.domain.records import TurnRequest

log = structlog.get_logger(__name__)

DEFAULT_INTERVAL_S = 5.0
_INDEX_PAGE = 1000
"""Game ids read per round trip from a shard's games index."""
STUCK_PENDING_MS = 3_000
"""A turn request delivered to a bot this long ago and not acknowledged, whose game
still waits at its version, is republished (see above). A bot plays a request in
milliseconds; one retrying an outage (up to RETRY_FOR_S) may then see its request played
twice, which the command id makes harmless."""
RESCAN_MARGIN_MS = 60_000
"""How far (ms of creation time) before the newest entry it has read a pass reads a
shard's games index again (see above)."""


def lease_key(keys: RedisKeys) -> str:
    """The Redis key of the reconciler's lease (one per deployment)."""
    return f"{keys.prefix}:{{s0}}:reconciler"


class TurnReconciler:
    """Finds running games waiting for a bot with no turn request pending; publishes one.

    Args:
        client: the Redis client (the bot worker's: it may read the games indexes and the
            turn streams, and add to the turn streams).
        keys: key layout (prefix and shards) of the deployment.
        reader: loads games (a cache that never stays ahead of Redis).
        interval_s: seconds between passes; the lease lasts as long.
        group: the bot workers' consumer group (whose pending requests may be lost).
        stuck_ms: see STUCK_PENDING_MS.
    """

    def __init__(
        self,
        client: RedisClient,
        keys: RedisKeys,
        reader: GameReader,
        interval_s: float = DEFAULT_INTERVAL_S,
        group: str = "bots",
        stuck_ms: int = STUCK_PENDING_MS,
    ) -> None:
        self._redis = client
        self._keys = keys
        self._reader = reader
        self._interval_s = interval_s
        self._group = group
        self._stuck_ms = stuck_ms
        self._owner = secrets.token_hex(8)
        self._read_until: dict[int, float] = {}
        """Per shard: the newest creation time (ms) read from its games index by a pass
        that then looked at every game it read, but no later than this process's clock
        at that pass."""
        self._reading: dict[int, float] = {}
        """The current pass's ``_read_until``, kept only once the pass has looked at every
        game it read (a pass cut short by an outage must not move the window past games
        it never looked at: once newer games are indexed they would be read no more)."""
        self._running: dict[str, None] = {}
        """Games seen not finished (looked at every pass), in order."""
        self._finished: dict[str, None] = {}
        """Games seen finished that a later pass still reads (in its window)."""

    async def _take_lease(self) -> bool:
        """True if this process is the first to claim the current pass (see above)."""
        slot = int(time.time() / self._interval_s) + 1
        try:
            await self._redis.xadd(
                lease_key(self._keys),
                {"owner": self._owner},
                id=f"{slot}-1",
                maxlen=16,
                approximate=False,
            )
        except ResponseError as exc:
            if "equal or smaller" in str(exc):
                return False  # another process has this pass
            raise
        return True

    async def _waiting(self) -> list[TurnRequest]:
        """A turn request for each bot seat that every running game waits for now."""
        read: dict[str, None] = {}  # in order, once each
        self._reading = dict(self._read_until)
        async for page in self._indexed():
            read.update(dict.fromkeys(page))
        # A finished game out of every shard's window now is never read again (the
        # windows only move forward): forgetting it keeps the set to the window's games.
        self._finished = {game_id: None for game_id in read if game_id in self._finished}
        candidates = [g for g in {**self._running, **read} if g not in self._finished]
        wanted: dict[TurnRequest, None] = {}  # in order, once each
        for start in range(0, len(candidates), _INDEX_PAGE):
            page = candidates[start : start + _INDEX_PAGE]
            ended = set(await self._ended_as_cached(page))
            for game_id in page:
                if game_id in ended:
                    self._ended(game_id)
                else:
                    await self._look_at(game_id, wanted)
        self._read_until = self._reading  # every game read was looked at
        return list(wanted)

    def _ended(self, game_id: str) -> None:
        self._running.pop(game_id, None)
        self._finished[game_id] = None

    async def _ended_as_cached(self, game_ids: list[str]) -> list[str]:
        """Those of ``game_ids`` this process holds finished at a head the store still
        has: one pipelined read of their heads, not a load each. (A load is a round trip
        of its own, and every game ends once: it was one per game played, about 0.4 ms.)
        A head the store no longer has (lost writes) leaves the game to a load."""
        ended = [
            snapshot
            for snapshot in map(self._reader.cached, game_ids)
            if snapshot is not None and snapshot.is_terminal()
        ]
        if not ended:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for snapshot in ended:
            pipe.hmget(self._keys.head(snapshot.game_id), ["version", "hash"])
        heads: Any = await pipe.execute()
        return [
            snapshot.game_id
            for snapshot, (version, digest) in zip(ended, heads, strict=True)
            if version == str(snapshot.version) and digest == snapshot.head_hash
        ]

    async def _look_at(self, game_id: str, wanted: dict[TurnRequest, None]) -> None:
        """Load ``game_id``: remember it finished, or running with its bots' requests
        added to ``wanted``. A game that cannot be loaded is logged and left to the next
        pass that reads its entry."""
        try:
            snapshot = await self._reader.load(game_id)
        except (GameNotFound, CorruptLog, UnknownRuleset) as exc:
            log.warning("reconciler_skipped_game", game_id=game_id, error=repr(exc))
            self._running.pop(game_id, None)
            return
        if snapshot.is_terminal():
            self._ended(game_id)
            return
        self._running[game_id] = None
        for seat in snapshot.bot_seats_to_act():
            wanted[TurnRequest(game_id, seat, snapshot.version)] = None

    async def _indexed(self) -> AsyncIterator[list[str]]:
        """The games indexes' entries from each shard's window on (every entry on a
        process's first pass), a page of game ids at a time, shard after shard.

        The pass needs no global order, so it does not page through the merged,
        creation-ordered listing of ``list_games``, which reads a page's worth from
        every shard for each page it returns (16 shards: about 24 index entries read
        per game, every pass; issue 16). Pages go by rank within the range read: entries
        are never removed from an index, so one added meanwhile can only make an entry
        come twice (the requests are deduplicated), never skip one. Every shard's first
        page comes in one pipelined round trip (16 round trips were most of a pass over
        a short window), each with its scores as Redis sends them, a flat list, not
        turned into pairs of floats (that took about twice as long as the ids alone).
        """
        now_ms = time.time() * 1000
        shards = range(self._keys.shards)
        lows = {shard: self._low(shard) for shard in shards}
        pipe = self._redis.pipeline(transaction=False)
        for shard in shards:  # every shard's first page in one round trip
            pipe.execute_command(*self._page_command(shard, lows[shard], 0))
        firsts: list[Any] = await pipe.execute()
        for shard, flat in zip(shards, firsts, strict=True):
            offset = 0
            while True:
                ids, scores = _ids_and_scores(flat)
                if scores:
                    # An entry from an engine whose clock runs ahead must not move the
                    # window past the entries the others index meanwhile.
                    newest = min(float(scores[-1]), now_ms)
                    self._reading[shard] = max(newest, self._reading.get(shard, newest))
                yield [g for g in ids if not g.startswith(NOT_A_GAME_PREFIX)]
                if len(ids) < _INDEX_PAGE:
                    break
                offset += len(ids)
                flat = await self._redis.execute_command(
                    *self._page_command(shard, lows[shard], offset)
                )

    def _low(self, shard: int) -> str:
        """The lowest creation time (ms) a pass reads in ``shard``'s index."""
        read_until = self._read_until.get(shard)
        return "-inf" if read_until is None else repr(read_until - RESCAN_MARGIN_MS)

    def _page_command(self, shard: int, low: str, offset: int) -> tuple[Any, ...]:
        """ZRANGEBYSCORE of one page from ``low`` on, with the scores as Redis sends
        them (a raw command: redis-py's pairs of floats are not built)."""
        return (
            "ZRANGEBYSCORE",
            self._keys.games(shard),
            low,
            "+inf",
            "WITHSCORES",
            "LIMIT",
            offset,
            _INDEX_PAGE,
        )

    async def _pending(self) -> set[TurnRequest]:
        """Every request still in a turn stream (acked ones are deleted, so: not played)
        but those delivered at least ``stuck_ms`` ago and not acknowledged (see above):
        a request counts as pending if any entry of it is not stuck."""
        pending: set[TurnRequest] = set()
        for stream in self._keys.all_turns():
            entries: Any = await self._redis.xrange(stream)
            if not entries:
                continue
            stuck = await self._stuck(stream, len(entries))
            for entry_id, fields in entries:
                if entry_id in stuck:
                    continue
                with contextlib.suppress(KeyError, ValueError):
                    pending.add(TurnRequest.from_fields(fields))
        return pending

    async def _stuck(self, stream: str, count: int) -> set[str]:
        """Ids of ``stream``'s entries delivered at least ``stuck_ms`` ago and not
        acknowledged (none when the group does not exist yet)."""
        try:
            entries: Any = await self._redis.xpending_range(
                stream, self._group, min="-", max="+", count=count, idle=self._stuck_ms
            )
        except ResponseError as exc:
            if "NOGROUP" in str(exc):
                return set()
            raise
        return {str(entry["message_id"]) for entry in entries}

    async def _still_waiting(self, request: TurnRequest) -> bool:
        """True if the game's log still ends at the request's version.

        A bot may play and acknowledge (delete) a request between the game's load and the
        streams' read; without this check that request looked lost and went out again,
        stale (seen at games' starts, when the bot answers at once).
        """
        return await self._reader.store.version(request.game_id) == request.version

    async def run_once(self) -> list[TurnRequest]:
        """One pass (if this process holds the lease); returns the requests republished.

        The games are looked at before the streams are read, so a request published
        meanwhile is seen as pending; a request not pending is published only if its game
        has not moved on since (it was played meanwhile). Raises RedisError/OSError on an
        outage.
        """
        if not await self._take_lease():
            return []
        wanted = await self._waiting()
        if not wanted:
            return []
        pending = await self._pending()
        missing = [
            request
            for request in wanted
            if request not in pending and await self._still_waiting(request)
        ]
        for request in missing:
            fields: dict[Any, Any] = dict(request.to_fields())
            await self._redis.xadd(self._keys.turns_of(request.game_id), fields)
            log.warning(
                "turn_request_republished",
                game_id=request.game_id,
                seat=request.seat,
                version=request.version,
            )
        return missing

    async def run(self, stop: asyncio.Event) -> None:
        """Pass every ``interval_s`` until ``stop``; outages are logged and waited out,
        and so is a bug: one game that breaks a pass must not stop the bot worker (whose
        restart would read every game again and break on it again)."""
        while not stop.is_set():
            try:
                await self.run_once()
            except (RedisError, OSError) as exc:
                log.warning("reconciler_redis_error", error=repr(exc))
            except Exception:
                log.exception("reconciler_pass_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self._interval_s)


def _ids_and_scores(reply: list[Any]) -> tuple[list[str], list[Any]]:
    """A ZRANGEBYSCORE ... WITHSCORES reply as (members, scores): flat ``[m, s, m, s]``
    (RESP2) or pairs ``[[m, s], ...]`` (RESP3)."""
    if reply and isinstance(reply[0], list):
        return [str(m) for m, _ in reply], [score for _, score in reply]
    return [str(m) for m in reply[0::2]], reply[1::2]
