"""Which Redis a process talks to, and the one place its client is built.

A deployment uses either one Redis server (``REDIS_URL`` / ``--redis-url``) or a Redis
Cluster given by seed nodes (``REDIS_CLUSTER_NODES=host:port,host:port`` /
``--redis-cluster-nodes``). On a cluster the client is redis-py's
``redis.asyncio.cluster.RedisCluster``: it learns the slot map from any seed node and
follows MOVED/ASK redirections. Every key of a game and of its shard carries the shard's
hash tag (see :mod:`services.engine.adapters.keys`), so each command and the append script
touch a single slot.

Each process should log in as its own Redis ACL user (docs/operations.md, "Redis
users"): the gateway and the bot worker must not read the games' secret seeds. A URL
carries the user as ``redis://USER:PASSWORD@host:port/db``; a cluster's seed nodes
cannot, so the cluster client takes them from ``REDIS_USERNAME`` / ``REDIS_PASSWORD``.

A standalone Redis on this machine can be reached through its Unix domain socket,
``unix:///path/to/redis.sock?db=N`` (``unix://USER:PASSWORD@/path?db=N`` with a login):
the socket file's mode decides who may connect, and a round trip costs the kernel less
than TCP loopback. ``teoti serve`` gives its embedded Redis one (services.embedded_redis).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

RedisClient: TypeAlias = "aioredis.Redis | RedisCluster"
"""What the store and the bot queue accept: a standalone or a cluster client."""

POOL_SIZE = 64
"""Redis connections one process may open (per cluster node on a cluster), unless told
otherwise (``--redis-pool-size``). A call needing one when all are busy waits up to
POOL_TIMEOUT_S for one to be returned, then fails (UNAVAILABLE), instead of failing at
once. What holds connections: every in-flight command (a pipelined round trip, about a
millisecond), plus in a gateway one per watched shard for the WatchGame read loops (at
most ``--shards``, default 16, whatever the number of watchers) and in a bot worker one
per shard read loop. See docs/operations.md, "Connection pools"."""
POOL_TIMEOUT_S = 5.0
"""Seconds a command waits for a free pooled connection before failing."""

URL_ENV = "REDIS_URL"
CLUSTER_ENV = "REDIS_CLUSTER_NODES"
USERNAME_ENV = "REDIS_USERNAME"
PASSWORD_ENV = "REDIS_PASSWORD"


def resilience(tcp: bool = True) -> dict[str, Any]:
    """Client options that ride out a Redis restart or failover: a command failing on a
    pooled connection the restart left broken is retried up to 3 times on a new one
    (about 50, 100, 200 ms apart, capped at 500 ms), and on TCP (``tcp``) keepalive finds
    dead peers (a Unix socket has none: its peer is on this machine, and redis-py's socket
    connection refuses the option). (No ``health_check_interval``: its PING is a command
    the ACL users are not granted, and the retry replaces a stale connection as promptly.)
    A retried append is safe: it is compare-and-set on the version and deduplicated on
    its command id."""
    options: dict[str, Any] = {
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, ConnectionResetError],
    }
    if tcp:
        options["socket_keepalive"] = True
    return options


def parse_nodes(text: str) -> tuple[tuple[str, int], ...]:
    """``"host:port,host:port"`` -> ((host, port), ...); ValueError when malformed."""
    nodes: list[tuple[str, int]] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"cluster node {item!r} is not host:port")
        nodes.append((host.strip("[]"), int(port)))
    if not nodes:
        raise ValueError("no cluster seed nodes given")
    return tuple(nodes)


def check_url(url: str) -> str:
    """``url`` if redis-py can connect to it: ``redis://`` or ``rediss://`` with a host,
    or ``unix://`` with a socket path. Raises ValueError naming the accepted forms (the
    URL itself is not repeated: a malformed one may hide its password from redaction)."""
    parts = urlsplit(url)
    host_given = parts.scheme in ("redis", "rediss") and bool(parts.hostname)
    socket_given = parts.scheme == "unix" and bool(parts.path) and not parts.path.endswith("/")
    if not (host_given or socket_given):
        raise ValueError(
            "a Redis URL is redis://[USER:PASSWORD@]HOST:PORT/DB, rediss://... (TLS) or "
            f"unix://[USER:PASSWORD@]/PATH/TO/redis.sock?db=DB; the one given (scheme "
            f"{parts.scheme!r}) is none of these"
        )
    return url


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***``, in the login and in a ``password``
    query parameter (redis-py reads both; URLs are logged, passwords never)."""
    parts = urlsplit(url)
    if parts.password is None and "password" not in unquote(parts.query):
        return url
    if parts.password is not None:
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{user}:***@{host}")
    if parts.query:
        pieces = [
            f"{name}=***" if unquote(name) == "password" else piece
            for piece in parts.query.split("&")
            for name in [piece.partition("=")[0]]
        ]
        parts = parts._replace(query="&".join(pieces))
    # Not urlunsplit: it drops the empty host of unix:///path (giving unix:/path).
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return f"{parts.scheme}://{parts.netloc}{parts.path}{query}{fragment}"


