"""Lobby tables in a real Redis (services.lobby.redis_tables): several gateways serve one
lobby; two players never take one seat; a table starts exactly once (one entry for the
opener); open tables are listed and filtered."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.engine.adapters.redis_client import RedisClient
from services.lobby.redis_tables import RedisLobby, TableNotFound
from services.lobby.tables import (
    LobbyRefused,
    LobbyTable,
    TableStatus,
    is_full,
    join,
    leave,
    open_table,
    start,
)

NOW = 1_700_000_000_000


def lobby(redis_client: RedisClient, prefix: str) -> RedisLobby:
    return RedisLobby(redis_client, prefix, lambda: NOW)


async def sit(gateway: RedisLobby, table_id: str, player: str) -> str:
    """Join (and start the table if that filled it); the refusal's rule, or "ok"."""

    def decide(t: LobbyTable) -> LobbyTable:
        seated = join(t, player)
        return start(seated, by=player) if is_full(seated) else seated

    try:
        await gateway.change(table_id, decide)
    except LobbyRefused as refused:
        return refused.rule
    return "ok"


async def test_racing_joins_fill_each_seat_once_and_start_once(
    redis_client: RedisClient, key_prefix: str
) -> None:
    gateways = [lobby(redis_client, key_prefix) for _ in range(3)]
    await gateways[0].create(open_table("t1", "host", "ruleset-a", 4, created_ms=NOW))
    players = [f"player-{n}" for n in range(12)]
    answers = await asyncio.gather(*(sit(gateways[n % 3], "t1", p) for n, p in enumerate(players)))
    assert answers.count("ok") == 3
    assert set(answers) - {"ok"} <= {"table_not_open", "table_full"}
    table = await gateways[1].get("t1")
    assert table.status is TableStatus.STARTED
    assert len(set(table.players)) == 4
    entries = await redis_client.xrange(gateways[0].starting_key)
    assert [json.loads(fields["table"])["table_id"] for _id, fields in entries] == ["t1"]


async def test_open_tables_are_listed_and_filtered(
    redis_client: RedisClient, key_prefix: str
) -> None:
    gateway = lobby(redis_client, key_prefix)
    await gateway.create(open_table("a", "h1", "ruleset-a", 2, created_ms=NOW + 1))
    await gateway.create(open_table("b", "h2", "ruleset-b", 3, rated=True, created_ms=NOW + 2))
    await gateway.create(open_table("c", "h3", "ruleset-b", 2, created_ms=NOW + 3))
    await gateway.change("c", lambda t: join(t, "zed"))  # full but not started: no free seat
    assert [t.table_id for t in await gateway.list_open()] == ["a", "b"]
    assert [t.table_id for t in await gateway.list_open(ruleset="ruleset-b")] == ["b"]
    assert [t.table_id for t in await gateway.list_open(rated=False)] == ["a"]
    assert [t.table_id for t in await gateway.list_open(with_free_seats=False)] == ["a", "b", "c"]
    assert [t.table_id for t in await gateway.list_open(limit=1, after_ms=NOW + 1)] == ["b"]
    await gateway.change("a", lambda t: leave(t, "h1"))
    assert [t.table_id for t in await gateway.list_open()] == ["b"]
    assert (await gateway.get("a")).status is TableStatus.CLOSED
    assert await gateway.forget_before(NOW + 1) == 1
    with pytest.raises(TableNotFound):
        await gateway.get("a")


async def test_a_retried_create_returns_the_table_and_an_id_is_not_reused(
    redis_client: RedisClient, key_prefix: str
) -> None:
    gateway = lobby(redis_client, key_prefix)
    first = open_table("t", "host", "ruleset-a", 2, created_ms=NOW)
    assert await gateway.create(first) == first
    assert await gateway.create(first) == first
    with pytest.raises(LobbyRefused) as refused:
        await gateway.create(open_table("t", "other", "ruleset-a", 2, created_ms=NOW))
    assert refused.value.rule == "table_id_taken"


async def test_a_refused_change_changes_nothing(redis_client: RedisClient, key_prefix: str) -> None:
    gateway = lobby(redis_client, key_prefix)
    await gateway.create(open_table("t", "host", "ruleset-a", 3, created_ms=NOW))
    before = await gateway.get("t")
    with pytest.raises(LobbyRefused):
        await gateway.change("t", lambda t: start(t, by="host"))
    assert await gateway.get("t") == before
    assert await redis_client.xlen(gateway.starting_key) == 0
