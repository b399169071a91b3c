"""Readiness that follows the store: a gateway or engine is ready only while its Redis
answers (issue 30, item 16).

A process whose Redis is gone can answer nothing but errors, so its readiness services
(``gameserver.v1.GameService``, ``EngineService``...) turn NOT_SERVING and a load
balancer or Kubernetes sends calls elsewhere; the overall ``""`` status (startup and
liveness probes) stays SERVING, since restarting the process would not bring Redis back.
They turn SERVING again on the first PING answered.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import structlog
from grpc_health.v1 import health_pb2

log = structlog.get_logger(__name__)

STORE_CHECK_S = 2.0
"""Seconds between two PINGs, and the longest a PING may take before it counts as a
failure: readiness turns NOT_SERVING within about 2 x this after Redis goes away."""


async def follow_store(
    ping: Callable[[], Awaitable[object]],
    health: Any,
    services: Sequence[str],
    stop: asyncio.Event,
    every_s: float = STORE_CHECK_S,
) -> None:
    """Until ``stop``: PING every ``every_s`` and set ``services`` on ``health`` (a
    grpc_health ``HealthServicer``) NOT_SERVING while ``ping`` fails, SERVING when it
    answers again. Logs each change (``store_readiness``) once, not every failure."""
    serving = True
    while not stop.is_set():
        try:
            await asyncio.wait_for(ping(), every_s)
            answers, why = True, ""
        except Exception as error:  # refused, reset, timed out, loading: not answering
            answers, why = False, type(error).__name__
        if answers != serving:
            serving = answers
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if answers
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in services:
                await health.set(name, status)
            (log.info if answers else log.warning)(
                "store_readiness", serving=answers, error=why, services=list(services)
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
