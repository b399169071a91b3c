"""Per-connection rate limiting: one token bucket per gRPC peer (``context.peer()``).

A gRPC peer string names one connection (``ipv4:127.0.0.1:54321``), so each connection
gets ``rate`` requests per second with bursts of ``burst``; the least recently seen peers
are forgotten beyond ``max_peers`` so the table stays bounded.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_RATE = 200.0
DEFAULT_BURST = 400.0
MAX_REQUEST_BYTES = 256 * 1024
"""Largest request message the public server accepts (RESOURCE_EXHAUSTED beyond)."""


class RateLimited(Exception):
    """The connection spent its request budget; retry after ``retry_after_s``."""

    def __init__(self, peer: str, retry_after_s: float) -> None:
        super().__init__(f"rate limit exceeded for this connection; retry in {retry_after_s:.2f}s")
        self.peer = peer
        self.retry_after_s = retry_after_s


@dataclass(slots=True)
class TokenBucket:
    """``tokens`` refill at ``rate`` per second up to ``burst``."""

    rate: float
    burst: float
    tokens: float
    updated: float

    def take(self, now: float) -> float:
        """Spend one token; returns 0 if granted, else seconds until one is available."""
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class PeerRateLimiter:
    """Token buckets keyed by peer.

    Args:
        rate: requests per second per peer (<= 0 disables limiting).
        burst: bucket size.
        max_peers: peers remembered (LRU).
        clock: monotonic seconds (injected for tests).
    """

    def __init__(
        self,
        rate: float = DEFAULT_RATE,
        burst: float = DEFAULT_BURST,
        max_peers: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rate = rate
        self._burst = burst
        self._max_peers = max_peers
        self._clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, peer: str) -> None:
        """Admit one request from ``peer`` or raise RateLimited."""
        if self._rate <= 0:
            return
        now = self._clock()
        bucket = self._buckets.get(peer)
        if bucket is None:
            bucket = TokenBucket(self._rate, self._burst, self._burst, now)
            self._buckets[peer] = bucket
            while len(self._buckets) > self._max_peers:
                self._buckets.popitem(last=False)
        self._buckets.move_to_end(peer)
        wait = bucket.take(now)
        if wait > 0:
            raise RateLimited(peer, wait)
