"""``TeotiClient``'s LobbyService methods against a real server (issue 32): typed tables
and seeks; leaving, closing, starting early with bots, cancelling; refusals decoded to
the client's error classes with the rule."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator

import pytest
from teoti_client import (
    InvalidArgument,
    LobbySeat,
    LobbyTableInfo,
    NotAuthorized,
    RuleViolation,
    TeotiClient,
    TimeControl,
)

from tests.nim import NimRuleset

WAIT_S = 20.0
"""Upper bound for the table opener to act (never reached when it works)."""


@pytest.fixture
async def client(redis_url: str, key_prefix: str) -> AsyncIterator[TeotiClient]:
    from services.app import StoreSettings, all_in_one
    from services.engine.domain.rulesets import default_registry

    registry = default_registry()
    registry.register("nim", NimRuleset)
    async with (
        all_in_one(redis_url, store=StoreSettings(key_prefix), registry=registry) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}") as connected,
    ):
        yield connected


async def _opened(
    client: TeotiClient, credential: str, table_id: str
) -> LobbyTableInfo[TimeControl]:
    """The table once its game is open."""
    async with asyncio.timeout(WAIT_S):
        while True:
            table = await client.get_table(credential, table_id)
            if table.game_id:
                return table
            await asyncio.sleep(0.05)


async def test_tables_through_the_client(client: TeotiClient) -> None:
    ann = (await client.register_player("Ann")).credential
    bob_player = await client.register_player("Bob")
    bob = bob_player.credential
    clock = TimeControl(move_deadline_ms=60_000, timeout_policy="forfeit")
    table = await client.open_table(ann, "nim", 3, {"max_take": 2}, time_control=clock)
    assert (table.status, table.free_seats, table.options) == ("open", 2, {"max_take": 2})
    assert table.time_control == clock
    joined = await client.join_table(bob, table.table_id, seat=2)
    assert joined.seats[2] == LobbySeat(2, bob_player.player.player_id, False)
    listed, token = await client.list_tables(bob, ruleset="nim")
    assert [t.table_id for t in listed] == [table.table_id] and token == ""
    left = await client.leave_table(bob, table.table_id)
    assert left.free_seats == 2
    with pytest.raises(RuleViolation) as refused:
        await client.start_table(ann, table.table_id)
    assert refused.value.reason == "table_not_full"
    started = await client.start_table(ann, table.table_id, fill_with_bots=True)
    assert started.status == "started" and [s.bot for s in started.seats] == [False, True, True]
    async with asyncio.timeout(WAIT_S):
        while True:
            opened = await client.get_table(ann, table.table_id)
            if opened.game_id:
                break
            await asyncio.sleep(0.05)
    game = await client.get_game(opened.game_id)
    assert [s.kind for s in game.seats] == ["human", "bot", "bot"]
    # A host leaving an open table closes it.
    other = await client.open_table(bob, "nim", 2)
    assert (await client.leave_table(bob, other.table_id)).status == "closed"


async def test_seeks_through_the_client(client: TeotiClient) -> None:
    ann = (await client.register_player("Ann")).credential
    ticket = await client.seek(ann, "nim", 2, 3, window=(10.0, 1.0, math.inf))
    assert ticket.status == "waiting" and ticket.rating == 0.0
    # Another seek of the same pool is refused while the first waits (one per pool);
    # a retry of one command id answers the same seek.
    with pytest.raises(RuleViolation) as twice:
        await client.seek(ann, "nim", 2, 3, command_id="retry-1")
    assert twice.value.reason == "already_seeking"
    assert (await client.get_seek(ann, ticket.seek_id)).status == "waiting"
    assert await client.cancel_seek(ann, ticket.seek_id) == ("cancelled", "")
    first = await client.seek(ann, "nim", 2, 2, command_id="retry-2")
    assert (await client.seek(ann, "nim", 2, 2, command_id="retry-2")).seek_id == first.seek_id
    ticket = first
    assert await client.cancel_seek(ann, ticket.seek_id) == ("cancelled", "")


async def test_refusals_arrive_typed(client: TeotiClient) -> None:
    ann = (await client.register_player("Ann")).credential
    with pytest.raises(InvalidArgument) as bad:
        await client.open_table(ann, "nim", 9)
    assert bad.value.reason == "seat_count"
    with pytest.raises(NotAuthorized) as nobody:
        await client.list_tables("tpc_" + "z" * 43)
    assert nobody.value.reason == "player_credential_invalid"


async def test_a_rematch_through_the_client(client: TeotiClient) -> None:
    ann = (await client.register_player("Ann")).credential
    bob = (await client.register_player("Bob")).credential
    table = await client.open_table(ann, "nim", 2, {"max_take": 3})
    await client.join_table(bob, table.table_id)
    table = await _opened(client, ann, table.table_id)
    game = await client.get_game(table.game_id)
    while not game.finished:  # a player credential stands in for the seat token
        seat = game.seats_to_act[0]
        credential = (ann, bob)[seat]
        moves = await client.legal_actions(game.game_id, seat, credential)
        await client.submit_action(game.game_id, seat, credential, moves[0].action)
        game = await client.get_game(game.game_id)
    offered = await client.offer_rematch(bob, game.game_id)
    assert (offered.status, offered.accepted) == ("offered", (offered.offered_by,))
    accepted = await client.accept_rematch(ann, game.game_id)
    assert accepted.status == "accepted" and accepted.table_id == offered.table_id
    with pytest.raises(RuleViolation) as late:
        await client.decline_rematch(ann, game.game_id)
    assert late.value.reason == "rematch_accepted"
    rematch = await _opened(client, ann, accepted.table_id)
    assert rematch.game_id != game.game_id and rematch.options == {"max_take": 3}


async def test_a_player_has_at_most_five_seeks_waiting(client: TeotiClient) -> None:
    ann = (await client.register_player("Ann")).credential
    pools = [TimeControl(move_deadline_ms=60_000 + n, timeout_policy="forfeit") for n in range(6)]
    for n, clock in enumerate(pools[:5]):  # five pools (one seek per pool and player)
        await client.seek(ann, "nim", time_control=clock, command_id=f"seek-{n}")
    with pytest.raises(RuleViolation) as refused:  # new command ids do not get around it
        await client.seek(ann, "nim", time_control=pools[5], command_id="seek-5")
    assert refused.value.reason == "too_many_seeks"
    # A retry of a waiting seek is no new seek; a cancelled one frees a place.
    again = await client.seek(ann, "nim", time_control=pools[0], command_id="seek-0")
    assert again.status == "waiting"
    assert (await client.cancel_seek(ann, again.seek_id))[0] == "cancelled"
    assert (await client.seek(ann, "nim", time_control=pools[5])).status == "waiting"


async def test_a_seekers_rating_comes_from_the_rating_book(
    client: TeotiClient, redis_url: str, key_prefix: str
) -> None:
    from services.engine.adapters.redis_client import create_redis_client
    from services.tournament.ratings_book import RatingsBook, account_identity

    ann_player = await client.register_player("Ann")
    bob = await client.register_player("Bob")
    redis = create_redis_client(redis_url)
    try:
        book = RatingsBook(redis, key_prefix)
        identities = [account_identity(p.player.player_id) for p in (ann_player, bob)]
        await book.record("nim", "g-1", identities, [1, 2])
        rated = await book.rating("nim", identities[0])
        assert rated is not None
        expected = rated.ordinal
    finally:
        await redis.aclose()
    ticket = await client.seek(ann_player.credential, "nim", rated=True)
    assert ticket.rating == pytest.approx(expected) and expected != 0.0


async def test_a_command_id_belongs_to_its_request(client: TeotiClient) -> None:
    ann = (await client.register_player("Ann")).credential
    bob = (await client.register_player("Bob")).credential
    table = await client.open_table(ann, "nim", 2, command_id="t-1")
    assert (await client.open_table(ann, "nim", 2, command_id="t-1")).table_id == table.table_id
    others = [
        client.open_table(ann, "nim", 3, command_id="t-1"),
        client.open_table(ann, "nim", 2, rated=True, command_id="t-1"),
        client.open_table(ann, "nim", 2, {"max_take": 2}, command_id="t-1"),
    ]
    for other in others:
        with pytest.raises(RuleViolation) as reused:
            await other
        assert reused.value.reason == "command_id_reused"
    # Another player's same command id is their own.
    assert (await client.open_table(bob, "nim", 2, command_id="t-1")).table_id != table.table_id
    seek = await client.seek(ann, "nim", 2, 3, command_id="s-1")
    assert (await client.seek(ann, "nim", 2, 3, command_id="s-1")).seek_id == seek.seek_id
    for other in (
        client.seek(ann, "nim", 2, 2, command_id="s-1"),
        client.seek(ann, "nim", 2, 3, rated=True, command_id="s-1"),
    ):
        with pytest.raises(RuleViolation) as reused:
            await other
        assert reused.value.reason == "command_id_reused"


async def test_a_registered_players_repr_keeps_its_credential_out(client: TeotiClient) -> None:
    ann = await client.register_player("Ann")
    assert ann.credential.startswith("tpc_") and ann.credential not in repr(ann)
