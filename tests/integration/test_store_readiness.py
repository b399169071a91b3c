"""Readiness follows the store: a gateway (and engine) whose Redis stops answering turns
its services NOT_SERVING, and SERVING again once Redis is back; the process itself (the
overall "" status, liveness) stays SERVING (issue 30, item 16)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.app import all_in_one
from services.embedded_redis import EmbeddedRedis
from services.gateway.server import GAME_SERVICE

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _status(stub: health_pb2_grpc.HealthStub, service: str) -> int:
    reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
    return int(reply.status)


async def _until(stub: health_pb2_grpc.HealthStub, service: str, wanted: int) -> None:
    """Follow the health Watch stream until ``service`` reports ``wanted`` (within 20 s)."""

    async def watch() -> None:
        call = stub.Watch(health_pb2.HealthCheckRequest(service=service))
        async for reply in call:
            if reply.status == wanted:
                call.cancel()
                return

    await asyncio.wait_for(watch(), 20)


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_readiness_turns_not_serving_while_redis_is_gone(tmp_path: Path) -> None:
    # On a Unix socket in a folder of its own: it comes back at the same address.
    redis = EmbeddedRedis(data_dir=tmp_path / "redis", unix_socket=True).start()
    try:
        async with (
            all_in_one(redis.url, "127.0.0.1:0", director=False) as stack,
            grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel,
        ):
            stub = health_pb2_grpc.HealthStub(channel)
            assert await _status(stub, GAME_SERVICE) == SERVING
            redis.stop()  # the store goes away
            await _until(stub, GAME_SERVICE, NOT_SERVING)
            assert await _status(stub, "") == SERVING  # alive: not to be restarted for it
            redis.start()  # back at the same address
            await _until(stub, GAME_SERVICE, SERVING)
    finally:
        redis.stop()
