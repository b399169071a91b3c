"""This process's CPU per move over a timed window, for the benchmarks that play in process
(``engine_move_benchmark``, ``split_move_benchmark``)."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Sequence

WARM_UP_S = 1.0


async def cpu_per_move(
    moves: Callable[[], int], seconds: float, warm_up_s: float = WARM_UP_S
) -> tuple[float, float]:
    """``(CPU µs per move, moves per second)`` of this process (user + system time) over
    ``seconds`` after ``warm_up_s``, while the caller's tasks play; ``moves()`` is the
    count of moves done so far. Raises RuntimeError if no move was done in the window."""
    await asyncio.sleep(warm_up_s)
    moves0, cpu0, wall0 = moves(), time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    done, cpu, wall = moves() - moves0, time.process_time() - cpu0, time.monotonic() - wall0
    if not done:
        raise RuntimeError("no move was accepted in the window")
    return cpu * 1e6 / done, done / wall


def spread(values: Sequence[float]) -> str:
    """``min / median / max``, rounded to units."""
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"
