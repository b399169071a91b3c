"""Limits per client, not per connection: token buckets keyed by who calls.

A gRPC peer string names one connection (``ipv4:127.0.0.1:54321``), so keying on it let
500 fresh connections get 500 budgets (issue 12). Now (:class:`ClientRateLimiter`):

- a call carrying a seat token spends from that token's bucket (``rate`` per second,
  bursts of ``burst``), whichever connection or address it comes from, and also from
  its address's ceiling bucket (``address_factor`` x ``rate``), so inventing tokens
  buys no more than the ceiling;
- a call without one spends from its address's bucket (the peer's IP, without the port).

Game creation has its own quota per caller (:class:`CreationQuota`): ``per_hour`` games,
bursts of ``burst``, keyed by the caller's address. Both tables forget the least
recently seen keys beyond ``max_clients``. Both are per gateway process (N gateways
admit N times as much); see docs/operations.md, "Limits per client".
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

DEFAULT_RATE = 200.0
DEFAULT_BURST = 400.0
DEFAULT_ADDRESS_FACTOR = 10.0
"""An address's ceiling over all the seat tokens it sends, in multiples of the rate."""
DEFAULT_WATCHERS_PER_CLIENT = 1000
"""WatchGame streams one client may hold open at once."""
DEFAULT_PLAY_STREAMS_PER_CLIENT = 1000
"""Play streams one client may hold open at once (a player needs one; a bot farm or a
benchmark behind one address, one per seat)."""
UNARY_RESERVE = 4_000
"""Calls in flight a process keeps for unary calls: streams may take the rest of its
limit (services.rpc.server.MAX_CONCURRENT_RPCS), never these (issue 30 item 3)."""
DEFAULT_STREAMS = 16_000
"""WatchGame and Play streams held at once in one gateway process, every face together."""
DEFAULT_STREAMS_PER_ADDRESS = 1_000
"""Streams one caller address may hold of DEFAULT_STREAMS (a 16th: at least 16
addresses get their whole share, and none can take more)."""
DEFAULT_CREATES_PER_HOUR = 600.0
DEFAULT_CREATES_BURST = 60.0
DEFAULT_ACCOUNTS_PER_HOUR = 60.0
"""Player registrations and credential creations per caller address per hour (issue 32)."""
DEFAULT_ACCOUNTS_BURST = 10.0
DEFAULT_LOBBY_PER_HOUR = 600.0
"""Lobby tables opened and seeks made per caller address per hour (LobbyService's
quota, issue 32; ``--lobby-per-hour``)."""
DEFAULT_LOBBY_BURST = 60.0
"""The lobby quota's burst: at most this many at once, and never more than the hourly
figure (a lower ``--lobby-per-hour`` is then the burst too: :func:`lobby_burst`)."""
MAX_REQUEST_BYTES = 256 * 1024
"""Largest request message the public server accepts (RESOURCE_EXHAUSTED beyond)."""


def lobby_burst(per_hour: float) -> float:
    """The lobby quota's burst for ``per_hour`` tables and seeks an hour: DEFAULT_LOBBY_BURST,
    or ``per_hour`` when lower (an operator who allows 10 an hour allows no burst of 60);
    ``per_hour`` <= 0 (no quota) keeps the default, which is then unused."""
    return min(DEFAULT_LOBBY_BURST, per_hour) if per_hour > 0 else DEFAULT_LOBBY_BURST


WAIT_STEP_S = 0.001
"""A stated wait is rounded up to this (and is never less)."""


def stated_wait(seconds: float) -> float:
    """``seconds`` rounded up to the next WAIT_STEP_S, at least one step: the wait a
    refusal states, after which the call is admitted (issue 30 item 9: a fraction of a
    token at 200 per second is under 5 ms, printed as "0.00s" and rounded to nothing in
    the RetryInfo, so a client waiting what it was told was refused again)."""
    steps = math.ceil(round(seconds / WAIT_STEP_S, 6))
    return max(1, steps) * WAIT_STEP_S


class RateLimited(Exception):
    """The client spent its request budget; retry after ``retry_after_s`` (seconds,
    rounded up to whole milliseconds by :func:`stated_wait`: a call from the same
    client then is admitted, unless another of its calls took the token first)."""

    def __init__(self, peer: str, retry_after_s: float) -> None:
        wait = stated_wait(retry_after_s)
        super().__init__(f"rate limit exceeded for this client; retry in {wait:.3f}s")
        self.peer = peer
        self.retry_after_s = wait


class WatcherTooSlow(Exception):
    """A WatchGame stream fell ``buffered`` events behind and was dropped (see
    :mod:`services.gateway.watch_hub`); watch again from the last version received."""

    def __init__(self, game_id: str, buffered: int) -> None:
        super().__init__(
            f"this watcher of {game_id} fell {buffered} events behind and was dropped; "
            "watch again from the last version received"
        )
        self.game_id = game_id
        self.buffered = buffered


