"""The matcher loop: every tick, each pool's waiting seeks are proposed tables and placed.

Any number of matchers (one per gateway) may run against one Redis: a pool's lease
keeps them from doing the same work twice, and placement is atomic anyway
(services.matchmaking.redis_pool), so a matcher that lost its lease mid-tick, or two
holding it across an expiry, still never seat a seek twice. A restarted gateway's matcher
starts where the state in Redis stands.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import structlog
from redis.exceptions import RedisError

from services.engine.domain.clock import Clock, system_clock
from services.matchmaking.matching import propose_tables
from services.matchmaking.redis_pool import RedisSeekPool

log = structlog.get_logger(__name__)

TICK_S = 0.2
"""Seconds between two matching passes (a new seek waits at most about this long)."""
LEASE_MS = 2_000
"""How long a matcher holds a pool between passes (renewed every pass)."""


@dataclass(frozen=True, slots=True)
class Placed:
    """One table a pass placed: ``pool`` key, ``table_id``, the seeks' ids in seat order."""

    pool: str
    table_id: str
    seek_ids: tuple[str, ...]


def epoch_ms(clock: Clock) -> Callable[[], int]:
    """A milliseconds-since-the-epoch reading of ``clock``."""
    return lambda: int(clock().timestamp() * 1000)


class Matcher:
    """Runs matching passes over every pool of a :class:`RedisSeekPool`.

    Args:
        pool: the seeks in Redis.
        now_ms: the time in ms since the epoch (a test passes a fixed one).
        holder: this matcher's lease name (random by default).
    """

    def __init__(
        self,
        pool: RedisSeekPool,
        now_ms: Callable[[], int] | None = None,
        holder: str = "",
    ) -> None:
        self._pool = pool
        self._now_ms = now_ms or epoch_ms(system_clock)
        self._holder = holder or secrets.token_hex(8)

    async def pass_once(self) -> list[Placed]:
        """One pass over every pool this matcher can lease: returns the tables placed.
        Raises redis errors on an outage (:meth:`run` logs them and goes on)."""
        placed: list[Placed] = []
        for pool in await self._pool.pools():
            if not await self._pool.lease(pool, self._holder, LEASE_MS):
                continue
            now = self._now_ms()
            for table in propose_tables(await self._pool.waiting(pool), now):
                table_id = await self._pool.place(table)
                if table_id is not None:
                    placed.append(Placed(pool, table_id, tuple(s.seek_id for s in table.seeks)))
        return placed

    async def run(self, stop: asyncio.Event, tick_s: float = TICK_S) -> None:
        """Pass every ``tick_s`` seconds until ``stop`` is set; an outage is logged and
        the next pass tries again."""
        while not stop.is_set():
            try:
                for table in await self.pass_once():
                    log.info("table_placed", pool=table.pool, table_id=table.table_id)
            except (RedisError, OSError) as exc:
                log.warning("matcher_pass_failed", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), tick_s)
