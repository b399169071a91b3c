"""The bot worker: play bot seats when the engine publishes turn requests for them."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from enum import StrEnum

import grpc
import structlog
from redis.exceptions import RedisError, ResponseError

from services.bot.policy import Policy, RulesetPolicy
from services.bot.queue import Delivery, TurnRequestQueue
from services.bot.reconciler import TurnReconciler
from services.engine.domain.errors import (
    GameNotFound,
    NotAuthorized,
    RuleViolation,
    VersionConflict,
)
from services.engine.domain.reader import GameReader
from services.engine.domain.records import TurnRequest
from services.engine.transport.client import EngineClient
from services.metrics.families import BOT_TURN_SECONDS, BOT_TURNS

log = structlog.get_logger(__name__)

RETRY_FIRST_S = 0.1
RETRY_MAX_S = 0.5
RETRY_FOR_S = 20.0
"""Transient failures (Redis or the engine unreachable) are retried after 0.1 s, doubling
up to 0.5 s between tries, for 20 s; only then is the request left pending for
XAUTOCLAIM. So an outage of a few seconds delays a bot game by about as long."""
TRANSIENT = (grpc.aio.AioRpcError, RedisError, OSError)


class Outcome(StrEnum):
    """What handling one turn request did (every outcome but RETRY is acked)."""

    PLAYED = "played"
    STALE = "stale"
    NOT_TO_ACT = "not_to_act"
    UNKNOWN_GAME = "unknown_game"
    NO_LEGAL_ACTION = "no_legal_action"
    REFUSED = "refused"
    MALFORMED = "malformed"
    RETRY = "retry"


def published_at_s(entry_id: str) -> float | None:
    """When a stream entry was added, in seconds since the epoch: Redis's entry ids are
    ``<milliseconds>-<sequence>``. None for an id of another form."""
    millis, _, _ = entry_id.partition("-")
    return int(millis) / 1000 if millis.isdigit() else None


def _count(delivery: Delivery, outcome: Outcome) -> None:
    """Count ``outcome`` (teoti_bot_turns_total) and, for a move played, the time from
    the turn request's publication to now, when the move is in the log
    (teoti_bot_turn_seconds; the wall clocks of Redis and of this host are compared)."""
    BOT_TURNS.inc(outcome.value)
    if outcome is Outcome.PLAYED and (published := published_at_s(delivery.entry_id)):
        BOT_TURN_SECONDS.observe(max(0.0, time.time() - published))


def bot_command_id(request: TurnRequest) -> str:
    """Deterministic command id: a redelivered request is idempotent in the store."""
    return f"bot:{request.game_id}:{request.version}:{request.seat}"


class BotWorker:
    """Consumes turn requests and submits policy actions through an EngineClient.

    Args:
        queue: the consumer-group reader.
        reader: loads games from the store.
        client: submits actions (in-process or remote engine).
        policy: chooses the action (default: each ruleset's own bot, see RulesetPolicy).
        concurrency: at most this many requests handled at once.
        block_ms: how long one XREADGROUP waits.
        claim_idle_ms: pending entries idle this long are reclaimed (crashed workers).
        bot_seed: mixed into each request's rng so choices are reproducible.
        pause_s: seconds each move waits before it is chosen, so that a person watching
            an all-bot game can follow it (``teoti watch``); 0, the default, plays at once.
        reconciler: republishes lost turn requests while the worker runs (None: none).
        retry_for_s: how long a transient failure is retried before the request is left
            pending (see RETRY_FOR_S).
    """

    def __init__(
        self,
        queue: TurnRequestQueue,
        reader: GameReader,
        client: EngineClient,
        policy: Policy | None = None,
        concurrency: int = 4,
        block_ms: int = 500,
        claim_idle_ms: int = 30_000,
        bot_seed: str = "bot",
        pause_s: float = 0.0,
        reconciler: TurnReconciler | None = None,
        retry_for_s: float = RETRY_FOR_S,
    ) -> None:
        self._queue = queue
        self._reader = reader
        self._client = client
        self._policy = policy or RulesetPolicy()
        self._slots = asyncio.Semaphore(concurrency)
        self._concurrency = concurrency
        self._block_ms = block_ms
        self._claim_idle_ms = claim_idle_ms
        self._bot_seed = bot_seed
        self._pause_s = pause_s
        self._tasks: set[asyncio.Task[None]] = set()
        self._reconciler = reconciler
        self._retry_for_s = retry_for_s
        self._last_progress = time.monotonic()
        self._refused = False
        """The engine refused the last move submitted (the bot credential differs)."""

    @property
    def queue(self) -> TurnRequestQueue:
        """The turn requests this worker reads (their depths are metrics)."""
        return self._queue

    async def handle(self, request: TurnRequest) -> Outcome:
        """Play one request if it is still current; never raises for domain outcomes."""
        bound = log.bind(game_id=request.game_id, seat=request.seat, version=request.version)
        try:
            snapshot = await self._reader.load(request.game_id)
        except GameNotFound:
            bound.warning("turn_request_for_unknown_game")
            return Outcome.UNKNOWN_GAME
        if snapshot.version != request.version:
            return Outcome.STALE
        if snapshot.is_terminal() or request.seat not in snapshot.seats_to_act():
            return Outcome.NOT_TO_ACT
        legal = snapshot.ruleset.legal_actions(snapshot.state, request.seat)
        if not legal:
            bound.error("no_legal_action")
            return Outcome.NO_LEGAL_ACTION
        if self._pause_s > 0:
            await asyncio.sleep(self._pause_s)  # the expected version still guards the move
        rng = random.Random(f"{self._bot_seed}:{request.game_id}:{request.version}:{request.seat}")
        action = self._policy.choose(snapshot.ruleset, snapshot.state, request.seat, legal, rng)
        try:
            result = await self._client.submit_action(
                request.game_id, request.seat, action, request.version, bot_command_id(request)
            )
        except VersionConflict:
            self._refused = False
            return Outcome.STALE
        except NotAuthorized:
            # The engine holds another TEOTI_BOT_SECRET: no bot moves until they agree.
            # Retried (a rotation reaches the engine and the workers at different times),
            # but an error, and readiness says NOT_SERVING meanwhile (issue 30 item 5).
            self._refused = True
            bound.error(
                "bot_credential_refused",
                hint="the engine and the bot worker need the same TEOTI_BOT_SECRET",
            )
            raise
        except RuleViolation as exc:
            self._refused = False
            bound.error("bot_action_refused", rule=exc.rule, message=exc.message, action=action)
            return Outcome.REFUSED
        self._refused = False
        bound.info("bot_played", policy=self._policy.name, new_version=result.version)
        return Outcome.PLAYED

    async def _process(self, delivery: Delivery) -> None:
        try:
            if delivery.request is None:
                await self._queue.dead_letter(delivery, "malformed turn request")
                return
            try:
                outcome = await self._handle_retrying(delivery)
            except TRANSIENT as exc:
                # Still failing: leave it pending; XAUTOCLAIM hands it out again later, and
                # dead-letters it after too many deliveries.
                log.warning("turn_request_retry_later", entry_id=delivery.entry_id, error=repr(exc))
                return
            except Exception as exc:
                log.exception("turn_request_failed", entry_id=delivery.entry_id)
                await self._queue.dead_letter(delivery, f"failed: {exc!r}")
                return
            _count(delivery, outcome)
            if outcome is Outcome.REFUSED:
                await self._queue.dead_letter(delivery, "the engine refused the bot's action")
            else:
                await self._queue.ack(delivery)
        except (RedisError, OSError) as exc:
            log.warning("turn_request_ack_failed", entry_id=delivery.entry_id, error=repr(exc))
        finally:
            self._slots.release()

    async def _handle_retrying(self, delivery: Delivery) -> Outcome:
        """:meth:`handle`, retried with backoff on a transient failure (see RETRY_FOR_S).

        Retrying is safe: the move goes with the request's expected version and its
        deterministic command id, so it is applied at most once. Raises the last
        transient error once ``retry_for_s`` has passed.
        """
        assert delivery.request is not None
        deadline = time.monotonic() + self._retry_for_s
        delay = RETRY_FIRST_S
        while True:
            try:
                return await self.handle(delivery.request)
            except TRANSIENT as exc:
                if time.monotonic() + delay > deadline:
                    raise
                log.info("turn_request_retrying", entry_id=delivery.entry_id, error=repr(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)

    async def _dispatch(self, deliveries: list[Delivery]) -> None:
        for delivery in deliveries:
            await self._slots.acquire()
            task = asyncio.create_task(self._process(delivery))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pause(self, stop: asyncio.Event, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)

    def seconds_since_progress(self) -> float:
        """Seconds since a read loop last finished a round (health: a hung worker grows it).

        A round ends at least every ``block_ms`` while Redis answers and a slot is free, so
        a large value means Redis is unreachable or every slot is stuck.
        """
        return time.monotonic() - self._last_progress

    def unready_reason(self) -> str:
        """Why the worker cannot play although it runs ("" when it can): the engine
        refused its last move for the bot credential (health: NOT_SERVING)."""
        return "bot_credential_refused" if self._refused else ""

    async def _ensure_group(self, stop: asyncio.Event) -> None:
        """Create the consumer group, waiting out a Redis that is down or loading (a
        worker started during an outage must not exit)."""
        while not stop.is_set():
            try:
                await self._queue.ensure_group()
                return
            except (RedisError, OSError) as exc:
                log.warning("bot_worker_redis_error", error=repr(exc))
                await self._pause(stop, RETRY_MAX_S)

    async def _read_loop(self, streams: list[str], count: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self._dispatch(await self._queue.read(count, self._block_ms, streams))
                self._last_progress = time.monotonic()
            except ResponseError as exc:
                log.warning("bot_worker_redis_error", error=repr(exc))
                if "NOGROUP" in str(exc):  # Redis lost the group (a failover, a cut AOF)
                    await self._ensure_group(stop)
                else:
                    await self._pause(stop, RETRY_MAX_S)
            except (RedisError, OSError) as exc:
                log.warning("bot_worker_redis_error", error=repr(exc))
                await self._pause(stop, RETRY_MAX_S)

    async def _claim_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self._dispatch(
                    await self._queue.claim_stale(self._claim_idle_ms, self._concurrency)
                )
            except (RedisError, OSError) as exc:
                log.warning("bot_worker_redis_error", error=repr(exc))
            await self._pause(stop, self._claim_idle_ms / 2000)

    async def run(self, stop: asyncio.Event) -> None:
        """Consume until ``stop`` is set, then finish in-flight requests and return.

        One blocking read loop per group of streams the queue can read at once (one for
        a standalone Redis, one per shard on a cluster), plus one loop reclaiming stale
        requests; all dispatch into the same ``concurrency`` slots. On a cluster each
        read asks for ``concurrency // shards`` entries (at least one), so a worker holds
        few more requests than it can play.
        """
        await self._ensure_group(stop)
        groups = self._queue.stream_groups()
        count = max(1, self._concurrency // len(groups))
        log.info(
            "bot_worker_started",
            group=self._queue.group,
            consumer=self._queue.consumer,
            read_loops=len(groups),
        )
        loops = [asyncio.create_task(self._claim_loop(stop))] + [
            asyncio.create_task(self._read_loop(streams, count, stop)) for streams in groups
        ]
        if self._reconciler is not None:
            loops.append(asyncio.create_task(self._reconciler.run(stop)))
        try:
            await asyncio.gather(*loops)
        finally:
            for loop_task in loops:
                loop_task.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        log.info("bot_worker_stopped")