class TooManyWatchers(Exception):
    """The client already has ``limit`` WatchGame streams open."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"this client already has {limit} WatchGame streams open; close one first")
        self.limit = limit


class TooManyPlayStreams(Exception):
    """The client already has ``limit`` Play streams open."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"this client already has {limit} Play streams open; close one first")
        self.limit = limit


class TooManyStreams(Exception):
    """The caller's address holds its share of the process's streams (``scope``
    "address"), or the process holds all it allows ("server")."""

    def __init__(self, limit: int, scope: str) -> None:
        if scope == "address":
            text = (
                f"this address already holds {limit} open streams (WatchGame and Play "
                "together); close one first"
            )
        else:
            text = (
                f"the server holds its {limit} open streams; try again later (unary "
                "calls are still served)"
            )
        super().__init__(text)
        self.limit = limit
        self.scope = scope


class StreamBudget:
    """Streams (WatchGame and Play, on every face sharing this object) held at once in
    one process: at most ``total``, and at most ``per_address`` of them per caller
    address, however many seat tokens it sends (issue 30 item 3: two addresses held
    20,000 idle streams, every call the process allowed, and a third address's GetGame
    was refused 222 of 239 times). ``total`` stays below the process's limit of calls
    in flight, so unary calls always have room; the share per address keeps a few
    addresses from taking the whole budget. ``per_address`` <= 0: ``total``.

    Raises :class:`TooManyStreams` from :meth:`hold`.
    """

    def __init__(
        self, total: int = DEFAULT_STREAMS, per_address: int = DEFAULT_STREAMS_PER_ADDRESS
    ) -> None:
        self.total = total
        self.per_address = per_address if per_address > 0 else total
        self._held = 0
        self._by_address: dict[str, int] = {}

    @property
    def held(self) -> int:
        """Streams held now."""
        return self._held

    @contextlib.contextmanager
    def hold(self, address: str) -> Iterator[None]:
        """Count one stream of ``address`` (the peer's IP, :func:`peer_address`) while
        inside; TooManyStreams if the address has its share or the process is full."""
        mine = self._by_address.get(address, 0)
        if mine >= self.per_address:
            raise TooManyStreams(self.per_address, "address")
        if self._held >= self.total:
            raise TooManyStreams(self.total, "server")
        self._by_address[address] = mine + 1
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            left = self._by_address[address] - 1
            if left:
                self._by_address[address] = left
            else:
                del self._by_address[address]


class WatcherLimit:
    """At most ``per_client`` WatchGame streams open at once per client key (a seat
    token's digest, else the address; see :meth:`ClientRateLimiter.client_key`), and at
    most ``address_factor`` x ``per_client`` per caller address over every key it uses:
    a stream's token is not checked when it opens, so without that ceiling an address
    inventing a token per stream could hold any number. ``per_client`` <= 0: no limit.
    Without it one client could hold every stream the server allows
    (services.rpc.server.MAX_CONCURRENT_RPCS) and starve the others.
    """

    refusal: type[TooManyWatchers] | type[TooManyPlayStreams] = TooManyWatchers
    """What :meth:`hold` raises beyond the limit."""

    def __init__(
        self,
        per_client: int = DEFAULT_WATCHERS_PER_CLIENT,
        address_factor: float = DEFAULT_ADDRESS_FACTOR,
    ) -> None:
        self._limit = per_client
        self._address_limit = int(per_client * max(address_factor, 1.0))
        self._open: dict[str, int] = {}

    @contextlib.contextmanager
    def hold(self, key: str, address: str = "") -> Iterator[None]:
        """Count one open stream of ``key``, and of the caller's ``address`` (the peer's
        IP, :func:`peer_address`; "" counts none), while inside. Raises the refusal
        (TooManyWatchers, TooManyPlayStreams) when either is at its limit."""
        if self._limit <= 0:
            yield
            return
        counted = [(key, self._limit)]
        if address:
            counted.append(("address:" + address, self._address_limit))
        if any(self._open.get(name, 0) >= limit for name, limit in counted):
            raise self.refusal(self._limit)
        for name, _ in counted:
            self._open[name] = self._open.get(name, 0) + 1
        try:
            yield
        finally:
            for name, _ in counted:
                left = self._open[name] - 1
                if left:
                    self._open[name] = left
                else:
                    del self._open[name]


class PlayStreamLimit(WatcherLimit):
    """At most ``per_client`` GameService.Play streams open at once per client key, as
    :class:`WatcherLimit` counts watchers; raises :class:`TooManyPlayStreams`."""

    refusal = TooManyPlayStreams

    def __init__(
        self,
        per_client: int = DEFAULT_PLAY_STREAMS_PER_CLIENT,
        address_factor: float = DEFAULT_ADDRESS_FACTOR,
    ) -> None:
        super().__init__(per_client, address_factor)


@dataclass(slots=True)
class TokenBucket:
    """``tokens`` refill at ``rate`` per second up to ``burst``."""

    rate: float
    burst: float
    tokens: float
    updated: float

    def wait(self, now: float) -> float:
        """Refill up to ``now``; returns 0 if a token is there, else seconds until one is."""
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        # The epsilon: a client that waited exactly the stated time finds a whole token
        # even when the refill's floating-point sum lands a hair below 1.
        if self.tokens >= 1 - 1e-9:
            return 0.0
        return (1 - self.tokens) / self.rate

    def take(self, now: float) -> float:
        """Spend one token; returns 0 if granted, else seconds until one is available
        (nothing is spent then)."""
        wait = self.wait(now)
        if not wait:
            self.tokens -= 1
        return wait


