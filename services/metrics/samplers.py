"""Collectors that read on scrape what the services keep anyway, so that nothing on a
move's path calls prometheus_client: plain integer counters of the engine and the caches
(:class:`OnScrape`), and state held in Redis, read through the process's own event loop
(:class:`LoopSampled`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator

import structlog
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from services.metrics.families import ENGINE_TALLIES

log = structlog.get_logger(__name__)

SAMPLE_TIMEOUT_S = 2.0
"""Longest a scrape waits for a Redis sample (Prometheus's own default timeout is 10 s);
past it the sampled families are left out of that scrape and a warning is logged."""


class OnScrape(Collector):
    """The families ``read()`` returns, read at each scrape (in the scrape's thread: it
    must only read plain attributes, never await)."""

    def __init__(self, read: Callable[[], Iterable[Metric]]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        """The families as they are now."""
        yield from self._read()

    def describe(self) -> list[Metric]:
        """Nothing: registering must not read (the sources may not exist yet)."""
        return []


class LoopSampled(Collector):
    """The families ``sample()`` returns, run on ``loop`` (the process's event loop,
    which owns the Redis connections) from the scrape's thread, waiting at most
    ``timeout_s``."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sample: Callable[[], Awaitable[list[Metric]]],
        timeout_s: float = SAMPLE_TIMEOUT_S,
    ) -> None:
        self._loop = loop
        self._sample = sample
        self._timeout_s = timeout_s

    async def _run(self) -> list[Metric]:
        return await self._sample()

    def collect(self) -> Iterator[Metric]:
        """The sampled families; none when the loop is gone or Redis too slow."""
        future = asyncio.run_coroutine_threadsafe(self._run(), self._loop)
        try:
            yield from future.result(self._timeout_s)
        except Exception as error:  # a scrape must answer whatever Redis does
            future.cancel()
            log.warning("metrics_sample_failed", error=type(error).__name__)

    def describe(self) -> list[Metric]:
        """Nothing: registering must not sample (it may run on the loop's own thread)."""
        return []


def engine_tallies(tallies: object) -> Callable[[], list[Metric]]:
    """A reader of the engine's counters (services.engine.domain.tallies.EngineTallies)
    as ``teoti_engine_<field>_total`` counters."""

    def read() -> list[Metric]:
        return [
            CounterMetricFamily(f"teoti_engine_{name}", doc, value=getattr(tallies, name))
            for name, doc in ENGINE_TALLIES.items()
        ]

    return read


def cache_lookups(caches: Iterable[object]) -> Callable[[], list[Metric]]:
    """A reader of snapshot caches' ``hits`` and ``misses`` (services.engine.domain.
    snapshots.SnapshotCache), summed over ``caches``, as one counter by result."""
    held = list(caches)

    def read() -> list[Metric]:
        family = CounterMetricFamily(
            "teoti_snapshot_cache_lookups",
            "Games looked up in this process's folded-game cache, by result (hit: folded "
            "in memory; miss: read and folded from Redis)",
            labels=["result"],
        )
        family.add_metric(["hit"], sum(int(getattr(cache, "hits", 0)) for cache in held))
        family.add_metric(["miss"], sum(int(getattr(cache, "misses", 0)) for cache in held))
        return [family]

    return read


def gauges(name: str, documentation: str, value: Callable[[], float]) -> Callable[[], list[Metric]]:
    """A reader of one unlabelled gauge, ``value()`` at scrape time."""

    def read() -> list[Metric]:
        return [GaugeMetricFamily(name, documentation, value=value())]

    return read


def bot_queue(
    depths: Callable[[], Awaitable[tuple[int, int, int]]],
) -> Callable[[], Awaitable[list[Metric]]]:
    """A sampler of the turn-request queue (services.bot.queue.TurnRequestQueue.depths:
    entries, pending, dead-lettered, over every shard) as three gauges."""

    async def sample() -> list[Metric]:
        entries, pending, dead = await depths()
        return [
            GaugeMetricFamily(
                "teoti_bot_queue_depth",
                "Turn requests in the shards' streams: waiting for a bot worker or handed "
                "out and not yet acked",
                value=entries,
            ),
            GaugeMetricFamily(
                "teoti_bot_queue_pending",
                "Of those, handed out to a worker and not yet acked",
                value=pending,
            ),
            GaugeMetricFamily(
                "teoti_bot_dead_letters",
                "Turn requests in the dead-letter streams (a person should look at them)",
                value=dead,
            ),
        ]

    return sample


def matchmaking(
    sizes: Callable[[], Awaitable[tuple[int, int, int | None]]],
    now_ms: Callable[[], int],
) -> Callable[[], Awaitable[list[Metric]]]:
    """A sampler of the matchmaker's queues (services.matchmaking.redis_pool.
    RedisSeekPool.queue_sizes), which live in Redis: every gateway shows the same
    figures (take the max over gateways, not the sum)."""

    async def sample() -> list[Metric]:
        seeks, pools, oldest_ms = await sizes()
        waited = 0.0 if oldest_ms is None else max(0.0, (now_ms() - oldest_ms) / 1000)
        return [
            GaugeMetricFamily(
                "teoti_matchmaking_seeks_waiting",
                "Seeks waiting for a table, in every pool",
                value=seeks,
            ),
            GaugeMetricFamily(
                "teoti_matchmaking_pools_waiting",
                "Pools (ruleset, seats, options) with at least one seek waiting",
                value=pools,
            ),
            GaugeMetricFamily(
                "teoti_matchmaking_oldest_wait_seconds",
                "How long the longest-waiting seek has waited (0: none waits)",
                value=waited,
            ),
        ]

    return sample


def tournaments(director: object) -> Callable[[], list[Metric]]:
    """A reader of the director's last sweep (services.tournament.director.Director's
    ``running`` and ``tables_waiting``, refreshed every sweep, 30 s by default)."""

    def read() -> list[Metric]:
        return [
            GaugeMetricFamily(
                "teoti_tournaments_running",
                "Tournaments running at the director's last sweep",
                value=int(getattr(director, "running", 0)),
            ),
            GaugeMetricFamily(
                "teoti_tournament_tables_waiting",
                "Tables of the running tournaments' current rounds not finished at the "
                "director's last sweep",
                value=int(getattr(director, "tables_waiting", 0)),
            ),
        ]

    return read
