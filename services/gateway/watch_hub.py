"""WatchGame fan-out: a few read loops per gateway process serve every watcher.

Before this, each WatchGame stream held a pooled Redis connection in ``XREAD BLOCK``, so
100 idle watchers took the pool and starved every other call (issue 12). Now a watcher
is a :class:`Subscription` (a bounded in-memory buffer) in a :class:`WatchHub`; the hub
runs one read loop per store partition (a Redis shard, i.e. one hash slot on a cluster)
with any watched game, and each loop issues one ``XREAD BLOCK`` over all that
partition's watched games and copies what it reads to their subscribers. An idle
watcher holds no connection: the process holds at most one per watched shard
(``--shards``, default 16), whatever the number of watchers.

A watcher that does not take its events (a slow or stalled client) is dropped once its
buffer would exceed ``buffer`` events: :meth:`Subscription.take` raises
:class:`~services.rpc.limits.WatcherTooSlow` (RESOURCE_EXHAUSTED, reason
``watch_too_slow``) and the loop never waits for it, so one slow watcher delays no one.
The client can watch again from the last version it received.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

import structlog

from services.engine.domain.game import GameSnapshot
from services.engine.domain.reader import GameReader
from services.engine.domain.records import StoredEvent
from services.engine.domain.store_protocol import EventStore
from services.rpc.stream_buffer import StreamBuffer, stop_if_cancelled

log = structlog.get_logger(__name__)

WATCH_BUFFER = 1024
"""Events buffered per watcher before it is dropped as too slow (a whole game of the
shipped games is a few hundred events, so only a stalled client reaches it)."""
WATCH_BATCH = 64
"""Events read per game per read-loop step (and per catch-up read)."""
DEFAULT_BLOCK_MS = 500
"""How long one loop read blocks. Events of games already followed arrive at once; a
game newly followed (no other watcher in this process) joins the loop's read within this."""
_RETRY_S = (0.2, 0.5, 1.0, 2.0, 5.0)
"""Backoff of a loop whose read failed (Redis unreachable); watchers keep waiting."""


class Subscription(StreamBuffer[StoredEvent]):
    """One watcher's buffer of events pushed by the hub (at most ``limit`` events)."""

    def __init__(self, game_id: str, limit: int) -> None:
        super().__init__(game_id, limit)
        self.game_id = game_id


@dataclass(eq=False)
class _Followed:
    """A game some watcher of this process follows: how far the loop has read it."""

    version: int
    subscribers: set[Subscription] = field(default_factory=set)


