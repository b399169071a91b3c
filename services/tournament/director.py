"""The tournament director: a Redis consumer group over game-finished notifications.

Like the bot worker over turn requests (services.bot.queue): every director process
joins the group ``directors`` on each shard's ``finished`` stream
(services.engine.store.finished), records the finished table of a tournament game
(TableFinished), and lets the :class:`Conductor` open the next round or finish the
tournament. An entry is acked (and deleted) only once handled, so a director killed
mid-way leaves it pending for another (XAUTOCLAIM after ``claim_idle_ms``); handling is
idempotent (tables recorded once, games created by derived command ids, appends at an
expected version), so a redelivery or two directors at once change nothing twice.
A periodic sweep over running tournaments catches notifications lost before publishing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from services.engine.errors import Unavailable
from services.engine.store.finished import GameFinished
from services.engine.store.keys import RedisKeys
from services.engine.store.redis_client import RedisClient
from services.rpc.errors import outage_of
from services.tournament.aggregate import RUNNING
from services.tournament.conductor import Conductor

log = structlog.get_logger(__name__)

GROUP = "directors"
DIRECTOR_SERVICE = "gameserver.v1.TournamentDirector"
"""Health service name SERVING while a director's read loops make progress."""
SWEEP_S = 30.0
"""Seconds between sweeps over running tournaments."""


class GameFinishedQueue:
    """XREADGROUP / XACK+XDEL / XAUTOCLAIM over every shard's ``finished`` stream."""

    def __init__(self, client: RedisClient, keys: RedisKeys, consumer: str) -> None:
        self._redis = client
        self._streams = keys.all_finished()
        self.consumer = consumer

    async def ensure_group(self) -> None:
        """Create the group on each stream (from the start) where missing."""
        for stream in self._streams:
            try:
                await self._redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def stream_groups(self) -> list[list[str]]:
        """Streams one XREADGROUP may name: all (standalone) or one each (cluster)."""
        if isinstance(self._redis, RedisCluster):
            return [[s] for s in self._streams]
        return [list(self._streams)]

    async def read(
        self, streams: list[str], count: int, block_ms: int
    ) -> list[tuple[str, str, GameFinished | None]]:
        """New entries ``(stream, entry id, notification or None if malformed)``."""
        reply: Any = await self._redis.xreadgroup(
            GROUP, self.consumer, dict.fromkeys(streams, ">"), count=count, block=block_ms
        )
        return [
            (str(stream), str(entry_id), _parse(fields))
            for stream, entries in reply or []
            for entry_id, fields in entries
        ]

    async def claim_stale(
        self, min_idle_ms: int, count: int
    ) -> list[tuple[str, str, GameFinished | None]]:
        """Entries another director read and did not ack within ``min_idle_ms``."""
        claimed = []
        for stream in self._streams:
            reply: Any = await self._redis.xautoclaim(
                stream, GROUP, self.consumer, min_idle_time=min_idle_ms, count=count
            )
            for entry_id, fields in reply[1]:
                claimed.append((stream, str(entry_id), _parse(fields) if fields else None))
        return claimed

    async def ack(self, stream: str, entry_id: str) -> None:
        """Done with the entry: ack and delete it (one pipelined round trip, XACK first;
        one of the three round trips a finished game cost the director, issue 16)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.xack(stream, GROUP, entry_id)
        pipe.xdel(stream, entry_id)
        await pipe.execute()


def _parse(fields: Any) -> GameFinished | None:
    try:
        return GameFinished.from_fields(fields)
    except (KeyError, ValueError, TypeError):
        log.warning("malformed_game_finished", fields=fields)
        return None


class Director:
    """Runs the director loop until ``stop`` (see the module doc).

    Args:
        queue: the notifications.
        conductor: records tables and moves tournaments on.
        claim_idle_ms: pending entries idle this long are taken over.
        sweep_s: seconds between sweeps of running tournaments (<= 0: none).
        block_ms: how long one read waits.
    """

    def __init__(
        self,
        queue: GameFinishedQueue,
        conductor: Conductor,
        claim_idle_ms: int = 10_000,
        sweep_s: float = SWEEP_S,
        block_ms: int = 1000,
    ) -> None:
        self._queue = queue
        self._conductor = conductor
        self._claim_idle_ms = claim_idle_ms
        self._sweep_s = sweep_s
        self._block_ms = block_ms
        self._last_progress = time.monotonic()

    def seconds_since_progress(self) -> float:
        """Seconds since a read loop last finished a read (health: a round ends at least
        every ``block_ms`` while Redis answers, so a large value means it does not, or a
        handler is stuck)."""
        return time.monotonic() - self._last_progress

    async def handle(self, stream: str, entry_id: str, note: GameFinished | None) -> None:
        """Handle one entry, then ack it. A Redis or engine outage leaves it pending
        (raised as Unavailable); any other failure is logged and the entry acked, so
        one bad game cannot block the stream (the sweep retries its tournament)."""
        if note is not None:
            try:
                await self._conductor.game_finished(note.game_id)
            except Exception as exc:
                if outage_of(exc) is not None:
                    raise Unavailable("redis", 1.0, str(exc)) from exc
                log.exception("director_entry_failed", game_id=note.game_id)
        await self._queue.ack(stream, entry_id)

    async def sweep(self) -> None:
        """One pass over every running tournament (lost notifications, stuck rounds)."""
        repo = self._conductor.repo
        after: tuple[int, str] | None = None
        while True:
            page = await repo.list(after, 200)
            if not page:
                return
            running = []
            for _ms, tournament_id in page:
                state = await repo.load(tournament_id)
                if state.status == RUNNING:
                    running.append(tournament_id)
            await self._conductor.sweep(running)
            after = page[-1]

    async def _reader(self, streams: list[str], stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                entries = await self._queue.read(streams, 16, self._block_ms)
                for stream, entry_id, note in entries:
                    await self.handle(stream, entry_id, note)
                self._last_progress = time.monotonic()
            except Exception as exc:
                if outage_of(exc) is None and not isinstance(exc, Unavailable):
                    log.exception("director_read_failed")
                else:
                    log.warning("director_redis_unavailable", error=str(exc))
                await _sleep(stop, 1.0)

    async def _housekeeping(self, stop: asyncio.Event) -> None:
        interval = self._sweep_s if self._sweep_s > 0 else self._claim_idle_ms / 1000
        while not stop.is_set():
            try:
                for stream, entry_id, note in await self._queue.claim_stale(
                    self._claim_idle_ms, 16
                ):
                    await self.handle(stream, entry_id, note)
                if self._sweep_s > 0:
                    await self.sweep()
            except Exception:
                log.exception("director_housekeeping_failed")
            await _sleep(stop, interval)

    async def run(self, stop: asyncio.Event) -> None:
        """Read notifications (one reader per stream group) until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self._queue.ensure_group()
                break
            except Exception as exc:
                log.warning("director_group_unavailable", error=str(exc))
                await _sleep(stop, 1.0)
        log.info("director_running", consumer=self._queue.consumer)
        self._last_progress = time.monotonic()
        tasks = [
            asyncio.create_task(self._reader(streams, stop))
            for streams in self._queue.stream_groups()
        ]
        tasks.append(asyncio.create_task(self._housekeeping(stop)))
        await asyncio.gather(*tasks)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
