"""The timekeeper: appends the timeout of every seat whose clock deadline has passed.

It runs inside the engine service process (``teoti engine``, ``teoti serve``; see
docs/operations.md, "Clocks"), every ``interval_s``, and may run in as many processes
as there are engines: each pass claims the due games from the deadlines sets with a
lease (``services.engine.adapters.deadlines``), so two timekeepers rarely look at one game,
and the timeout is appended on the version the game was loaded at, under the command id
``timeout:<version>``: a move appended first wins (the timeout is dropped), and two
timekeepers racing append it once. A timekeeper dying mid-pass leaves its claims to
expire; the next pass takes them again. So no table waits on an absent player much
longer than its clock plus ``interval_s`` (plus ``lease_ms`` after a crash).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import structlog
from redis.exceptions import RedisError

from services.engine.adapters.deadlines import Claim, DeadlineQueue
from services.engine.domain.engine import Engine
from services.engine.domain.engine_clock import timeout_plan
from services.engine.domain.errors import ChainMismatch, CorruptLog, GameNotFound, VersionConflict
from services.engine.domain.timing.seat_clocks import epoch_ms
from services.metrics.families import CLOCKS_FLAGGED

log = structlog.get_logger(__name__)

DEFAULT_INTERVAL_S = 0.5
DEFAULT_LEASE_MS = 10_000
DEFAULT_BATCH = 100
_ATTEMPTS = 3
"""Looks at one claimed game after a lost race (each look reloads it)."""


@dataclass(frozen=True, slots=True)
class TimekeeperSettings:
    """How often the timekeeper looks, how long a claim lasts, how many games a pass
    takes per shard, how many it times out at once (``interval_s`` <= 0: no timekeeper
    in this process)."""

    interval_s: float = DEFAULT_INTERVAL_S
    lease_ms: int = DEFAULT_LEASE_MS
    batch: int = DEFAULT_BATCH
    concurrency: int = 16


class Timekeeper:
    """Claims due games and appends their timeouts through ``engine``.

    Args:
        engine: appends the timeouts (its injected clock is the timekeeper's "now").
        deadlines: the deadlines sets (Redis, or an in-memory store's in tests).
        settings: interval, lease, batch size.
    """

    def __init__(
        self,
        engine: Engine,
        deadlines: DeadlineQueue,
        settings: TimekeeperSettings | None = None,
    ) -> None:
        self._engine = engine
        self._deadlines = deadlines
        self._settings = settings or TimekeeperSettings()

    async def run_once(self) -> int:
        """One pass: claim the games due now and time out their seats. Returns how many
        timeouts were appended. Raises RedisError/OSError on an outage."""
        now = self._engine.now()
        claims = await self._deadlines.claim_due(
            epoch_ms(now), self._settings.lease_ms, self._settings.batch
        )
        slots = asyncio.Semaphore(self._settings.concurrency)

        async def one(claim: Claim) -> int:
            async with slots:
                return await self.time_out(claim)

        return sum(await asyncio.gather(*(one(claim) for claim in claims)))

    async def time_out(self, claim: Claim) -> int:
        """Append the timeouts due in ``claim``'s game now (1 if appended, else 0).

        Not due after all (a move came, or the clocks stopped): the true deadline is put
        back (or dropped). A move appended meanwhile wins: the timeout is dropped; the
        game is looked at again (a seat joining is no move: its timeout still comes).
        """
        for _attempt in range(_ATTEMPTS):
            outcome = await self._time_out_once(claim)
            if outcome is not None:
                return outcome
        return 0  # the game keeps moving: its next append sets its next deadline

    async def _time_out_once(self, claim: Claim) -> int | None:
        """One try of :meth:`time_out`; None if another append came first."""
        now = self._engine.now()
        bound = log.bind(game_id=claim.game_id)
        try:
            snapshot = await self._engine.load(claim.game_id)
        except (GameNotFound, CorruptLog) as exc:
            bound.warning("timekeeper_skipped_game", error=repr(exc))
            await self._deadlines.release(claim, None)
            return 0
        plan = timeout_plan(snapshot, epoch_ms(now))
        if plan.deadline is None:  # nothing due: the game moved on, or ended
            clock = snapshot.clock
            running = None if clock is None or snapshot.is_terminal() else clock.next_deadline()
            await self._deadlines.release(claim, running)
            return 0
        try:
            result = await self._engine.append_clock_plan(
                snapshot, plan, f"timeout:{snapshot.version}", now
            )
        except (VersionConflict, ChainMismatch) as exc:
            bound.info("timeout_dropped", version=snapshot.version, reason=repr(exc))
            return None
        seats = [int(e.payload["seat"]) for e in plan.before if e.type == "SeatTimedOut"]
        CLOCKS_FLAGGED.inc(amount=len(seats))
        bound.info(
            "seat_timed_out",
            seats=seats,
            policy=snapshot.clock.control.policy.value if snapshot.clock else "",
            version=result.version,
        )
        return 1

    async def run(self, stop: asyncio.Event) -> None:
        """Pass every ``interval_s`` until ``stop``; outages are logged and waited out."""
        log.info("timekeeper_started", interval_s=self._settings.interval_s)
        while not stop.is_set():
            try:
                await self.run_once()
            except (RedisError, OSError) as exc:
                log.warning("timekeeper_redis_error", error=repr(exc))
            except Exception:  # a bug must not stop every clock of the deployment
                log.exception("timekeeper_pass_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self._settings.interval_s)
        log.info("timekeeper_stopped")
