"""The lobby's retention in a real Redis (services.lobby.retention): a table that stopped
being open more than the kept time ago is dropped with its game's entry; an open table,
a recent one and every other table's game entry stay; the sweep is idempotent."""

from __future__ import annotations

import dataclasses

import pytest

from services.engine.adapters.redis_client import RedisClient
from services.lobby.redis_tables import RedisLobby, TableNotFound
from services.lobby.retention import LobbySweeper
from services.lobby.tables import TableStatus, join, leave, open_table, start

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
