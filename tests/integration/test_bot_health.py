"""The bot worker's gRPC health endpoint: alive while the process runs, ready only while
its read loops make progress (what the Kubernetes probes of deploy/k8s ask)."""

from __future__ import annotations

import asyncio

from grpc_health.v1 import health_pb2

from services.bot.health import BOT_WORKER_SERVICE, BotHealth
from services.bot.queue import TurnRequestQueue
from services.bot.worker import BotWorker
from services.engine.adapters import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from tests.integration.helpers import health_status

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def test_ready_while_reading_not_ready_when_stuck(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="health")
    engine = InProcessEngineClient(Engine(redis_store, registry))
    worker = BotWorker(queue, GameReader(redis_store, registry), engine, block_ms=50)
    health = BotHealth(worker, "127.0.0.1:0", max_silence_s=1.0)
    stop_worker, stop_health = asyncio.Event(), asyncio.Event()
    worker_task = asyncio.create_task(worker.run(stop_worker))
    health_task = asyncio.create_task(health.run(stop_health))
    try:
        await asyncio.sleep(0.3)
        assert await health_status(health.port, "") == SERVING
        assert await health_status(health.port, BOT_WORKER_SERVICE) == SERVING
        # The read loops stop making progress (as with Redis gone or every slot stuck):
        stop_worker.set()
        await worker_task
        await asyncio.sleep(1.2)  # longer than max_silence_s
        assert not await health.refresh()
        assert await health_status(health.port, BOT_WORKER_SERVICE) == NOT_SERVING
        assert await health_status(health.port, "") == SERVING  # the process is still alive
    finally:
        stop_worker.set()
        stop_health.set()
        await asyncio.gather(worker_task, health_task)
