"""Through the real gRPC gateway + bot worker + Redis: an all-bot Nim game finishes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import BotSettings, Stack, StoreSettings, all_in_one
from services.engine.domain.game import fold
from services.engine.domain.rulesets import RulesetRegistry


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    async with all_in_one(
        redis_url, store=StoreSettings(key_prefix), registry=registry, default_ruleset="nim"
    ) as s:
        yield s


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)


async def test_all_bot_game_runs_to_completion(
    stack: Stack, stub: Any, registry: RulesetRegistry
) -> None:
    pb = game_service_pb2
    seats = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"bot{i}") for i in range(3)]
    created = await stub.CreateGame(
        pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take": 3}')
    )
    versions = []

    async def follow() -> None:
        async for event in stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id)):
            versions.append(event.event.version)

    await asyncio.wait_for(follow(), timeout=30)
    final = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id))
    assert final.finished and list(final.seats_to_act) == []
    assert versions == list(range(1, final.version + 1))
    assert len(final.result.ranking) == 3

    listed = await stub.ListEvents(pb.ListEventsRequest(game_id=created.game_id))
    assert [e.version for e in listed.events] == versions
    bot_ids = [e.metadata.command_id for e in listed.events if e.type == "StonesTaken"]
    assert all(cid.startswith(f"bot:{created.game_id}:") for cid in bot_ids)

    stored = await stack.store.read(created.game_id)
    rebuilt = fold(created.game_id, stored, registry)
    view = rebuilt.ruleset.view(rebuilt.state, None)
    assert view == json.loads(final.state_json)
    assert rebuilt.version == final.version


async def test_health_is_serving(stack: Stack) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="gameserver.v1.GameService")
        )
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_paced_bots_wait_before_each_move(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """``teoti watch``'s pace: each bot move of the embedded server waits ``bot_pause_s``."""
    pause_s = 0.2
    async with (
        all_in_one(
            redis_url,
            store=StoreSettings(key_prefix),
            bot=BotSettings(pause_s=pause_s),
            registry=registry,
        ) as paced,
        grpc.aio.insecure_channel(f"127.0.0.1:{paced.port}") as channel,
    ):
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        pb = game_service_pb2
        seats = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"bot{i}") for i in range(2)]
        loop = asyncio.get_running_loop()
        start = loop.time()
        created = await stub.CreateGame(
            pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take": 1}')
        )
        moves = 0
        async for reply in stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id)):
            moves += reply.event.type == "StonesTaken"
        assert moves >= 5
        assert loop.time() - start >= moves * pause_s
