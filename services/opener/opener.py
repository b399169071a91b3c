"""The table opener: every started table gets its game, and its players are told.

A table starts in two ways: a lobby table fills or its host starts it
(services.lobby.redis_tables writes it on ``{lobby}:starting``), or the matcher places
waiting seeks at a table (services.matchmaking.redis_pool writes it on the pool's
``tables`` stream). The opener reads both (services.opener.streams, one consumer group
shared by every gateway) and for each table:

1. keeps it among the lobby's tables (a placed match is recorded there as a started
   table, so GetTable and GetSeek find its game);
2. creates its game through the gateway's EngineClient: each player's seat bound to
   that player (``SeatSpec.player``, named with the player's name), each bot seat a
   bot, the table's ruleset, options and time control, and the table id as the create
   command id, so a redelivered entry opens the same game (the engine derives the game
   id from it) and never a second one;
3. records the game on the table (services.lobby.tables ``opened``);
4. posts to each seated player's inbox (services.notices): ``table_filled`` (a lobby
   table) or ``match_found`` (a placed match), then ``game_started`` with their seat.

A table whose game the engine refuses (options or a time control the ruleset does not
take) is marked ``failed`` with the refusal's rule and its players get ``table_failed``.
An outage (Redis or the engine) leaves the entry pending: it is retried by this or
another gateway. Notices are posted at least once: a gateway that dies after posting
and before acking has them posted again by the next (a client keys them by game id).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import Callable
from typing import Any

import structlog

from services.engine.domain.errors import GameNotFound, InvalidArgument, NotAuthorized
from services.engine.domain.game import SeatSpec
from services.engine.domain.game_seats import SeatKind
from services.engine.domain.ruleset import RuleViolation
from services.engine.domain.timing.time_control import TimeControl
from services.engine.transport.client import EngineClient
from services.engine.transport.status_mapping import outage_of
from services.lobby.redis_tables import RedisLobby
from services.lobby.tables import LobbyTable, TableStatus, failed, opened
from services.matchmaking.redis_pool import RedisSeekPool
from services.matchmaking.seeks import Seek
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind
from services.opener.streams import Entry, OpenerStreams
from services.players.service import PlayerService

log = structlog.get_logger(__name__)

TICK_S = 0.2
"""Seconds between two reads when nothing was waiting."""
READ_COUNT = 32
"""Most entries one read takes from each stream."""
CLAIM_IDLE_MS = 10_000
"""An entry read and not acked this long (its gateway died) is taken over."""
OPEN_CONCURRENCY = 16
"""Tables one opener opens at once. Each open waits on Redis and the engine a dozen
times; opened one after another, a pass over a burst of placed tables (32 per pool, two
dozen pools) took longer than CLAIM_IDLE_MS under load, so the other gateway took over
entries still being opened and their players were told twice, and the last table of a
pass waited for all the others (benchmarks.matchmaking_api_benchmark at 10,000 players:
placed -> match_found p99 21 s)."""


def opener_name() -> str:
    """A consumer name unique per process on this host."""
    return f"opener-{socket.gethostname()}-{os.getpid()}"


def matched_table(text: str) -> LobbyTable:
    """A placed match (a pool's ``tables`` entry, services.matchmaking.redis_pool
    ``table_json``) as a started lobby table: the seekers in seat order (oldest seek
    first, its player the host), bots in the seats after them, no options, the pool's
    ruleset, rated flag and time control, created when its newest seek was made. Raises
    KeyError/ValueError for text that is not a placed table."""
    data: dict[str, Any] = json.loads(text)
    seeks = [Seek.from_json(json.dumps(s)) for s in data["seeks"]]
    if not seeks:
        raise ValueError("a placed table without seeks")
    humans = tuple(s.player for s in seeks)
    bots = int(data["bots"])
    first = seeks[0]
    return LobbyTable(
        table_id=str(data["table_id"]),
        host=first.player,
        ruleset=first.ruleset,
        options="{}",
        seats=humans + ("",) * bots,
        rated=first.rated,
        time_control=first.time_control,
        created_ms=max(s.created_ms for s in seeks),
        status=TableStatus.STARTED,
        bots=tuple(range(len(humans), len(humans) + bots)),
    )


def bot_name(seat: int) -> str:
    """The name of a bot filling ``seat`` (0-based) at a table: ``bot <seat + 1>``."""
    return f"bot {seat + 1}"


class TableOpener:
    """Opens the games of started tables (see the module doc).

    Args:
        streams: the opener's consumer group (services.opener.streams).
        lobby: the lobby's tables.
        pool: the matchmaking pools (for their ``tables`` streams).
        inbox: the players' inboxes.
        players: the player accounts (seat names).
        client: the gateway's EngineClient (creates the games).
        now_ms: the time in ms since the epoch (notices' ``at_ms``).
        claim_idle_ms: see :data:`CLAIM_IDLE_MS`.
    """

    def __init__(
        self,
        streams: OpenerStreams,
        lobby: RedisLobby,
        pool: RedisSeekPool,
        inbox: RedisInbox,
        players: PlayerService,
        client: EngineClient,
        now_ms: Callable[[], int],
        claim_idle_ms: int = CLAIM_IDLE_MS,
    ) -> None:
        self._streams = streams
        self._lobby = lobby
        self._pool = pool
        self._inbox = inbox
        self._players = players
        self._client = client
        self._now_ms = now_ms
        self._claim_idle_ms = claim_idle_ms

    async def stream_keys(self) -> list[str]:
        """Every stream read: the lobby's starting stream and each pool's tables."""
        pools = await self._pool.pools()
        return [self._lobby.starting_key, *(self._pool.tables_key(p) for p in pools)]

    async def pass_once(self, claim: bool = False) -> int:
        """Read the new entries of every stream (and, with ``claim``, take over stale
        ones) and handle them, OPEN_CONCURRENCY at once; returns how many. Raises
        Unavailable-like errors (Redis, engine) with the entry left pending."""
        keys = await self.stream_keys()
        entries = await self._streams.read(keys, READ_COUNT)
        if claim:
            entries += await self._streams.claim_stale(keys, self._claim_idle_ms, READ_COUNT)
        gate = asyncio.Semaphore(OPEN_CONCURRENCY)

        async def one(entry: Entry) -> None:
            async with gate:
                await self.handle(entry)

        # Every entry is tried; one that met an outage stays pending (claimed later), and
        # the first such outage is raised once the others are done.
        results = await asyncio.gather(*(one(e) for e in entries), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return len(entries)

    async def handle(self, entry: Entry) -> None:
        """Open the table of one stream entry, then ack it (see the module doc)."""
        try:
            if entry.stream == self._lobby.starting_key:
                await self.open(LobbyTable.from_json(entry.table), matched=False)
            else:
                await self.open(matched_table(entry.table), matched=True)
        except Exception as exc:
            if outage_of(exc) is not None:
                raise
            log.exception("opener_entry_failed", stream=entry.stream, entry_id=entry.entry_id)
        await self._streams.ack(entry)

    async def open(self, table: LobbyTable, matched: bool) -> LobbyTable:
        """Open ``table``'s game (idempotent); returns the table as recorded."""
        if matched:
            table = await self._lobby.record_started(table)
        else:
            table = await self._lobby.get(table.table_id)
        if table.status is TableStatus.FAILED:
            return table
        try:
            game_id = await self._create(table)
        except (InvalidArgument, RuleViolation, NotAuthorized, GameNotFound) as exc:
            rule = str(getattr(exc, "rule", "") or "game_refused")
            table = await self._lobby.change(table.table_id, lambda t: failed(t, rule))
            log.info("table_failed", table_id=table.table_id, rule=rule)
            await self._tell(table, NoticeKind.TABLE_FAILED, {"reason": rule})
            return table
        table = await self._lobby.change(table.table_id, lambda t: opened(t, game_id))
        await self._lobby.record_game(game_id, table.table_id)
        log.info("table_opened", table_id=table.table_id, game_id=game_id, matched=matched)
        if matched:
            await self._tell(table, NoticeKind.MATCH_FOUND, {"seats": len(table.seats)})
        else:
            await self._tell(table, NoticeKind.TABLE_FILLED, {"game_id": game_id})
        for seat, player in enumerate(table.seats):
            if player:
                data = {"game_id": game_id, "ruleset": table.ruleset, "seat": seat}
                await self._post(
                    player, NoticeKind.GAME_STARTED, data | {"table_id": table.table_id}
                )
        return table

    async def _create(self, table: LobbyTable) -> str:
        seats = []
        for index, player in enumerate(table.seats):
            if index in table.bots or not player:
                seats.append(SeatSpec(SeatKind.BOT, bot_name(index)))
            else:
                name = (await self._players.get(player)).name
                seats.append(SeatSpec(SeatKind.HUMAN, name, player=player))
        time_control = (
            TimeControl.from_json(json.loads(table.time_control)) if table.time_control else None
        )
        result = await self._client.create_game(
            table.ruleset,
            seats,
            json.loads(table.options),
            table.table_id,
            time_control,
            rated=table.rated,
        )
        return result.game_id

    async def _tell(self, table: LobbyTable, kind: NoticeKind, data: dict[str, Any]) -> None:
        base: dict[str, Any] = {"table_id": table.table_id}
        if kind is not NoticeKind.TABLE_FILLED:
            base["ruleset"] = table.ruleset
        for player in table.players:
            await self._post(player, kind, base | data)

    async def _post(self, player: str, kind: NoticeKind, data: dict[str, Any]) -> None:
        await self._inbox.post(player, Notice(kind, data, self._now_ms()))

    async def run(self, stop: asyncio.Event, tick_s: float = TICK_S) -> None:
        """Open tables until ``stop`` is set: a pass whenever the last found entries,
        else every ``tick_s``; stale entries are claimed about every ``claim_idle_ms``.
        An outage is logged and the next pass tries again."""
        loop = asyncio.get_running_loop()
        next_claim = loop.time()
        while not stop.is_set():
            handled = 0
            try:
                claim = loop.time() >= next_claim
                if claim:
                    next_claim = loop.time() + self._claim_idle_ms / 1000
                handled = await self.pass_once(claim)
            except Exception as exc:
                if outage_of(exc) is None:
                    log.exception("opener_pass_failed")
                else:
                    log.warning("opener_unavailable", error=type(exc).__name__)
            if not handled:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), tick_s)
