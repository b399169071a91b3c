"""Player streams fanned out: one read loop per inbox shard serves every open stream.

A player's stream (WatchPlayer) is a :class:`PlayerSubscription`, a bounded in-memory
buffer, in a :class:`NoticeHub`. The hub runs one loop per inbox shard with any watched
player. Each loop blocks on the shard's *bell* (services.notices.inbox: every post adds
the player's id there in the same script), one ``XREAD BLOCK`` on one key whatever the
number of streams; when it rings, the loop reads the inboxes of the watched players it
named (one pipelined XRANGE each, from where the hub had read them) and copies the
notices to their subscriptions. So a notice costs the hub the same at 10 or 10,000 open
streams (an XREAD over every watched inbox grew with them: issue 32's benchmark). An
idle stream holds no Redis connection: the process holds at most one per watched shard.

:meth:`NoticeHub.follow` gives a client every notice after its cursor and then each new
one, in id order, none twice: it subscribes first, waits until the shard's loop knows
where its bell stands, reads the inbox from the cursor (the backlog), then takes from
the buffer only what comes after the last id it yielded. A notice posted after that
backlog read rings the bell after the loop's position, so the loop reads it; one posted
before is in the backlog. A stream whose client does not take its notices is dropped
once ``buffer`` are waiting (:class:`~services.rpc.limits.WatcherTooSlow`); the client
resumes from its last id.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import Any

import structlog

from services.notices.inbox import RedisInbox, decode
from services.notices.notice import Notice, notice_id_key
from services.rpc.stream_buffer import StreamBuffer, stop_if_cancelled

log = structlog.get_logger(__name__)

STREAM_BUFFER = 256
"""Notices buffered per stream before it is dropped as too slow."""
DEFAULT_BLOCK_MS = 500
"""How long one loop read blocks (a newly watched player joins the read within this;
notices of players already watched arrive at once)."""
READ_BATCH = 100
"""Notices read per inbox per loop step (and per backlog read)."""
BELL_BATCH = 1000
"""Bell entries read per loop step."""
_RETRY_S = (0.2, 0.5, 1.0, 2.0, 5.0)
"""Backoff of a loop whose read failed (Redis unreachable); streams keep waiting."""


class PlayerSubscription(StreamBuffer[Notice]):
    """One open player stream's buffer of notices pushed by the hub (at most ``limit``)."""

    def __init__(self, player: str, limit: int) -> None:
        super().__init__(player, limit)
        self.player = player


