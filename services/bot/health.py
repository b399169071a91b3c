"""gRPC health checking for the bot worker, which serves no other RPC.

Kubernetes probes the other services with native ``grpc:`` probes; this gives the bot
worker the same: ``""`` is SERVING while the process runs (liveness), and
``gameserver.v1.BotWorker`` is SERVING only while its read loops make progress
(readiness: Redis answers and not every slot is stuck).
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

from services.bot.worker import BotWorker
from services.rpc.server import build_server, mark_serving

log = structlog.get_logger(__name__)

BOT_WORKER_SERVICE = "gameserver.v1.BotWorker"
MAX_SILENCE_S = 30.0
CHECK_EVERY_S = 2.0
SHUTDOWN_GRACE_S = 1.0


class BotHealth:
    """A health-only gRPC server reporting on one :class:`BotWorker`.

    Args:
        worker: the worker whose progress is reported.
        address: ``host:port`` to bind (port 0: any free port).
        max_silence_s: seconds without a finished read round before NOT_SERVING.
    """

    def __init__(
        self, worker: BotWorker, address: str, max_silence_s: float = MAX_SILENCE_S
    ) -> None:
        self._worker = worker
        self._max_silence_s = max_silence_s
        self._server, self.port, self._health = build_server(address, [], [BOT_WORKER_SERVICE])

    async def refresh(self) -> bool:
        """Set the worker's status from its progress; returns whether it is SERVING."""
        serving = self._worker.seconds_since_progress() <= self._max_silence_s
        await mark_serving(self._health, [BOT_WORKER_SERVICE], serving)
        await mark_serving(self._health, [])  # the process itself is alive
        return serving

    async def run(self, stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set, refreshing the status every few seconds."""
        await self._server.start()
        log.info("bot_health_serving", port=self.port)
        try:
            while not stop.is_set():
                await self.refresh()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), CHECK_EVERY_S)
        finally:
            await mark_serving(self._health, [BOT_WORKER_SERVICE], serving=False)
            await self._server.stop(SHUTDOWN_GRACE_S)
