"""One writer at a time per tournament within a process.

Every tournament command appends at the version it read (optimistic concurrency), so
commands racing on one tournament retry each other's conflicts; with a few dozen
registrations in flight (the sign-up rush of an open tournament) each attempt mostly
loses, and a bounded retry loop gives up (``busy``). Taking turns within the process
removes those conflicts; the retries are left for the other processes' writers (other
gateways, the directors), which a short jittered pause keeps apart.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

BACKOFF_S = 0.005
"""First retry pause's upper bound, doubled each attempt (seconds)."""


class TournamentWriters:
    """An asyncio lock per tournament id, dropped once nobody holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @asynccontextmanager
    async def turn(self, tournament_id: str) -> AsyncIterator[None]:
        """Hold ``tournament_id``'s lock for the block (FIFO among this process's
        writers)."""
        lock = self._locks.setdefault(tournament_id, asyncio.Lock())
        self._users[tournament_id] = self._users.get(tournament_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[tournament_id] -= 1
            if not self._users[tournament_id]:
                del self._users[tournament_id]
                del self._locks[tournament_id]

    def __len__(self) -> int:
        """Tournaments with a writer now (for tests: nothing is kept after)."""
        return len(self._locks)


async def pause_before_retry(attempt: int) -> None:
    """Sleep a random 0..BACKOFF_S * 2**attempt seconds (``attempt`` from 0), so two
    processes' writers that conflicted do not meet again at once."""
    await asyncio.sleep(random.uniform(0, BACKOFF_S * 2**attempt))
