"""The tournament director: a Redis consumer group over game-finished notifications.

Like the bot worker over turn requests (services.bot.queue): every director process
joins the group ``directors`` on each shard's ``finished`` stream
(services.engine.adapters.finished), records the finished table of a tournament game
(TableFinished), and lets the :class:`Conductor` open the next round or finish the
tournament. An entry is acked (and deleted) only once handled, so a director killed
mid-way leaves it pending for another (XAUTOCLAIM after ``claim_idle_ms``); handling is
idempotent (tables recorded once, games created by derived command ids, appends at an
expected version), so a redelivery or two directors at once change nothing twice.
A periodic sweep over running tournaments catches the tables a director never heard of
(a notification trimmed by the stream's cap, or published by an engine of an older
release, after its append rather than in it).

Finished games that no tournament owns are handed to ``others`` (a
:class:`FinishedGamesHandler`: the rater of games outside tournaments,
services.ratings.rater) before their entries are acked, in the same consumer group: an
entry is acked and deleted once, so a second group on these streams would lose the
entries this one deletes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any, Protocol

import structlog

from services.engine.adapters.consumer_groups import ensure_groups, read_batches
from services.engine.adapters.finished import GameFinished
from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.errors import Unavailable
from services.engine.transport.status_mapping import outage_of
from services.tournament.aggregate import RUNNING
from services.tournament.conductor import Conductor

log = structlog.get_logger(__name__)

GROUP = "directors"
DIRECTOR_SERVICE = "gameserver.v1.TournamentDirector"
"""Health service name SERVING while a director's read loops make progress."""
SWEEP_S = 30.0
"""Seconds between sweeps over running tournaments."""
READ_COUNT = 64
"""Most entries one read (or claim) takes and one batch handles."""
SETTLE_S = 0.05
"""Pause after a read that took some entries but not READ_COUNT, so that the games
ending meanwhile are handled together (see Director._reader)."""


class FinishedGamesHandler(Protocol):
    """Something to do with finished games no tournament owns (services.ratings.rater)."""

    async def games_finished(self, game_ids: Sequence[str]) -> None:
        """Handle the games; raise on an outage (the entries stay pending)."""
        ...


