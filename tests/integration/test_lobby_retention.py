"""The lobby's retention in a real Redis (services.lobby.retention): a table that stopped
being open more than the kept time ago is dropped with its game's entry; an open table,
a recent one and every other table's game entry stay; the sweep is idempotent. A
rematch is dropped a week after its offer lapsed (stored before the lapse index or
after), and the game it was for still gets no second one: an offer comes within a day
of the game's end."""

from __future__ import annotations

import dataclasses
import time
import uuid

import pytest

from services.engine.adapters import RedisEventStore
from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.lobby.errors import LobbyRuleRefused
from services.lobby.redis_rematches import RedisRematches
from services.lobby.redis_tables import RedisLobby, TableNotFound
from services.lobby.rematch import (
    REMATCH_KEEP_MS,
    REMATCH_TTL_MS,
    REMATCH_WINDOW_MS,
    RematchStatus,
    accept,
    decline,
    offer,
)
from services.lobby.retention import LobbySweeper
from services.lobby.service import LobbyService
from services.lobby.tables import TableStatus, join, leave, open_table, start
from services.matchmaking.redis_pool import RedisSeekPool
from services.notices.inbox import RedisInbox
from services.tournament.ratings_book import RatingsBook

DAY_MS = 24 * 3600 * 1000
START = 1_700_000_000_000


class Clock:
    """A settable time in ms since the epoch."""

    def __init__(self) -> None:
        self.ms = START

    def __call__(self) -> int:
        return self.ms


async def started_game(lobby: RedisLobby, table_id: str, game_id: str) -> None:
    """A 2-seat table that filled, started and opened ``game_id``."""
    await lobby.create(open_table(table_id, "host", "ruleset-a", 2, created_ms=START))
    await lobby.change(table_id, lambda t: start(join(t, "guest"), by="guest"))
    await lobby.change(table_id, lambda t: dataclasses.replace(t, game_id=game_id))
    await lobby.record_game(game_id, table_id)


async def test_a_week_old_table_is_forgotten_with_its_game_entry(
    redis_client: RedisClient, key_prefix: str
) -> None:
    clock = Clock()
    lobby = RedisLobby(redis_client, key_prefix, clock)
    sweeper = LobbySweeper(lobby, clock, keep_ms=7 * DAY_MS)
    await started_game(lobby, "old", "game-old")
    await lobby.create(open_table("closed", "host", "ruleset-a", 2, created_ms=START))
    await lobby.change("closed", lambda t: leave(t, "host"))
    clock.ms = START + 6 * DAY_MS
    await started_game(lobby, "recent", "game-recent")
    await lobby.create(open_table("waiting", "host", "ruleset-a", 3, created_ms=clock.ms))

    assert await sweeper.sweep_once() == 0  # nothing is a week old yet
    clock.ms = START + 7 * DAY_MS + 1
    assert await sweeper.sweep_once() == 2
    assert await sweeper.sweep_once() == 0

    for gone in ("old", "closed"):
        with pytest.raises(TableNotFound):
            await lobby.get(gone)
    assert await lobby.table_of_game("game-old") is None
    recent = await lobby.table_of_game("game-recent")
    assert recent is not None and recent.table_id == "recent"
    assert (await lobby.get("waiting")).status is TableStatus.OPEN
    assert [t.table_id for t in await lobby.list_open()] == ["waiting"]


async def test_a_large_backlog_is_dropped_in_batches(
    redis_client: RedisClient, key_prefix: str
) -> None:
    clock = Clock()
    lobby = RedisLobby(redis_client, key_prefix, clock)
    for n in range(25):
        await started_game(lobby, f"t{n}", f"g{n}")
    clock.ms = START + 1
    assert await lobby.forget_before(clock.ms, batch=7) == 25
    assert all([await lobby.table_of_game(f"g{n}") is None for n in range(25)])


