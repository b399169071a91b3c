"""Reading a process's ``/metrics`` in tests: fetched over HTTP and parsed by
prometheus_client's own parser, as Prometheus would read it (issue 34)."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterable, Mapping

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
"""Every sample of a scrape: (sample name, its labels) -> value."""


def scrape(port: int, host: str = "127.0.0.1") -> Samples:
    """The samples ``http://host:port/metrics`` serves now."""
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value, 0 when the scrape has none such (a counter not yet moved)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    """How much a sample moved between two scrapes."""
    return value(after, name, **labels) - value(before, name, **labels)


def label_values(samples: Mapping[tuple[str, frozenset[tuple[str, str]]], float]) -> set[str]:
    """Every label value in ``samples``."""
    return {item for _name, labels in samples for _key, item in labels}


def leaked(samples: Samples, secrets: Iterable[str]) -> list[str]:
    """The label values that contain any of ``secrets`` (game ids, tokens, addresses)."""
    return [item for item in label_values(samples) for secret in secrets if secret in item]
