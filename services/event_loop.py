"""The event loop of the long-running services: uvloop when installed, else asyncio's.

uvloop (libuv) makes the loop's own work per request cheaper; grpc.aio and redis-py
run on it unchanged. ``TEOTI_EVENT_LOOP=asyncio`` keeps the standard loop (to compare,
or to rule uvloop out when debugging). Measured with benchmarks/peer_benchmark.py.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


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


def run_service(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the service loop (see :func:`loop_factory`)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