class NoticeHub:
    """Fans each watched player's new notices out to their open streams.

    Args:
        inbox: the players' inboxes.
        block_ms: one loop read's block, in milliseconds.
        buffer: notices per stream before it is dropped.
    """

    def __init__(
        self, inbox: RedisInbox, block_ms: int = DEFAULT_BLOCK_MS, buffer: int = STREAM_BUFFER
    ) -> None:
        self._inbox = inbox
        self._block_ms = block_ms
        self._buffer = buffer
        self._subscribers: dict[str, set[PlayerSubscription]] = {}
        self._shards: dict[int, dict[str, str]] = {}
        """Shard -> each watched player -> the id of the last notice read of them."""
        self._loops: dict[int, asyncio.Task[None]] = {}
        self._ready: dict[int, asyncio.Event] = {}
        """Shard -> set once its loop knows where the shard's bell stands."""

    @property
    def streams(self) -> int:
        """Player streams open in this process."""
        return sum(len(subs) for subs in self._subscribers.values())

    @property
    def read_loops(self) -> int:
        """Read loops running (each holds at most one Redis connection)."""
        return sum(1 for task in self._loops.values() if not task.done())

    def subscribe(self, player: str, position: str) -> PlayerSubscription:
        """Start buffering ``player``'s notices after the id ``position`` (the inbox's
        last id when the caller looked; the player may already be read further)."""
        sub = PlayerSubscription(player, self._buffer)
        if player not in self._subscribers:
            self._subscribers[player] = set()
            shard = self._inbox.shard_of(player)
            self._shards.setdefault(shard, {})[player] = position
            if shard not in self._loops:
                ready = self._ready[shard] = asyncio.Event()
                self._loops[shard] = asyncio.create_task(
                    self._loop(shard, ready), name=f"notice-loop-{shard}"
                )
        self._subscribers[player].add(sub)
        return sub

    def unsubscribe(self, sub: PlayerSubscription) -> None:
        """Stop buffering for ``sub``; the player leaves the loop with their last stream."""
        subs = self._subscribers.get(sub.player)
        if subs is None:
            return
        subs.discard(sub)
        if not subs:
            del self._subscribers[sub.player]
            watched = self._shards.get(self._inbox.shard_of(sub.player))
            if watched is not None:
                watched.pop(sub.player, None)

    async def _loop(self, shard: int, ready: asyncio.Event) -> None:
        bell = self._inbox.bell(shard)
        client = self._inbox.client
        position: str | None = None
        failures = 0
        try:
            while True:
                watched = self._shards.get(shard)
                if not watched:
                    return
                try:
                    if position is None:
                        newest: Any = await client.xrevrange(bell, count=1)
                        position = _text(newest[0][0]) if newest else "0-0"
                        ready.set()
                    found: Any = await client.xread(
                        {bell: position}, count=BELL_BATCH, block=self._block_ms
                    )
                    stop_if_cancelled()  # close() must end this loop
                    rung: set[str] = set()
                    for _key, entries in _streams(found):
                        for entry_id, fields in entries:
                            position = _text(entry_id)
                            player = _field(fields, "p")
                            if player in watched:
                                rung.add(player)
                    while rung:  # an inbox with more than READ_BATCH new is read again
                        rung = await self._read_inboxes(watched, rung)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # an outage: log, back off, and read again
                    if not self._shards.get(shard):
                        return
                    delay = _RETRY_S[min(failures, len(_RETRY_S) - 1)]
                    failures += 1
                    log.warning("notice_read_failed", shard=shard, error=type(exc).__name__)
                    await asyncio.sleep(delay)
                    continue
                failures = 0
        finally:
            if self._loops.get(shard) is asyncio.current_task():
                del self._loops[shard]
                self._ready.pop(shard, None)
            if not self._shards.get(shard):
                self._shards.pop(shard, None)

    async def _read_inboxes(self, watched: dict[str, str], players: set[str]) -> set[str]:
        """Read each of ``players``' inboxes from where it was read (one pipeline: one
        round trip; the inboxes share the shard's slot) and deliver; returns the players
        whose inbox may hold more."""
        order = [p for p in players if p in watched]
        pipe = self._inbox.client.pipeline(transaction=False)
        for player in order:
            after = watched[player]
            low = f"({after}" if after not in ("", "0") else "-"
            pipe.xrange(self._inbox.key(player), min=low, count=READ_BATCH)
        replies: list[Any] = await pipe.execute()
        more = set()
        for player, entries in zip(order, replies, strict=True):
            if entries and player in watched:
                # Past every entry read, also one this version could not decode.
                watched[player] = _text(entries[-1][0])
                self._deliver(player, decode(entries))
                if len(entries) == READ_BATCH:
                    more.add(player)
        return more

    def _deliver(self, player: str, notices: list[Notice]) -> None:
        for sub in list(self._subscribers.get(player, ())):
            if notices and not sub.offer(notices):
                log.warning("player_stream_dropped", player=player, buffer=self._buffer)
                self.unsubscribe(sub)

    async def last_id(self, player: str) -> str:
        """The id of ``player``'s newest notice ("0" if none)."""
        newest: Any = await self._inbox.client.xrevrange(self._inbox.key(player), count=1)
        return _text(newest[0][0]) if newest else "0"

    async def follow(self, player: str, after: str = "0") -> AsyncGenerator[Notice, None]:
        """Yield every notice of ``player`` after the id ``after`` ("0": every one the
        inbox keeps), then each new one as it comes, for ever (the caller ends it).
        Raises WatcherTooSlow when the client fell ``buffer`` notices behind.
        Use inside ``contextlib.aclosing`` so the subscription ends with the stream."""
        sub = self.subscribe(player, await self.last_id(player))
        try:
            stop_if_cancelled()  # else a stream whose client left waits for ever
            ready = self._ready.get(self._inbox.shard_of(player))
            if ready is not None:  # the loop's bell position precedes the backlog read
                await ready.wait()
            cursor = after or "0"
            while True:  # the backlog, from the inbox itself
                backlog = await self._inbox.since(player, cursor, READ_BATCH)
                stop_if_cancelled()
                for notice in backlog:
                    yield notice
                    cursor = notice.notice_id
                if len(backlog) < READ_BATCH:
                    break
            while True:
                for notice in await sub.take():
                    if notice_id_key(notice.notice_id) > notice_id_key(cursor):
                        yield notice
                        cursor = notice.notice_id
        finally:
            self.unsubscribe(sub)

    async def close(self) -> None:
        """Stop every read loop."""
        tasks = list(self._loops.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _streams(found: Any) -> list[tuple[str, list[Any]]]:
    """XREAD's reply (the deployment's client speaks RESP2: a list of [key, entries])
    as (key, entries) pairs."""
    return [(_text(key), list(entries)) for key, entries in found or []]


def _field(fields: Any, name: str) -> str:
    """A stream entry's field ``name`` ("" if absent), whether the client decodes or
    not."""
    value = fields.get(name)
    if value is None:
        value = fields.get(name.encode())
    return "" if value is None else _text(value)


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
