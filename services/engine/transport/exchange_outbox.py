"""Messages queued by many tasks and written by one, coalesced into batches (issue 16).

Each grpc message costs a ``sendmsg`` and a wake-up of grpc's polling thread on both
sides, whatever its size. An :class:`Outbox` lets the tasks that have something to send
in the same event-loop turn share one message: they only queue, and its writer takes
everything queued by the time it runs (the next turn, or once its previous write is
done). Nothing ever waits for company: a lone message goes out in the next turn, with no
timer.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

Item = TypeVar("Item")

FRAMING_BYTES = 8
"""Allowance per item for its tag and length in the batch message (a repeated field)."""


class Outbox(Generic[Item]):
    """Items :meth:`put` by any task, handed to ``send`` in batches by :meth:`run`.

    ``send(batch)`` writes one batch (a non-empty list, in the order put); it is never
    called again before it returns (grpc allows one write at a time). ``size(item)`` is
    the item's serialized size in bytes: a batch holds at most ``max_bytes`` (framing
    included), except a single larger item, which goes alone.
    """

    def __init__(
        self,
        send: Callable[[list[Item]], Awaitable[None]],
        size: Callable[[Item], int],
        max_bytes: int,
    ) -> None:
        self._send = send
        self._size = size
        self._max_bytes = max_bytes
        self._items: deque[Item] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self._closed = False

    def put(self, item: Item) -> None:
        """Queue ``item`` (ignored once closed: nothing would write it)."""
        if self._closed:
            return
        self._items.append(item)
        self._wake()

    def close(self) -> None:
        """Take nothing more: :meth:`run` returns once what is queued is sent."""
        self._closed = True
        self._wake()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    async def run(self) -> None:
        """Send what is queued, batch by batch, until closed and empty.

        Raises whatever ``send`` raises (the items of that batch and those still queued
        are not sent).
        """
        loop = asyncio.get_running_loop()
        while True:
            if not self._items:
                if self._closed:
                    return
                self._wakeup = loop.create_future()
                await self._wakeup
                continue
            await self._send(self._take())

    def _take(self) -> list[Item]:
        items = self._items
        first = items.popleft()
        batch = [first]
        if items:
            room = self._max_bytes - self._size(first) - FRAMING_BYTES
            while items and (size := self._size(items[0]) + FRAMING_BYTES) <= room:
                batch.append(items.popleft())
                room -= size
        return batch

    def _wake(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)
