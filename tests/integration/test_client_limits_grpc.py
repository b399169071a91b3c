"""Issue 12 over gRPC: fresh connections share their address's budget, and CreateGame
has a quota per caller."""

from __future__ import annotations

from typing import Any

import grpc
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import GatewayLimits, StoreSettings, all_in_one
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.limits import ClientRateLimiter, CreationQuota


async def _code(call: Any) -> str:
    try:
        await call
        return "OK"
    except grpc.aio.AioRpcError as error:
        return str(error.code().name)


async def test_fresh_connections_do_not_bypass_limits(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix),
        limits=GatewayLimits(
            limiter=ClientRateLimiter(rate=0.01, burst=5), quota=CreationQuota(per_hour=1, burst=2)
        ),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        pb = game_service_pb2
        listed, created = [], []
        for _ in range(12):  # a new connection per call
            async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
                stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
                listed.append(await _code(stub.ListGames(pb.ListGamesRequest())))
        assert listed[:5] == ["OK"] * 5 and set(listed[5:]) == {"RESOURCE_EXHAUSTED"}

    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix),
        limits=GatewayLimits(
            limiter=ClientRateLimiter(rate=0), quota=CreationQuota(per_hour=1, burst=2)
        ),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        seats = [pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n) for n in ("a", "b")]
        for _ in range(5):
            async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                created.append(await _code(stub.CreateGame(pb.CreateGameRequest(seats=seats))))
        assert created[:2] == ["OK"] * 2 and set(created[2:]) == {"RESOURCE_EXHAUSTED"}