class WatchHub:
    """Fans each watched game's new events out to all its watchers (see module doc).

    Args:
        store: where the loops read (``read_after_many`` per ``watch_partition``).
        block_ms: one loop read's block, in milliseconds.
        buffer: events per watcher before it is dropped.
        batch: events read per game per step.
    """

    def __init__(
        self,
        store: EventStore,
        block_ms: int = DEFAULT_BLOCK_MS,
        buffer: int = WATCH_BUFFER,
        batch: int = WATCH_BATCH,
    ) -> None:
        self._store = store
        self._block_ms = block_ms
        self._buffer = buffer
        self._batch = batch
        self._games: dict[str, _Followed] = {}
        self._partitions: dict[int, set[str]] = {}
        self._loops: dict[int, asyncio.Task[None]] = {}

    @property
    def watchers(self) -> int:
        """Subscriptions open in this process."""
        return sum(len(f.subscribers) for f in self._games.values())

    @property
    def read_loops(self) -> int:
        """Read loops running (each holds at most one Redis connection)."""
        return sum(1 for task in self._loops.values() if not task.done())

    def subscribe(self, game_id: str, version: int) -> Subscription:
        """Start buffering ``game_id``'s events after ``version`` (the watcher's own
        position; the game may already be followed further, see :meth:`follow`)."""
        sub = Subscription(game_id, self._buffer)
        followed = self._games.get(game_id)
        if followed is None:
            followed = self._games[game_id] = _Followed(version)
            partition = self._store.watch_partition(game_id)
            self._partitions.setdefault(partition, set()).add(game_id)
            if partition not in self._loops:
                self._loops[partition] = asyncio.create_task(
                    self._loop(partition), name=f"watch-loop-{partition}"
                )
        followed.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Stop buffering for ``sub``; the game leaves its loop with its last watcher."""
        followed = self._games.get(sub.game_id)
        if followed is None:
            return
        followed.subscribers.discard(sub)
        if not followed.subscribers:
            del self._games[sub.game_id]
            partition = self._store.watch_partition(sub.game_id)
            games = self._partitions.get(partition)
            if games is not None:
                games.discard(sub.game_id)

    async def _loop(self, partition: int) -> None:
        failures = 0
        try:
            while True:
                games = self._partitions.get(partition)
                if not games:
                    return
                positions = {game: self._games[game].version for game in games}
                try:
                    found = await self._store.read_after_many(
                        positions, self._block_ms, self._batch
                    )
                    stop_if_cancelled()  # close() must end this loop
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # an outage: log, back off, and read again
                    if not self._partitions.get(partition):
                        return
                    delay = _RETRY_S[min(failures, len(_RETRY_S) - 1)]
                    failures += 1
                    log.warning("watch_read_failed", partition=partition, error=repr(exc))
                    await asyncio.sleep(delay)
                    continue
                failures = 0
                self._deliver(found)
        finally:
            if self._loops.get(partition) is asyncio.current_task():
                del self._loops[partition]
            if not self._partitions.get(partition):
                self._partitions.pop(partition, None)

    def _deliver(self, found: dict[str, list[StoredEvent]]) -> None:
        for game_id, events in found.items():
            followed = self._games.get(game_id)
            if followed is None:
                continue  # its last watcher left during the read
            events = [event for event in events if event.version > followed.version]
            if not events:
                continue
            followed.version = events[-1].version
            for sub in list(followed.subscribers):
                if not sub.offer(events):
                    log.warning("watcher_dropped", game_id=game_id, buffer=self._buffer)
                    self.unsubscribe(sub)

    async def follow(
        self,
        reader: GameReader,
        game_id: str,
        from_version: int = 0,
        snapshot: GameSnapshot | None = None,
    ) -> AsyncGenerator[StoredEvent, None]:
        """Yield every event of ``game_id`` after ``from_version`` as it comes, until the
        game is terminal and every event was yielded (same contract as
        :meth:`GameReader.watch`, but waiting costs no Redis connection): the events of
        :meth:`follow_batches`, one by one. Raises GameNotFound, WatcherTooSlow.
        Use inside ``contextlib.aclosing`` so the subscription ends with the stream.
        """
        batches = self.follow_batches(reader, game_id, from_version, snapshot)
        async with contextlib.aclosing(batches):
            async for batch in batches:
                for event in batch:
                    yield event

    async def follow_batches(
        self,
        reader: GameReader,
        game_id: str,
        from_version: int = 0,
        snapshot: GameSnapshot | None = None,
    ) -> AsyncGenerator[list[StoredEvent], None]:
        """Yield every event of ``game_id`` after ``from_version`` as it comes, in
        batches (contiguous, never empty: what one read brought), until the game is
        terminal and every event was yielded.

        Catch-up (events already in the log, or any the hub read before this watcher
        joined) is read from the store directly, WATCH_BATCH at a time; after that,
        events come from the hub's buffer. ``snapshot``: the game as the caller just
        loaded it (saves a read). Raises GameNotFound, WatcherTooSlow.
        Use inside ``contextlib.aclosing`` so the subscription ends with the stream.
        """
        if snapshot is None:
            snapshot = await reader.load(game_id)
        version = max(from_version, 0)
        # The hub only has to bring what comes after the log as loaded now.
        sub = self.subscribe(game_id, snapshot.version)
        try:
            while True:
                # After each read of the store: else a watcher whose client left as it
                # completed waits on the buffer for ever.
                stop_if_cancelled()
                if snapshot.is_terminal() and version >= snapshot.version:
                    return
                gap = False
                if version < snapshot.version:
                    caught_up = await reader.store.read(game_id, version, self._batch)
                    if not caught_up:
                        return  # the log is shorter than its snapshot: nothing to wait for
                    version = caught_up[-1].version
                    yield caught_up
                else:
                    batch: list[StoredEvent] = []
                    for event in await sub.take():
                        if event.version == version + 1:
                            batch.append(event)
                            version = event.version
                        elif event.version > version + 1:
                            gap = True  # read before this watcher joined: from the store
                            break
                    if batch:
                        yield batch
                if gap:
                    snapshot = await reader.load(game_id)
                elif version >= snapshot.version:
                    # Usually another watcher of this process has loaded it already.
                    cached = reader.cached(game_id)
                    fresh = cached is not None and cached.version >= version
                    snapshot = cached if fresh and cached else await reader.load(game_id)
        finally:
            self.unsubscribe(sub)

    async def close(self) -> None:
        """Stop every read loop (watchers still open then wait for nothing more)."""
        tasks = list(self._loops.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
