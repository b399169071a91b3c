"""An outage of Redis or of the engine is UNAVAILABLE with a retry hint, never INTERNAL;
pooled connections recover as soon as Redis is back (issue 12)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import BotSettings, GatewayLimits, StoreSettings, all_in_one
from services.bot.queue import TurnRequestQueue
from services.bot.worker import BotWorker
from services.embedded_redis import free_port
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.bot_credential import BotCredential
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_seats import hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import start_engine_link
from services.engine.transport.remote import RemoteEngineClient
from services.gateway.server import create_server
from services.rpc.errors import error_info, retry_delay_s
from services.rpc.limits import PeerRateLimiter
from tests.faults import RedisProcess
from tests.plugin import registry_with_nim


def _unavailable(error: Any, reason: str) -> None:
    assert error.code() == grpc.StatusCode.UNAVAILABLE, (error.code(), error.details())
    assert error_info(error).reason == reason
    assert retry_delay_s(error) == pytest.approx(1.0)


async def test_redis_down_is_unavailable_and_service_resumes_when_it_returns(
    tmp_path: Path,
) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    pb = game_service_pb2
    try:
        async with all_in_one(
            redis.url,
            store=StoreSettings("outage"),
            limits=GatewayLimits(limiter=PeerRateLimiter(rate=0)),
            registry=registry_with_nim(),
            default_ruleset="nim",
        ) as stack:
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}")
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            seat = pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="ann", token="tok-ann-0123456789abcdefgh")
            created = await stub.CreateGame(
                pb.CreateGameRequest(seats=[seat, pb.Seat(kind=pb.SEAT_KIND_BOT, name="b")])
            )
            await asyncio.sleep(1.2)  # everysec: let the AOF hold the game
            redis.kill9()
            calls = [
                stub.ListGames(pb.ListGamesRequest()),
                stub.CreateGame(pb.CreateGameRequest(seats=[seat, seat])),
                stub.SubmitAction(
                    pb.SubmitActionRequest(
                        game_id="no-such-game-in-cache", seat=0, action_json='{"take": 1}'
                    )
                ),
                stub.VerifyGame(pb.VerifyGameRequest(game_id=created.game_id)),
            ]
            for call in calls:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await call
                _unavailable(info.value, "redis_unavailable")
            redis.start()
            started = time.monotonic()
            while True:
                try:
                    game = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id))
                    break
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.UNAVAILABLE
                    assert time.monotonic() - started < 5, "still failing 5 s after Redis returned"
                    await asyncio.sleep(0.1)
            print(f"first success {time.monotonic() - started:.2f} s after Redis returned")
            assert game.game_id == created.game_id
            await channel.close()
    finally:
        redis.stop()


async def test_engine_down_is_unavailable_at_the_gateway(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = Engine(redis_store, registry)
    seats = [
        SeatSpec(SeatKind.HUMAN, "ann", hash_token("tok-0123456789abcdefghijk")),
        SeatSpec(SeatKind.BOT, "b"),
    ]
    game = (await engine.create_game("nim", seats, {})).game_id
    dead = RemoteEngineClient(f"127.0.0.1:{free_port()}", timeout_s=2)
    server, port = await create_server("127.0.0.1:0", GameReader(redis_store, registry), dead)
    pb = game_service_pb2
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            submit = pb.SubmitActionRequest(
                game_id=game,
                seat=0,
                seat_token="tok-0123456789abcdefghijk",
                action_json='{"take": 1}',
            )
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await stub.SubmitAction(submit)
            _unavailable(info.value, "engine_unavailable")
            human = pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="x")
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await stub.CreateGame(pb.CreateGameRequest(ruleset="nim", seats=[human, human]))
            _unavailable(info.value, "engine_unavailable")
    finally:
        await server.stop(0)
        await dead.close()


async def _stall_after(outage: Any, store: RedisEventStore, game: str) -> float:
    """Seconds from the start of ``outage()`` (an awaitable that ends the outage) until
    ``game`` moves again."""
    version = (await store.head(game))[0]
    started = time.monotonic()
    await outage()
    while True:
        with contextlib.suppress(Exception):
            if (await store.head(game))[0] > version:
                return time.monotonic() - started
        assert time.monotonic() - started < 30, "the game did not move again"
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_a_3_s_engine_outage_stalls_a_bot_game_less_than_5_s(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The bot worker retries the engine at once (backoff to 0.5 s), not after 30 s."""
    credential = BotCredential.generate()
    engine = Engine(redis_store, registry, bot_credential=credential)
    port = free_port()
    server, _ = await start_engine_link(engine, "127.0.0.1", port)
    client = RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=2, bot_key=credential.secret)
    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="stall")
    worker = BotWorker(queue, GameReader(redis_store, registry), client, pause_s=0.3)
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(stop))
    bots = [SeatSpec(SeatKind.BOT, f"b{i}") for i in range(2)]
    game = (await engine.create_game("nim", bots, {"max_take": 1})).game_id
    servers = [server]

    async def outage() -> None:
        await servers[0].stop(0)
        await asyncio.sleep(3.0)
        servers[0], _ = await start_engine_link(engine, "127.0.0.1", port)

    try:
        await asyncio.sleep(1.0)
        stall = await _stall_after(outage, redis_store, game)
    finally:
        stop.set()
        await running
        await client.close()
        await servers[0].stop(0)
    print(f"a 3 s engine outage stalled the bot game {stall:.2f} s")
    assert stall < 5.0


@pytest.mark.slow
async def test_a_3_s_redis_outage_stalls_a_bot_game_less_than_5_s(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    try:
        async with all_in_one(
            redis.url,
            store=StoreSettings("stall"),
            bot=BotSettings(pause_s=0.3),
            registry=registry_with_nim(),
        ) as stack:
            bots = [SeatSpec(SeatKind.BOT, f"b{i}") for i in range(2)]
            created = await stack.engine.create_game("nim", bots, {"max_take": 1})
            await asyncio.sleep(1.5)  # a few moves, and everysec has written them

            async def outage() -> None:
                redis.kill9()
                await asyncio.sleep(3.0)
                redis.start()

            stall = await _stall_after(outage, stack.store, created.game_id)
    finally:
        redis.stop()
    print(f"a 3 s Redis outage stalled the bot game {stall:.2f} s")
    assert stall < 5.0