class GameFinishedQueue:
    """XREADGROUP / XACK+XDEL / XAUTOCLAIM over every shard's ``finished`` stream."""

    def __init__(self, client: RedisClient, keys: RedisKeys, consumer: str) -> None:
        self._redis = client
        self._streams = keys.all_finished()
        self.consumer = consumer

    async def ensure_group(self) -> None:
        """Create the group on each stream (from the start) where missing."""
        await ensure_groups(self._redis, self._streams, GROUP)

    def stream_groups(self) -> list[list[str]]:
        """Streams one XREADGROUP may name: all (standalone) or one each (cluster)."""
        return read_batches(self._redis, self._streams)

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
        """Done with the entry: ack and delete it (see :meth:`ack_all`)."""
        await self.ack_all(stream, [entry_id])

    async def ack_all(self, stream: str, entry_ids: Sequence[str]) -> None:
        """Done with the entries of ``stream``: ack and delete them, all in one pipelined
        round trip (XACK first), whatever their number (issue 16)."""
        if not entry_ids:
            return
        pipe = self._redis.pipeline(transaction=False)
        pipe.xack(stream, GROUP, *entry_ids)
        pipe.xdel(stream, *entry_ids)
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
        settle_s: pause after a read that took fewer than READ_COUNT entries (batches
            the games that end meanwhile; 0: none).
        others: handles the finished games no tournament owns (None: nothing does).
    """

    def __init__(
        self,
        queue: GameFinishedQueue,
        conductor: Conductor,
        claim_idle_ms: int = 10_000,
        sweep_s: float = SWEEP_S,
        block_ms: int = 1000,
        settle_s: float = SETTLE_S,
        others: FinishedGamesHandler | None = None,
    ) -> None:
        self._others = others
        self._queue = queue
        self._settle_s = settle_s
        self._conductor = conductor
        self._claim_idle_ms = claim_idle_ms
        self._sweep_s = sweep_s
        self._block_ms = block_ms
        self._last_progress = time.monotonic()
        self.running = 0
        """Tournaments running at the last sweep (a metric: teoti_tournaments_running)."""
        self.tables_waiting = 0
        """Tables of their current rounds not finished at the last sweep (a metric)."""

    def seconds_since_progress(self) -> float:
        """Seconds since a read loop last finished a read (health: a round ends at least
        every ``block_ms`` while Redis answers, so a large value means it does not, or a
        handler is stuck)."""
        return time.monotonic() - self._last_progress

    async def handle(self, stream: str, entry_id: str, note: GameFinished | None) -> None:
        """Handle one entry, then ack it (see :meth:`handle_all`)."""
        await self.handle_all([(stream, entry_id, note)])

    async def handle_all(self, entries: Sequence[tuple[str, str, GameFinished | None]]) -> None:
        """Handle entries ``(stream, entry id, notification or None)``, then ack them.

        The games' tournaments are looked up in one round trip and the entries acked in
        one per stream, whatever their number (most finished games are no tournament's:
        they cost the director its read, that look-up and the ack, shared by the batch;
        issue 16). A Redis or engine outage leaves them pending (raised as Unavailable;
        handling is idempotent, so those already handled change nothing when redelivered);
        any other failure is logged and the entry acked, so one bad game cannot block the
        stream (the sweep retries its tournament)."""
        notes = [note for _stream, _entry_id, note in entries if note is not None]
        try:
            tournaments = await self._conductor.repo.tournaments_of([n.game_id for n in notes])
        except Exception as exc:
            if outage_of(exc) is not None:
                raise Unavailable("redis", 1.0, str(exc)) from exc
            # As a game that failed: logged and acked (the sweep retries tournaments).
            log.exception("director_lookup_failed", games=len(notes))
            tournaments = (None,) * len(notes)
        for note, tournament_id in zip(notes, tournaments, strict=True):
            if tournament_id is None:
                continue
            try:
                await self._conductor.table_finished(tournament_id, note.game_id)
            except Exception as exc:
                if outage_of(exc) is not None:
                    raise Unavailable("redis", 1.0, str(exc)) from exc
                log.exception("director_entry_failed", game_id=note.game_id)
        await self._hand_on([n.game_id for n, t in zip(notes, tournaments, strict=True) if not t])
        by_stream: dict[str, list[str]] = {}
        for stream, entry_id, _note in entries:
            by_stream.setdefault(stream, []).append(entry_id)
        for stream, entry_ids in by_stream.items():
            await self._queue.ack_all(stream, entry_ids)

    async def _hand_on(self, game_ids: list[str]) -> None:
        """Give ``others`` the games no tournament owns: an outage leaves the entries
        pending (raised as Unavailable); another failure is logged (the entries are
        acked: one bad game cannot block the stream)."""
        if self._others is None or not game_ids:
            return
        try:
            await self._others.games_finished(game_ids)
        except Exception as exc:
            if outage_of(exc) is not None:
                raise Unavailable("redis", 1.0, str(exc)) from exc
            log.exception("director_others_failed", games=len(game_ids))

    async def sweep(self) -> None:
        """One pass over every running tournament (lost notifications, stuck rounds)."""
        repo = self._conductor.repo
        after: tuple[int, str] | None = None
        tournaments = tables = 0
        while True:
            page = await repo.list(after, 200)
            if not page:
                # Counted as the pass loads every state anyway: no extra read for metrics.
                self.running, self.tables_waiting = tournaments, tables
                return
            running = []
            for _ms, tournament_id in page:
                state = await repo.load(tournament_id)
                if state.status == RUNNING:
                    running.append(tournament_id)
                    if (current := state.current) is not None:
                        tables += len(current.pairing.tables) - len(current.results)
            tournaments += len(running)
            await self._conductor.sweep(running)
            after = page[-1]

    async def _reader(self, streams: list[str], stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                entries = await self._queue.read(streams, READ_COUNT, self._block_ms)
                await self.handle_all(entries)
                self._last_progress = time.monotonic()
                if 0 < len(entries) < READ_COUNT:
                    # Games end one at a time: a moment's pause lets the next read take
                    # the ones that end meanwhile as one batch (one look-up and one ack
                    # round trip for all), at the cost of that moment on a tournament.
                    await _sleep(stop, self._settle_s)
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
                await self.handle_all(
                    await self._queue.claim_stale(self._claim_idle_ms, READ_COUNT)
                )
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
