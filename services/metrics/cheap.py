"""Counters, gauges and histograms that cost a move almost nothing (issue 34, issue 35).

prometheus_client's own metrics take a lock and walk their buckets on every update: on
this machine a histogram's ``observe`` costs about 3 us and a counter's ``inc`` 1 us, and
a move crosses several of them (the public face, the engine link, the script lane), over
1% of a move's CPU. These keep plain Python numbers in a dict per label tuple, updated by
the process's event loop thread only (every call, move and bot turn runs there), and
turn them into metric families when Prometheus scrapes, in the scrape's thread: copying a
dict or a list happens under the GIL in one step, so a scrape sees each series whole.

Each is a Collector registered when made, on prometheus_client's default registry unless
given another (tests).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence

from prometheus_client import REGISTRY
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector, CollectorRegistry


class _Family(Collector):
    """A named metric with fixed label names, registered on the default registry."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str] = (),
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = list(labelnames)
        registry.register(self)

    def describe(self) -> list[Metric]:
        """The family with no samples (the registry checks names are not reused)."""
        return list(self._families({}))

    def _families(self, series: dict[tuple[str, ...], float]) -> Iterator[Metric]:
        raise NotImplementedError


class _Numbers(_Family):
    """One number per label values, exposed as a family of ``family`` (counter, gauge)."""

    family: type[CounterMetricFamily] | type[GaugeMetricFamily] = GaugeMetricFamily

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str] = (),
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        self._numbers: dict[tuple[str, ...], float] = {}
        super().__init__(name, documentation, labelnames, registry)

    def _add(self, labels: tuple[str, ...], amount: float) -> None:
        numbers = self._numbers
        numbers[labels] = numbers.get(labels, 0.0) + amount

    def collect(self) -> Iterator[Metric]:
        """The family as it is now."""
        return self._families(dict(self._numbers))

    def _families(self, series: dict[tuple[str, ...], float]) -> Iterator[Metric]:
        family = self.family(self.name, self.documentation, labels=self.labelnames)
        if not self.labelnames:
            family.add_metric([], series.get((), 0.0))
        else:
            for labels, number in series.items():
                family.add_metric(list(labels), number)
        yield family


class Tally(_Numbers):
    """A counter (exposed as ``<name>_total``) per label values."""

    family = CounterMetricFamily

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        """Add ``amount`` to the series of ``labels`` (one value per label name)."""
        numbers = self._numbers  # inline, not _add: a call less on every move
        numbers[labels] = numbers.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        """The series' count so far (0 for one never counted)."""
        return self._numbers.get(labels, 0.0)


class Level(_Numbers):
    """A gauge per label values, moved up and down (streams held)."""

    family = GaugeMetricFamily

    def add(self, delta: float, *labels: str) -> None:
        """Move the series of ``labels`` by ``delta``."""
        self._add(labels, delta)


class Timings(_Family):
    """A histogram of seconds per label values, with fixed bucket upper bounds."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str] = (),
        buckets: Sequence[float] = (),
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        self._bounds = tuple(sorted(buckets))
        # Per series: a count per bucket (the last for +Inf), then the sum.
        self._series: dict[tuple[str, ...], list[float]] = {}
        super().__init__(name, documentation, labelnames, registry)

    def observe(self, seconds: float, *labels: str) -> None:
        """Count one observation of ``seconds`` in the series of ``labels``."""
        series = self._series.get(labels)
        if series is None:
            series = self._series[labels] = [0.0] * (len(self._bounds) + 2)
        series[bisect_left(self._bounds, seconds)] += 1
        series[-1] += seconds

    def count(self, *labels: str) -> float:
        """Observations so far in the series of ``labels``."""
        series = self._series.get(labels)
        return sum(series[:-1]) if series is not None else 0.0

    def collect(self) -> Iterator[Metric]:
        """The histogram family as it is now (cumulative buckets, as Prometheus reads)."""
        snapshot = {labels: list(series) for labels, series in list(self._series.items())}
        family = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        if not self.labelnames and not snapshot:
            snapshot[()] = [0.0] * (len(self._bounds) + 2)
        for labels, series in snapshot.items():
            running, buckets = 0.0, []
            for bound, count in zip((*self._bounds, float("inf")), series[:-1], strict=True):
                running += count
                buckets.append((_bound_text(bound), running))
            family.add_metric(list(labels), buckets, sum_value=series[-1])
        yield family

    def describe(self) -> list[Metric]:
        """The family with no samples."""
        return [HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)]


def _bound_text(bound: float) -> str:
    """A bucket's ``le`` as Prometheus writes it (``+Inf`` for the last)."""
    return "+Inf" if bound == float("inf") else repr(bound)
