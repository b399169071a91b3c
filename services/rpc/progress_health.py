"""gRPC health checking for a worker process that serves no other RPC (the bot worker,
the tournament director).

Kubernetes probes the other services with native ``grpc:`` probes; this gives such
workers the same: ``""`` is SERVING while the process runs (liveness), and the worker's
named service is SERVING only while its loops make progress (readiness: Redis answers
and the worker is not stuck).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

import structlog

from services.rpc.server import build_server, mark_serving

log = structlog.get_logger(__name__)

MAX_SILENCE_S = 30.0
CHECK_EVERY_S = 2.0
SHUTDOWN_GRACE_S = 1.0


class Progressing(Protocol):
    """A worker that can tell how long ago its loops last made progress."""

    def seconds_since_progress(self) -> float:
        """Seconds since the last finished round of its loops."""
        ...


class ProgressHealth:
    """A health-only gRPC server reporting on one worker.

    Args:
        worker: the worker whose progress is reported.
        service: the health service name that is SERVING while ``worker`` progresses.
        address: ``host:port`` to bind (port 0: any free port).
        max_silence_s: seconds without progress before NOT_SERVING.
    """

    def __init__(
        self,
        worker: Progressing,
        service: str,
        address: str,
        max_silence_s: float = MAX_SILENCE_S,
    ) -> None:
        self._worker = worker
        self._service = service
        self._max_silence_s = max_silence_s
        self._server, self.port, self._health = build_server(address, [], [service])

    async def refresh(self) -> bool:
        """Set the worker's status from its progress; returns whether it is SERVING."""
        serving = self._worker.seconds_since_progress() <= self._max_silence_s
        await mark_serving(self._health, [self._service], serving)
        await mark_serving(self._health, [])  # the process itself is alive
        return serving

    async def run(self, stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set, refreshing the status every few seconds."""
        await self._server.start()
        log.info("health_serving", service=self._service, port=self.port)
        try:
            while not stop.is_set():
                await self.refresh()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), CHECK_EVERY_S)
        finally:
            await mark_serving(self._health, [self._service], serving=False)
            await self._server.stop(SHUTDOWN_GRACE_S)
