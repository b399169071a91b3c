"""A server stream's bounded buffer: what a fan-out hub pushes and the stream takes.

WatchGame's hub (services.gateway.watch_hub) and the player streams' hub
(services.notices.hub) each read Redis once for many open streams and push what they read
into every stream's buffer. A stream whose client does not take its items is dropped
once ``limit`` would be waiting: the hub never waits for a slow client, and the client
resumes from the last item it received (RESOURCE_EXHAUSTED ``watch_too_slow``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

from services.rpc.limits import WatcherTooSlow

T = TypeVar("T")


class StreamBuffer(Generic[T]):
    """Up to ``limit`` items pushed for one open stream of ``key`` (a game id, a player).

    Attributes:
        key: what the stream follows (named in the too-slow refusal).
        dropped: True once an offer did not fit; the stream then ends.
    """

    def __init__(self, key: str, limit: int) -> None:
        self.key = key
        self._limit = limit
        self._items: deque[T] = deque()
        self._wake = asyncio.Event()
        self.dropped = False

    def offer(self, items: list[T]) -> bool:
        """Buffer ``items``; False (and the stream is dropped) if they do not fit."""
        if self.dropped:
            return False
        if len(self._items) + len(items) > self._limit:
            self.dropped = True
            self._items.clear()
        else:
            self._items.extend(items)
        self._wake.set()
        return not self.dropped

    async def take(self) -> list[T]:
        """Every buffered item, waiting for one. Raises WatcherTooSlow once dropped."""
        while not self._items and not self.dropped:
            self._wake.clear()
            await self._wake.wait()
        if self.dropped:
            raise WatcherTooSlow(self.key, self._limit)
        items = list(self._items)
        self._items.clear()
        return items


def stop_if_cancelled() -> None:
    """Raise CancelledError when the current task was asked to stop but an await it
    made hid that request: redis-py 8.2's blocking connection pool can swallow a
    cancellation that lands as a command completes, the command then returns as if
    nothing happened, and the task's request stays pending (``Task.cancelling()``).
    Called after the Redis commands of a stream or a loop that would otherwise wait
    for ever (a WatchPlayer or WatchGame stream whose client left at that moment kept
    its subscription and its watcher slot; found by issue 32's players story)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
