"""The event loop of the long-running services: uvloop when installed, asyncio's.

uvloop (libuv) makes the loop's own work per request cheaper; grpc.aio and redis-py
run on it unchanged. ``TEOTI_EVENT_LOOP=asyncio`` keeps the standard loop (to compare,
or to rule uvloop out when debugging). Measured with benchmarks/peer_benchmark.py.

The services also collect garbage less often than CPython's default (see
:data:`GC_THRESHOLDS`); ``TEOTI_GC_THRESHOLDS=700,10,10`` restores the default.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

GC_THRESHOLDS = (50_000, 20, 100)
"""The collector's generation thresholds while a service runs (CPython's: 700, 10, 10).

A move allocates a few thousand short-lived containers (protobuf messages, dicts, event
records) and a service keeps thousands of cached games alive, so with the default every
few moves pay a young-generation pass and every hundred or so an older one over the
cache: about 5% of ``teoti serve``'s CPU at 100 matches (py-spy, issue 16). Nearly
nothing a move allocates is in a reference cycle (reference counting frees it), so
rarer passes reclaim the same memory a little later. Measured with
benchmarks/peer_benchmark.py (docs/performance.md, issue 16, fifth round)."""

GC_ENV = "TEOTI_GC_THRESHOLDS"


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` if installed and not turned off, else None (asyncio's)."""
    if os.environ.get("TEOTI_EVENT_LOOP", "uvloop") == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def gc_thresholds() -> tuple[int, ...]:
    """The thresholds a service collects with: ``TEOTI_GC_THRESHOLDS`` (one to three
    comma-separated non-negative integers, as ``gc.set_threshold`` takes them) if set,
    else :data:`GC_THRESHOLDS`. Raises ValueError for a malformed value."""
    text = os.environ.get(GC_ENV, "").strip()
    if not text:
        return GC_THRESHOLDS
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"{GC_ENV} must be 1 to 3 integers, like 700,10,10: {text!r}") from None
    if not 1 <= len(values) <= 3 or min(values) < 0:
        raise ValueError(f"{GC_ENV} must be 1 to 3 integers >= 0, like 700,10,10: {text!r}")
    return values


@contextmanager
def service_gc() -> Iterator[None]:
    """Collect with :func:`gc_thresholds` inside the block, the previous ones after it
    (a test running a service in its own process's interpreter gets its own back)."""
    previous = gc.get_threshold()
    gc.set_threshold(*gc_thresholds())
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def run_service(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the service loop (see :func:`loop_factory`), collecting
    garbage with the service thresholds (see :func:`service_gc`)."""
    with service_gc(), asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