async def test_a_rematch_is_forgotten_a_week_after_its_offer_lapsed(
    redis_client: RedisClient, key_prefix: str
) -> None:
    clock = Clock()
    lobby = RedisLobby(redis_client, key_prefix, clock)
    rematches = RedisRematches(redis_client, key_prefix)
    sweeper = LobbySweeper(lobby, clock, rematches=rematches)
    players = ("ann", "bob")
    await rematches.change("lapsed", lambda _: offer("lapsed", "ann", players, START))
    await rematches.change("declined", lambda _: offer("declined", "ann", players, START))
    await rematches.change("declined", lambda r: decline(r, "bob", START + 1))  # type: ignore[arg-type]
    clock.ms = START + DAY_MS
    await rematches.change("later", lambda _: offer("later", "ann", players, clock.ms))
    await rematches.change("later", lambda r: accept(r, "bob", clock.ms + 1))  # type: ignore[arg-type]

    clock.ms = START + REMATCH_TTL_MS + REMATCH_KEEP_MS - 1
    assert await sweeper.sweep_once() == 0
    clock.ms += 2
    assert await sweeper.sweep_once() == 2
    assert await sweeper.sweep_once() == 0
    assert await rematches.get("lapsed") is None and await rematches.get("declined") is None
    later = await rematches.get("later")
    assert later is not None and later.status is RematchStatus.ACCEPTED
    clock.ms = START + DAY_MS + REMATCH_TTL_MS + REMATCH_KEEP_MS + 1
    assert await sweeper.sweep_once() == 1
    assert await rematches.get("later") is None


async def test_rematches_stored_before_the_lapse_index_are_swept_too(
    redis_client: RedisClient, key_prefix: str
) -> None:
    # As an earlier version stored them: in the hash alone.
    key = f"{key_prefix}:{{lobby}}:rematches"
    for n in range(1_200):  # more than one HSCAN page
        made = offer(f"g{n}", "ann", ("ann", "bob"), START + n * 1000)
        await redis_client.hset(key, made.game_id, made.to_json())
    clock = Clock()
    rematches = RedisRematches(redis_client, key_prefix)
    sweeper = LobbySweeper(RedisLobby(redis_client, key_prefix, clock), clock, rematches=rematches)
    clock.ms = START + REMATCH_TTL_MS + REMATCH_KEEP_MS + 600_000  # the first 600 lapsed
    assert await sweeper.sweep_once() == 600
    assert await rematches.get("g599") is None
    assert await rematches.get("g600") is not None
    clock.ms += 600_000
    assert await sweeper.sweep_once() == 600
    assert not await redis_client.exists(key)


def test_a_sweeper_keeps_rematches_at_least_as_long_as_they_may_be_offered(
    redis_client: RedisClient, key_prefix: str
) -> None:
    lobby = RedisLobby(redis_client, key_prefix, Clock())
    rematches = RedisRematches(redis_client, key_prefix)
    with pytest.raises(ValueError, match="offer window"):
        LobbySweeper(lobby, Clock(), rematches=rematches, rematch_keep_ms=REMATCH_WINDOW_MS - 1)


async def _finished_game(store: RedisEventStore, registry: RulesetRegistry) -> str:
    """A finished 2-seat Nim game of the players ann and bob."""
    engine = Engine(store, registry)
    seats = [SeatSpec(SeatKind.HUMAN, name, player=name) for name in ("ann", "bob")]
    game = (await engine.create_game("nim", seats, {}, uuid.uuid4().hex)).game_id
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        action = snapshot.ruleset.legal_actions(snapshot.state, seat)[-1]
        await engine.submit_action(game, seat, action, snapshot.version, uuid.uuid4().hex)
        snapshot = await engine.load(game)
    return game


async def test_a_game_gets_its_rematch_within_a_day_of_its_end_and_no_second_once_swept(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    client, prefix = redis_store.client, redis_store.keys.prefix
    clock = Clock()
    clock.ms = int(time.time() * 1000)  # the games end now, by the engine's clock
    lobby = RedisLobby(client, prefix, clock)
    service = LobbyService(
        lobby,
        RedisSeekPool(client, prefix),
        RatingsBook(client, prefix),
        registry,
        client,
        prefix,
        clock,
        GameReader(redis_store, registry),
        RedisInbox(client, prefix),
    )
    sweeper = LobbySweeper(lobby, clock, rematches=RedisRematches(client, prefix))
    offered, too_late = (
        await _finished_game(redis_store, registry),
        await _finished_game(redis_store, registry),
    )
    ended = clock.ms
    clock.ms = ended + REMATCH_WINDOW_MS - 60_000
    made = await service.offer_rematch("ann", offered)
    assert made.status is RematchStatus.OFFERED

    clock.ms = ended + REMATCH_WINDOW_MS + 60_000
    with pytest.raises(LobbyRuleRefused) as late:
        await service.offer_rematch("bob", too_late)
    assert late.value.rule == "rematch_window_closed" and "24 h" in str(late.value)

    clock.ms = made.expires_ms + REMATCH_KEEP_MS + 1
    assert await sweeper.sweep_once() == 1
    for game in (offered, too_late):
        with pytest.raises(LobbyRuleRefused) as again:
            await service.offer_rematch("ann", game)
        assert again.value.rule == "rematch_window_closed"
