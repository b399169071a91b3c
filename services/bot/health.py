"""gRPC health checking for the bot worker, which serves no other RPC.

``""`` is SERVING while the process runs (liveness), and ``gameserver.v1.BotWorker`` is
SERVING only while its read loops make progress (readiness: Redis answers and not every
slot is stuck). See services.rpc.progress_health.
"""

from __future__ import annotations

from services.bot.worker import BotWorker
from services.rpc.progress_health import MAX_SILENCE_S, ProgressHealth

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
