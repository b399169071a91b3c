"""A real Teotihuacan game end to end: gRPC gateway, engine, bot worker, Redis Streams.

2 and 4 all-bot seats play to the final score; the stored events fold back to exactly the
projection the gateway serves, and every move went through the bot worker's command path.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import Stack, StoreSettings, all_in_one
from services.engine.domain.game import fold
from services.engine.domain.rulesets import RulesetRegistry


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    async with all_in_one(redis_url, store=StoreSettings(key_prefix), registry=registry) as s:
        yield s


@pytest.mark.parametrize("players", [2, 4])
async def test_all_bot_teotihuacan_game_reaches_the_final_score(
    stack: Stack, registry: RulesetRegistry, players: int
) -> None:
    pb = game_service_pb2
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
        seats = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"bot{i}") for i in range(players)]
        created = await stub.CreateGame(
            pb.CreateGameRequest(ruleset="teotihuacan", seats=seats, options_json="{}")
        )
        types: list[str] = []

        async def follow() -> None:
            # The bots play the whole game at full speed: a watcher that falls 1,024
            # events behind is dropped (watch_too_slow) and, as the API says, watches
            # again from the last version it received. Every event is seen once.
            after = 0
            while True:
                request = pb.WatchGameRequest(game_id=created.game_id, from_version=after)
                try:
                    async for event in stub.WatchGame(request):
                        assert event.event.version == after + 1
                        types.append(event.event.type)
                        after = event.event.version
                    return
                except grpc.aio.AioRpcError as error:
                    if "watch_too_slow" not in (error.details() or ""):
                        raise

        await asyncio.wait_for(follow(), timeout=120)
        final = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id))
        listed = await stub.ListEvents(pb.ListEventsRequest(game_id=created.game_id))

    assert final.finished
    assert types.count("EclipseScored") == 3
    assert types[-3:] == ["GameEnded", "AgendaUpdated", "SeedRevealed"]
    assert sorted(final.result.ranking) == list(range(players))
    moves = [e for e in listed.events if e.type == "WorkerMoved"]
    assert moves and all(e.metadata.command_id.startswith(f"bot:{created.game_id}:") for e in moves)

    rebuilt = fold(created.game_id, await stack.store.read(created.game_id), registry)
    assert rebuilt.ruleset.is_terminal(rebuilt.state)
    assert rebuilt.ruleset.view(rebuilt.state, None) == json.loads(final.state_json)
    assert list(rebuilt.ruleset.result(rebuilt.state).scores) == list(final.result.scores)
