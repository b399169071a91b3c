"""The caller's deadline, carried from the gateway into its calls to the engine.

A client's gRPC deadline bounds the whole request: the gateway records it when a call
arrives (a context variable, so it follows the request's task and nothing else), and the
remote engine client uses what is left of it instead of its own fixed timeout.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

_DEADLINE: ContextVar[float | None] = ContextVar("teoti_deadline", default=None)
MIN_TIMEOUT_S = 0.001


def record(context: Any) -> None:
    """Remember the deadline of the incoming call ``context`` (none: no deadline)."""
    left = context.time_remaining()
    _DEADLINE.set(None if left is None else time.monotonic() + left)


def timeout(default_s: float) -> float:
    """Seconds a downstream call may take: ``default_s``, or less if the caller's deadline
    comes sooner (never below a millisecond, so an expired call fails at once)."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return default_s
    return max(MIN_TIMEOUT_S, min(default_s, deadline - time.monotonic()))
