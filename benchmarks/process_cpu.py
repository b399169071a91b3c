"""This process's CPU per move over timed windows, and the options, report and Redis the
benchmarks that play in process share (``engine_move_benchmark``,
``split_move_benchmark``)."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from services.embedded_redis import EmbeddedRedis
from services.event_loop import run_service

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


def add_window_options(parser: argparse.ArgumentParser) -> None:
    """The options every in-process move benchmark takes: ``--games`` (comma list of
    concurrent games), ``--seconds`` (window), ``--reps`` (windows per concurrency) and
    ``--redis-url`` (else an embedded redis-server)."""
    parser.add_argument("--games", default="1,10,100", help="concurrent games, comma list")
    parser.add_argument("--seconds", type=float, default=4.0, help="timed window")
    parser.add_argument("--reps", type=int, default=3, help="windows per concurrency")
    parser.add_argument("--redis-url", default=None, help="a Redis of its own")


async def print_windows(
    games: str, reps: int, window: Callable[[int], Awaitable[tuple[float, float]]]
) -> None:
    """For each count of ``games`` (a comma list), ``reps`` runs of ``window(games)``
    (``(CPU µs per move, moves/s)``), printed as one line of min / median / max."""
    for count in (int(g) for g in games.split(",")):
        cells = [await window(count) for _ in range(reps)]
        print(
            f"{count:>4} games: CPU us/move {spread([c[0] for c in cells])}, "
            f"moves/s {spread([c[1] for c in cells])}",
            flush=True,
        )


def run_on_redis(
    redis_url: str | None, measure: Callable[[str], Coroutine[Any, Any, None]]
) -> None:
    """Run ``measure(url)`` as the services run (uvloop), on ``redis_url`` or, if None,
    on an embedded redis-server started for it."""
    if redis_url:
        run_service(measure(redis_url))
        return
    with EmbeddedRedis() as server:
        run_service(measure(server.url))