@dataclass(frozen=True, slots=True)
class RedisConfig:
    """A standalone Redis (``url``) or a Redis Cluster (``cluster_nodes``), never both.

    ``username``/``password`` are the cluster's ACL login (a URL carries its own).
    """

    url: str | None = None
    cluster_nodes: tuple[tuple[str, int], ...] = ()
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if bool(self.url) == bool(self.cluster_nodes):
            raise ValueError("give exactly one of a Redis URL and Redis Cluster seed nodes")
        if self.url:
            check_url(self.url)

    @classmethod
    def standalone(cls, url: str) -> RedisConfig:
        """One Redis server at ``url`` (``redis://host:port/db``, ``rediss://...`` or
        ``unix:///path/to/redis.sock?db=N``). Raises ValueError for another form."""
        return cls(url=url)

    @classmethod
    def cluster(
        cls, nodes: str, username: str | None = None, password: str | None = None
    ) -> RedisConfig:
        """A Redis Cluster reached through the seed nodes ``host:port,host:port``, logging
        in as ``username`` with ``password`` (None: the default user / no password)."""
        return cls(cluster_nodes=parse_nodes(nodes), username=username, password=password)

    @classmethod
    def resolve(
        cls,
        url: str | None = None,
        cluster_nodes: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> RedisConfig | None:
        """Flags first, then ``REDIS_CLUSTER_NODES``, then ``REDIS_URL``; None if none.

        A cluster logs in with ``REDIS_USERNAME`` / ``REDIS_PASSWORD`` when they are set.
        Raises ValueError when both flags are given or the nodes are malformed.
        """
        if url and cluster_nodes:
            raise ValueError("give either a Redis URL or Redis Cluster nodes, not both")
        env = os.environ if environ is None else environ
        login = (env.get(USERNAME_ENV) or None, env.get(PASSWORD_ENV) or None)
        if cluster_nodes:
            return cls.cluster(cluster_nodes, *login)
        if url:
            return cls.standalone(url)
        if env.get(CLUSTER_ENV):
            return cls.cluster(env[CLUSTER_ENV], *login)
        if env.get(URL_ENV):
            return cls.standalone(env[URL_ENV])
        return None

    def with_login(self, username: str, password: str) -> RedisConfig:
        """The same Redis, logging in as ``username`` with ``password`` (a URL's own
        login is replaced). Used by a process that holds a second Redis user (the
        gateway's tournaments, services.app.run_gateway). Characters that are not
        URL-safe in either are percent-encoded."""
        if not self.url:
            return replace(self, username=username, password=password)
        parts = urlsplit(self.url)
        host = parts.netloc.rpartition("@")[2]
        login = f"{quote(username, safe='')}:{quote(password, safe='')}"
        return replace(self, url=urlunsplit(parts._replace(netloc=f"{login}@{host}")))

    @property
    def is_cluster(self) -> bool:
        """True for a Redis Cluster."""
        return bool(self.cluster_nodes)

    def describe(self) -> str:
        """For logs: the URL without its password, or ``cluster:[user@]host:port,...``."""
        if self.url:
            return redact_url(self.url)
        user = f"{self.username}@" if self.username else ""
        return f"cluster:{user}" + ",".join(f"{host}:{port}" for host, port in self.cluster_nodes)

    def client(self, pool_size: int = POOL_SIZE, **kwargs: Any) -> RedisClient:
        """A new client with ``decode_responses=True`` and at most ``pool_size``
        connections (per node on a cluster); nothing connects until first use.

        A standalone client's pool blocks up to POOL_TIMEOUT_S for a free connection
        (then redis ConnectionError); a cluster client's fails at once beyond the size
        (redis MaxConnectionsError), so size a cluster's pool with room to spare.
        """
        if self.url:
            options = {**resilience(tcp=urlsplit(self.url).scheme != "unix"), **kwargs}
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url,
                decode_responses=True,
                max_connections=pool_size,
                timeout=POOL_TIMEOUT_S,
                **options,
            )
            # The retry rides on the client too: redis-py retries commands there.
            return aioredis.Redis(
                connection_pool=pool,
                retry=options["retry"],
                retry_on_error=options["retry_on_error"],
            )
        return RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in self.cluster_nodes],
            decode_responses=True,
            username=self.username,
            password=self.password,
            max_connections=pool_size,
            **kwargs,
        )


def as_config(target: RedisConfig | str) -> RedisConfig:
    """Accept a plain URL where a config is expected (tests, older callers)."""
    return target if isinstance(target, RedisConfig) else RedisConfig.standalone(target)


def create_redis_client(
    target: RedisConfig | str, pool_size: int = POOL_SIZE, **kwargs: Any
) -> RedisClient:
    """The right client for ``target`` (see :meth:`RedisConfig.client`)."""
    return as_config(target).client(pool_size, **kwargs)
