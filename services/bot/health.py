"""gRPC health checking for the bot worker, which serves no other RPC.

``""`` is SERVING while the process runs (liveness), and ``gameserver.v1.BotWorker`` is
SERVING only while its read loops make progress (readiness: Redis answers and not every
slot is stuck) and the engine accepts its moves (a bot credential the engine refuses
makes it NOT_SERVING, logged with the reason). See services.rpc.progress_health.
"""

from __future__ import annotations

import structlog

from services.bot.worker import BotWorker
from services.rpc.progress_health import MAX_SILENCE_S, ProgressHealth
from services.rpc.server import mark_serving

log = structlog.get_logger(__name__)

BOT_WORKER_SERVICE = "gameserver.v1.BotWorker"


class BotHealth(ProgressHealth):
    """A health-only gRPC server reporting on one :class:`BotWorker`.

    Args:
        worker: the worker whose progress is reported.
        address: ``host:port`` to bind (port 0: any free port).
        max_silence_s: seconds without a finished read round before NOT_SERVING.
    """

    def __init__(
        self, worker: BotWorker, address: str, max_silence_s: float = MAX_SILENCE_S
    ) -> None:
        super().__init__(worker, BOT_WORKER_SERVICE, address, max_silence_s)
        self._bot = worker
        self._reported = ""

    async def refresh(self) -> bool:
        """NOT_SERVING while the worker says why it cannot play (logged once per
        change); otherwise as its progress says."""
        reason = self._bot.unready_reason()
        if reason != self._reported:
            if reason:
                log.error("bot_worker_not_ready", reason=reason)
            else:
                log.info("bot_worker_ready_again", was=self._reported)
            self._reported = reason
        if not reason:
            return await super().refresh()
        await mark_serving(self._health, [self._service], serving=False)
        await mark_serving(self._health, [])  # the process itself is alive
        return False
