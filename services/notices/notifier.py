"""The notifier: player seats' turns from the engine's appends, posted as ``your_turn``.

The engine's append publishes, in the same atomic script as the events, one
:class:`~services.engine.domain.records.PlayerTurn` per seat bound to a player that the
append made one to act (services.engine.domain.player_turns) on the game's shard's
``player_turns`` stream (``<prefix>:{s<n>}:player_turns``). A game with no seat bound to
a player publishes nothing there, and its appends cost no Redis command more.

Notifiers (one per gateway process) share the consumer group ``notifiers`` over every
shard's stream: each entry goes to one of them, which posts a ``your_turn`` notice to
the player's inbox (services.notices.inbox) and then acknowledges and deletes it. The
post is :meth:`~services.notices.inbox.RedisInbox.post_once` under
``<game>:<version>:<seat>``, so an entry delivered again (its notifier died between the
post and the ack, and another one claimed it after CLAIM_IDLE_MS) posts nothing twice:
each (game, version, seat) reaches the inbox exactly once. Entries a stopped notifier
left unacknowledged are claimed by the others (or by itself when it comes back) every
CLAIM_EVERY_S. An entry that is no PlayerTurn (a newer writer's) is logged and dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import time
from typing import Any

import structlog

from services.engine.adapters.consumer_groups import ensure_groups, read_batches
from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.records import PlayerTurn
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind

log = structlog.get_logger(__name__)

GROUP = "notifiers"
"""The consumer group every notifier of a deployment shares."""
READ_COUNT = 200
"""Entries read per stream per step."""
BLOCK_MS = 1000
"""How long one read blocks (new entries end it at once)."""
CLAIM_IDLE_MS = 30_000
"""An entry read this long ago and not acknowledged is another notifier's to finish."""
CLAIM_EVERY_S = 10.0
"""Seconds between two looks for such entries."""
_RETRY_S = (0.2, 0.5, 1.0, 2.0, 5.0)
"""Backoff after a failed read (Redis unreachable)."""


def your_turn(turn: PlayerTurn, at_ms: int) -> Notice:
    """The ``your_turn`` notice of ``turn`` (docs/players.md): ``game_id``, ``ruleset``,
    ``seat``, ``version`` and, with a clock, ``deadline_ms``."""
    data: dict[str, Any] = {
        "game_id": turn.game_id,
        "ruleset": turn.ruleset,
        "seat": turn.seat,
        "version": turn.version,
    }
    if turn.deadline_ms is not None:
        data["deadline_ms"] = turn.deadline_ms
    return Notice(NoticeKind.YOUR_TURN, data, at_ms)


def consumer_name() -> str:
    """A notifier name unique to this process (host, pid and a random part: two stacks
    of one test process are two consumers)."""
    return f"notifier-{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class Notifier:
    """Posts the player turns of every shard as ``your_turn`` notices (see the module).

    Args:
        client: the Redis login that may read the player-turns streams and write the
            inboxes (the players' login: the director's user in a split deployment).
        keys: the deployment's key layout (prefix and shards).
        inbox: the players' inboxes.
        consumer: this notifier's name in the group.
    """

    def __init__(
        self,
        client: RedisClient,
        keys: RedisKeys,
        inbox: RedisInbox,
        consumer: str | None = None,
    ) -> None:
        self._redis = client
        self._streams = [keys.player_turns(shard) for shard in range(keys.shards)]
        self._inbox = inbox
        self.consumer = consumer or consumer_name()
        self.posted = 0
        """Notices this notifier posted (a redelivery it skipped is not counted)."""

    async def ensure_group(self) -> None:
        """Create the group on every shard's stream (from its start) where it is missing."""
        await ensure_groups(self._redis, self._streams, GROUP)

    def _stream_groups(self) -> list[list[str]]:
        """Streams one XREADGROUP may name together: all, or one per slot on a cluster."""
        return read_batches(self._redis, self._streams)

    async def run(self, stop: asyncio.Event) -> None:
        """Post turns until ``stop`` is set (an outage is waited out, logged)."""
        await self._until_ready(stop)
        readers = [
            asyncio.create_task(self._read_loop(streams, stop)) for streams in self._stream_groups()
        ]
        readers.append(asyncio.create_task(self._claim_loop(stop)))
        log.info("notifier_started", consumer=self.consumer, streams=len(self._streams))
        try:
            await asyncio.gather(*readers)
        finally:
            for task in readers:
                task.cancel()
            log.info("notifier_stopped", consumer=self.consumer, posted=self.posted)

    async def _until_ready(self, stop: asyncio.Event) -> None:
        failures = 0
        while not stop.is_set():
            try:
                await self.ensure_group()
                return
            except Exception as exc:  # an outage at start: wait for Redis
                log.warning("notifier_group_failed", error=type(exc).__name__)
                await _pause(stop, _RETRY_S[min(failures, len(_RETRY_S) - 1)])
                failures += 1

    async def _read_loop(self, streams: list[str], stop: asyncio.Event) -> None:
        failures = 0
        while not stop.is_set():
            try:
                reply: Any = await self._redis.xreadgroup(
                    GROUP,
                    self.consumer,
                    dict.fromkeys(streams, ">"),
                    count=READ_COUNT,
                    block=BLOCK_MS,
                )
                for stream, entries in reply or []:
                    await self.handle(_text(stream), list(entries))
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # an outage: entries wait in the group
                log.warning("notifier_read_failed", error=type(exc).__name__)
                await _pause(stop, _RETRY_S[min(failures, len(_RETRY_S) - 1)])
                failures += 1

    async def _claim_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await _pause(stop, CLAIM_EVERY_S)
            if stop.is_set():
                return
            try:
                await self.claim_stale(CLAIM_IDLE_MS)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # an outage: the next look tries again
                log.warning("notifier_claim_failed", error=type(exc).__name__)

    async def claim_stale(self, min_idle_ms: int) -> int:
        """Finish the entries another notifier read ``min_idle_ms`` ago or more and never
        acknowledged; returns how many."""
        done = 0
        for stream in self._streams:
            reply: Any = await self._redis.xautoclaim(
                stream, GROUP, self.consumer, min_idle_time=min_idle_ms, count=READ_COUNT
            )
            entries = [(i, f) for i, f in reply[1] if f is not None]
            gone = [i for i, f in reply[1] if f is None]
            if gone:  # deleted while pending: nothing left to post
                await self._redis.xack(stream, GROUP, *gone)
            await self.handle(stream, entries)
            done += len(entries)
        return done

    async def handle(self, stream: str, entries: list[Any]) -> None:
        """Post each entry's notice (once per game, version and seat), then acknowledge
        and delete the entries. Raises redis errors (the entries stay pending)."""
        if not entries:
            return
        now_ms = int(time.time() * 1000)
        for entry_id, fields in entries:
            try:
                turn = PlayerTurn.from_fields(fields)
            except (KeyError, ValueError):
                log.warning("player_turn_skipped", entry_id=_text(entry_id))
                continue
            once = f"{turn.game_id}:{turn.version}:{turn.seat}"
            if await self._inbox.post_once(turn.player, your_turn(turn, now_ms), once):
                self.posted += 1
        ids = [_text(entry_id) for entry_id, _ in entries]
        await self._redis.xack(stream, GROUP, *ids)
        await self._redis.xdel(stream, *ids)


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds`` or until ``stop`` is set."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
