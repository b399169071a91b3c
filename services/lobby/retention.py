"""The lobby's retention: started and closed tables, and settled rematches, are kept for
lookups for a while, then dropped, so the ``{lobby}`` keys do not grow with every table
ever opened or every game ever finished.

Every gateway runs a :class:`LobbySweeper` (with the matcher and the table opener); the
sweep is idempotent, so two gateways sweeping at once drop each table once. A game's
own log is never touched: only the lobby's record of the table that opened it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import structlog
from redis.exceptions import RedisError

from services.lobby.redis_rematches import RedisRematches
from services.lobby.redis_tables import RedisLobby
from services.lobby.rematch import REMATCH_KEEP_MS, REMATCH_WINDOW_MS

log = structlog.get_logger(__name__)

TABLE_KEEP_MS = 7 * 24 * 3600 * 1000
"""How long a started or closed table stays readable (GetTable, GetSeek, a rematch's
rated flag): 7 days after it stopped being open."""
SWEEP_EVERY_S = 3600.0
"""Seconds between two sweeps of one gateway."""


class LobbySweeper:
    """Drops the tables that stopped being open more than ``keep_ms`` ago and, given
    ``rematches``, the rematches whose offer lapsed more than ``rematch_keep_ms`` ago.

    Args:
        lobby: the lobby's tables.
        now_ms: the time in ms since the epoch.
        keep_ms: how long a table is kept after it stopped being open (ms).
        every_s: seconds between sweeps.
        rematches: the rematch offers (None: none are swept).
        rematch_keep_ms: how long a rematch is kept after its offer lapsed (ms; never
            less than the offer window, services.lobby.rematch REMATCH_WINDOW_MS).
    """

    def __init__(
        self,
        lobby: RedisLobby,
        now_ms: Callable[[], int],
        keep_ms: int = TABLE_KEEP_MS,
        every_s: float = SWEEP_EVERY_S,
        rematches: RedisRematches | None = None,
        rematch_keep_ms: int = REMATCH_KEEP_MS,
    ) -> None:
        if rematch_keep_ms < REMATCH_WINDOW_MS:
            # A rematch dropped inside the offer window could be offered a second time.
            raise ValueError("rematch_keep_ms must be at least the rematch offer window")
        self._lobby = lobby
        self._now_ms = now_ms
        self._keep_ms = keep_ms
        self._every_s = every_s
        self._rematches = rematches
        self._rematch_keep_ms = rematch_keep_ms

    async def sweep_once(self) -> int:
        """One sweep; returns the tables and rematches dropped. Redis errors propagate
        (tables are swept first, so a rematch index a login may not build yet does not
        keep them)."""
        now = self._now_ms()
        dropped = await self._lobby.forget_before(now - self._keep_ms)
        if dropped:
            log.info("lobby_tables_forgotten", tables=dropped)
        if self._rematches is None:
            return dropped
        rematches = await self._rematches.forget_lapsed_before(now - self._rematch_keep_ms)
        if rematches:
            log.info("lobby_rematches_forgotten", rematches=rematches)
        return dropped + rematches

    async def run(self, stop: asyncio.Event) -> None:
        """Sweep now and every ``every_s`` until ``stop`` is set; an outage (a Redis or
        socket error) is logged and waited out until the next sweep."""
        while not stop.is_set():
            try:
                await self.sweep_once()
            except (RedisError, OSError) as exc:
                log.warning("lobby_sweep_unavailable", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self._every_s)