def peer_address(peer: str) -> str:
    """The caller's address in a gRPC peer string, without the connection's port:
    ``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``, ``ipv6:[::1]:5678`` -> ``ipv6:[::1]``;
    anything else (``unix:...``) whole."""
    kind, sep, rest = peer.partition(":")
    if not sep or kind not in ("ipv4", "ipv6"):
        return peer
    host, colon, port = rest.rpartition(":")
    return f"{kind}:{host}" if colon and port.isdigit() else peer


def token_key(token: str) -> str:
    """The bucket key of a seat token: a digest, so the table never holds a token."""
    return "seat:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def hashed_token_key(token_hash: str) -> str:
    """:func:`token_key` from the token's SHA-256 hex digest (``hash_token``, the same
    digest for every token that is valid UTF-8, as every gRPC string is), for a caller
    that has it already."""
    return "seat:" + token_hash[:32]


class ClientRateLimiter:
    """Token buckets keyed by client (a seat token's digest, else the peer's address).

    Args:
        rate: requests per second per client (<= 0 disables limiting).
        burst: bucket size.
        max_peers: clients remembered (LRU).
        clock: monotonic seconds (injected for tests).
        address_factor: an address's ceiling, in multiples of ``rate``, over every seat
            token it sends (bounds a client inventing tokens for fresh buckets).
    """

    def __init__(
        self,
        rate: float = DEFAULT_RATE,
        burst: float = DEFAULT_BURST,
        max_peers: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
        address_factor: float = DEFAULT_ADDRESS_FACTOR,
    ) -> None:
        self._rate = rate
        self._burst = burst
        self._max_peers = max_peers
        self._clock = clock
        self._factor = address_factor
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, key: str, rate: float, burst: float, now: float) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(rate, burst, burst, now)
            self._buckets[key] = bucket
            while len(self._buckets) > self._max_peers:
                self._buckets.popitem(last=False)
        self._buckets.move_to_end(key)
        return bucket

    def _spend(self, *keyed: tuple[str, float, float]) -> None:
        """Spend one token from each ``(key, rate, burst)`` bucket, or from none: raise
        RateLimited with the longest wait if any of them is empty (a refused call costs
        nothing, so a seat hammering past its own rate does not spend its address's
        ceiling, which other seats behind that address share)."""
        now = self._clock()
        buckets = [(self._bucket(key, rate, burst, now), key) for key, rate, burst in keyed]
        wait, key = max((bucket.wait(now), key) for bucket, key in buckets)
        if wait > 0:
            raise RateLimited(key, wait)
        for bucket, _ in buckets:
            bucket.tokens -= 1

    def check(self, key: str) -> None:
        """Admit one request from the client ``key`` or raise RateLimited."""
        if self._rate <= 0:
            return
        self._spend((key, self._rate, self._burst))

    @staticmethod
    def client_key(peer: str, token: str = "") -> str:
        """Who a call comes from: the seat token's digest, else the peer's address."""
        return token_key(token) if token else peer_address(peer)

    def admit(self, peer: str, token: str = "", token_hash: str | None = None) -> None:
        """Admit one call from gRPC ``peer`` carrying seat ``token`` ("" if none), or
        raise RateLimited (see the module doc for which buckets it spends).
        ``token_hash``: the token's ``hash_token`` digest when the caller has it (the
        bucket key is then not hashed again)."""
        if self._rate <= 0:
            return
        address = peer_address(peer)
        if not token:
            self._spend((address, self._rate, self._burst))
            return
        factor = max(self._factor, 1.0)
        key = token_key(token) if token_hash is None else hashed_token_key(token_hash)
        self._spend(
            ("ceiling:" + address, self._rate * factor, self._burst * factor),
            (key, self._rate, self._burst),
        )


PeerRateLimiter = ClientRateLimiter
"""The former name (the limiter was per connection); same class."""


class CreationQuota:
    """Games a caller may create: ``per_hour`` per hour with bursts of ``burst``, keyed by
    the caller's address (``peer_address``). ``per_hour`` <= 0 disables the quota.

    Raises :class:`RateLimited` (RESOURCE_EXHAUSTED, reason ``rate_limited``, with
    ``retry_after_s``) from :meth:`admit` when spent.
    """

    def __init__(
        self,
        per_hour: float = DEFAULT_CREATES_PER_HOUR,
        burst: float = DEFAULT_CREATES_BURST,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._limiter = ClientRateLimiter(per_hour / 3600.0, burst, max_clients, clock)
        self._enabled = per_hour > 0

    def admit(self, peer: str) -> None:
        """Spend one game creation of ``peer``'s address or raise RateLimited."""
        if self._enabled:
            self._limiter.check("create:" + peer_address(peer))
