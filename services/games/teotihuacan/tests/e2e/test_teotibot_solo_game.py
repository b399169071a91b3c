"""Solo games end to end (RULES.md §8): a random human proxy submits seat 0's actions
through the gRPC gateway while the bot worker plays Teotibot (seat 1) from Redis Streams;
the stored events fold back to the served projection."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import GatewayLimits, Stack, StoreSettings, all_in_one
from services.engine.domain.game import fold
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.limits import CreationQuota, PeerRateLimiter

SLOW_SOLO_GAMES = int(os.environ.get("TEOTI_SOLO_E2E_GAMES", "300"))
TOKEN = "solo-human-secret-0123456789"


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    # One connection plays hundreds of games as fast as it can: more than the default
    # per-connection rate a person's client gets (tests/integration test that limit).
    # It also creates more games than the default creation quota per caller allows.
    unlimited = PeerRateLimiter(rate=1e6, burst=1e6)
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix),
        limits=GatewayLimits(limiter=unlimited, quota=CreationQuota(per_hour=0)),
        registry=registry,
    ) as s:
        yield s


async def _play_solo_game(stub: Any, pb: Any, seed: int) -> tuple[Any, Any]:
    rng = random.Random(seed)
    seats = [
        pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="human", token=TOKEN),
        pb.Seat(kind=pb.SEAT_KIND_BOT, name="Teotibot"),
    ]
    options = json.dumps({"solo": True, "first_game": seed % 2 == 0})
    created = await stub.CreateGame(
        pb.CreateGameRequest(ruleset="teotihuacan", seats=seats, options_json=options)
    )
    game_id = created.game_id
    while True:
        legal = await stub.ListLegalActions(
            pb.ListLegalActionsRequest(game_id=game_id, seat=0, seat_token=TOKEN)
        )
        if legal.actions:
            action = rng.choice(list(legal.actions)).action_json
            try:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        game_id=game_id,
                        seat=0,
                        seat_token=TOKEN,
                        action_json=action,
                        expected_version=legal.version,
                    )
                )
            except grpc.aio.AioRpcError as error:  # the bot moved meanwhile: look again
                if error.code() not in (
                    grpc.StatusCode.ABORTED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                ):
                    raise
            continue
        game = await stub.GetGame(pb.GetGameRequest(game_id=game_id))
        if game.finished:
            listed = await stub.ListEvents(pb.ListEventsRequest(game_id=game_id))
            return game, listed
        await asyncio.sleep(0.005)  # Teotibot's turn: the bot worker plays it


async def _play(stack: Stack, registry: RulesetRegistry, games: int) -> None:
    pb = game_service_pb2
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
        for seed in range(games):
            game, listed = await asyncio.wait_for(_play_solo_game(stub, pb, seed), timeout=120)
            assert game.finished and sorted(game.result.ranking) == [0, 1]
            human, bot = game.result.scores
            assert (game.result.ranking[0] == 0) == (human > bot)
            turns = [e for e in listed.events if e.type == "TeotibotDiceRolled"]
            assert turns and all(
                e.metadata.seat == 1 and e.metadata.command_id.startswith("bot:") for e in turns
            )
            rebuilt = fold(game.game_id, await stack.store.read(game.game_id), registry)
            assert rebuilt.ruleset.view(rebuilt.state, None) == json.loads(game.state_json)


async def test_solo_games_against_teotibot_through_the_service(
    stack: Stack, registry: RulesetRegistry
) -> None:
    await _play(stack, registry, 3)


@pytest.mark.slow
async def test_many_solo_games_through_the_service(stack: Stack, registry: RulesetRegistry) -> None:
    await _play(stack, registry, SLOW_SOLO_GAMES)
