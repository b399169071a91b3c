"""The director's gRPC health endpoint: alive while the process runs, ready only while
its read loops make progress (what the Kubernetes probes of deploy/k8s ask)."""

from __future__ import annotations

import asyncio

from grpc_health.v1 import health_pb2

from services.app import tournament_parts
from services.engine.adapters import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from services.rpc.progress_health import ProgressHealth
from services.tournament.director import DIRECTOR_SERVICE
from tests.integration.helpers import health_status

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def test_ready_while_reading_not_ready_when_stuck(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    reader = GameReader(redis_store, registry)
    client = InProcessEngineClient(Engine(redis_store, registry))
    _service, director = tournament_parts(redis_store, client, reader, registry, sweep_s=0)
    health = ProgressHealth(director, DIRECTOR_SERVICE, "127.0.0.1:0", max_silence_s=1.0)
    stop_director, stop_health = asyncio.Event(), asyncio.Event()
    director_task = asyncio.create_task(director.run(stop_director))
    health_task = asyncio.create_task(health.run(stop_health))
    try:
        await asyncio.sleep(0.3)
        assert await health_status(health.port, "") == SERVING
        assert await health_status(health.port, DIRECTOR_SERVICE) == SERVING
        # The read loops stop making progress (as with Redis gone):
        stop_director.set()
        await director_task
        await asyncio.sleep(1.2)  # longer than max_silence_s
        assert not await health.refresh()
        assert await health_status(health.port, DIRECTOR_SERVICE) == NOT_SERVING
        assert await health_status(health.port, "") == SERVING  # the process is still alive
    finally:
        stop_director.set()
        stop_health.set()
        await asyncio.gather(director_task, health_task)
