"""Matchmaking across gateways (issue 32): two all-in-one stacks on one Redis share the
seeks (state in Redis, not in a process), place every seeker at exactly one table and
open each table's game once; a seek made before a gateway restart is matched after it."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import grpc
import pytest
from teoti_client.proto import game_service_pb2 as gpb
from teoti_client.proto import game_service_pb2_grpc as gpb_grpc
from teoti_client.proto import lobby_service_pb2 as pb
from teoti_client.proto import lobby_service_pb2_grpc as pb_grpc

from services.app import Stack, StoreSettings, all_in_one
from services.engine.domain.rulesets import RulesetRegistry

WAIT_S = 30.0
"""Upper bound for every seek to be placed and opened (never reached when it works)."""


def _as(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Player {credential}"),)


async def _players(stack: Stack, count: int) -> list[tuple[str, str]]:
    assert stack.players is not None
    made = []
    for n in range(count):
        player, _info, credential = await stack.players.register(f"seeker {n}")
        made.append((player.player_id, credential))
    return made


async def _game_of(stub: pb_grpc.LobbyServiceStub, seek_id: str, credential: str) -> str:
    async with asyncio.timeout(WAIT_S):
        while True:
            reply = await stub.GetSeek(pb.GetSeekRequest(seek_id=seek_id), metadata=_as(credential))
            if reply.game_id:
                return str(reply.game_id)
            await asyncio.sleep(0.05)


@pytest.fixture
async def two_gateways(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> AsyncIterator[list[Stack]]:
    async with AsyncExitStack() as exits:
        stacks = [
            await exits.enter_async_context(
                all_in_one(redis_url, store=StoreSettings(key_prefix, shards=4), registry=registry)
            )
            for _ in range(2)
        ]
        yield stacks


async def test_two_gateways_share_seeks_and_seat_every_seeker_once(
    two_gateways: list[Stack],
) -> None:
    players = await _players(two_gateways[0], 24)
    async with AsyncExitStack() as exits:
        stubs = []
        for stack in two_gateways:
            channel = await exits.enter_async_context(
                grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}")
            )
            stubs.append(pb_grpc.LobbyServiceStub(channel))
        # Half seek through each gateway, all at once; tables of 2 to 4.
        sought = await asyncio.gather(
            *(
                stubs[n % 2].Seek(
                    pb.SeekRequest(ruleset="nim", min_seats=2, max_seats=4), metadata=_as(cred)
                )
                for n, (_player, cred) in enumerate(players)
            )
        )
        games = await asyncio.gather(
            *(
                _game_of(stubs[n % 2], reply.seek_id, cred)
                for n, (reply, (_player, cred)) in enumerate(zip(sought, players, strict=True))
            )
        )
        game_stub = gpb_grpc.GameServiceStub(
            await exits.enter_async_context(
                grpc.aio.insecure_channel(f"127.0.0.1:{two_gateways[1].port}")
            )
        )
        listed = await game_stub.ListGames(gpb.ListGamesRequest(page_size=100))
        seated: Counter[str] = Counter()
        for game_id in set(games):
            game = await game_stub.GetGame(gpb.GetGameRequest(game_id=game_id))
            seated.update(s.player for s in game.seats)
    # Every seeker sits at exactly one table, and no other game was opened.
    assert seated == Counter({player: 1 for player, _cred in players})
    assert sorted(g.game_id for g in listed.games) == sorted(set(games))


async def test_a_seek_made_before_a_gateway_restart_is_matched_after_it(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    settings = StoreSettings(key_prefix, shards=4)
    async with all_in_one(redis_url, store=settings, registry=registry) as first:
        (ann_id, ann), (bob_id, bob) = await _players(first, 2)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{first.port}") as channel:
            sought = await pb_grpc.LobbyServiceStub(channel).Seek(
                pb.SeekRequest(ruleset="nim", min_seats=2, max_seats=2), metadata=_as(ann)
            )
    # The gateway is gone; a new one starts on the same Redis.
    async with (
        all_in_one(redis_url, store=settings, registry=registry) as second,
        grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as channel,
    ):
        stub = pb_grpc.LobbyServiceStub(channel)
        waiting = await stub.GetSeek(pb.GetSeekRequest(seek_id=sought.seek_id), metadata=_as(ann))
        assert waiting.status == pb.SEEK_STATUS_WAITING
        bobs = await stub.Seek(
            pb.SeekRequest(ruleset="nim", min_seats=2, max_seats=2), metadata=_as(bob)
        )
        game_id = await _game_of(stub, sought.seek_id, ann)
        assert await _game_of(stub, bobs.seek_id, bob) == game_id
        game = await gpb_grpc.GameServiceStub(channel).GetGame(gpb.GetGameRequest(game_id=game_id))
        assert [s.player for s in game.seats] == [ann_id, bob_id]
