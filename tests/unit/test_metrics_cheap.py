"""services.metrics.cheap: the counters, gauges and histograms the hot paths update,
read back through prometheus_client's own exposition and parser (issue 34)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from services.metrics.cheap import Level, Tally, Timings


def samples(registry: CollectorRegistry) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    text = generate_latest(registry).decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_a_tally_counts_per_label_values() -> None:
    registry = CollectorRegistry()
    calls = Tally("calls", "calls", ["method", "code"], registry)
    calls.inc("Get", "OK")
    calls.inc("Get", "OK")
    calls.inc("Get", "NOT_FOUND", amount=3)
    read = samples(registry)
    assert read[("calls_total", frozenset({("method", "Get"), ("code", "OK")}))] == 2
    assert read[("calls_total", frozenset({("method", "Get"), ("code", "NOT_FOUND")}))] == 3
    assert calls.value("Get", "OK") == 2


def test_an_unlabelled_tally_shows_zero_before_its_first_count() -> None:
    registry = CollectorRegistry()
    Tally("errors", "errors", registry=registry)
    assert samples(registry)[("errors_total", frozenset())] == 0


def test_a_level_moves_up_and_down() -> None:
    registry = CollectorRegistry()
    held = Level("held", "held", ["face"], registry)
    held.add(1, "web")
    held.add(1, "web")
    held.add(-1, "web")
    assert samples(registry)[("held", frozenset({("face", "web")}))] == 1


def test_timings_buckets_are_cumulative_and_an_edge_falls_in_its_own_bucket() -> None:
    registry = CollectorRegistry()
    timings = Timings("took_seconds", "took", ["method"], (0.1, 1.0), registry)
    for seconds in (0.05, 0.1, 0.5, 1.0, 7.0):
        timings.observe(seconds, "Get")
    read = samples(registry)

    def bucket(le: str) -> float:
        return read[("took_seconds_bucket", frozenset({("method", "Get"), ("le", le)}))]

    # Prometheus's le is "less than or equal": 0.1 is in the 0.1 bucket, 1.0 in 1.0's.
    assert (bucket("0.1"), bucket("1.0"), bucket("+Inf")) == (2, 4, 5)
    assert read[("took_seconds_count", frozenset({("method", "Get")}))] == 5
    assert read[("took_seconds_sum", frozenset({("method", "Get")}))] == 8.65
    assert timings.count("Get") == 5
