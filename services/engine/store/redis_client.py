"""Which Redis a process talks to, and the one place its client is built.

A deployment uses either one Redis server (``REDIS_URL`` / ``--redis-url``) or a Redis
Cluster given by seed nodes (``REDIS_CLUSTER_NODES=host:port,host:port`` /
``--redis-cluster-nodes``). On a cluster the client is redis-py's
``redis.asyncio.cluster.RedisCluster``: it learns the slot map from any seed node and
follows MOVED/ASK redirections. Every key of a game and of its shard carries the shard's
hash tag (see :mod:`services.engine.store.keys`), so each command and the append script
touch a single slot.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster

RedisClient: TypeAlias = "aioredis.Redis | RedisCluster"
"""What the store and the bot queue accept: a standalone or a cluster client."""

URL_ENV = "REDIS_URL"
CLUSTER_ENV = "REDIS_CLUSTER_NODES"


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


@dataclass(frozen=True, slots=True)
class RedisConfig:
    """A standalone Redis (``url``) or a Redis Cluster (``cluster_nodes``), never both."""

    url: str | None = None
    cluster_nodes: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if bool(self.url) == bool(self.cluster_nodes):
            raise ValueError("give exactly one of a Redis URL and Redis Cluster seed nodes")

    @classmethod
    def standalone(cls, url: str) -> RedisConfig:
        """One Redis server at ``url`` (``redis://host:port/db``)."""
        return cls(url=url)

    @classmethod
    def cluster(cls, nodes: str) -> RedisConfig:
        """A Redis Cluster reached through the seed nodes ``host:port,host:port``."""
        return cls(cluster_nodes=parse_nodes(nodes))

    @classmethod
    def resolve(
        cls,
        url: str | None = None,
        cluster_nodes: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> RedisConfig | None:
        """Flags first, then ``REDIS_CLUSTER_NODES``, then ``REDIS_URL``; None if none.

        Raises ValueError when both flags are given or the nodes are malformed.
        """
        if url and cluster_nodes:
            raise ValueError("give either a Redis URL or Redis Cluster nodes, not both")
        if cluster_nodes:
            return cls.cluster(cluster_nodes)
        if url:
            return cls.standalone(url)
        env = os.environ if environ is None else environ
        if env.get(CLUSTER_ENV):
            return cls.cluster(env[CLUSTER_ENV])
        if env.get(URL_ENV):
            return cls.standalone(env[URL_ENV])
        return None

    @property
    def is_cluster(self) -> bool:
        """True for a Redis Cluster."""
        return bool(self.cluster_nodes)

    def describe(self) -> str:
        """For logs: the URL, or ``cluster:host:port,...``."""
        if self.url:
            return self.url
        return "cluster:" + ",".join(f"{host}:{port}" for host, port in self.cluster_nodes)

    def client(self, **kwargs: Any) -> RedisClient:
        """A new client with ``decode_responses=True``; nothing connects until first use."""
        if self.url:
            return aioredis.from_url(self.url, decode_responses=True, **kwargs)
        return RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in self.cluster_nodes],
            decode_responses=True,
            **kwargs,
        )


def as_config(target: RedisConfig | str) -> RedisConfig:
    """Accept a plain URL where a config is expected (tests, older callers)."""
    return target if isinstance(target, RedisConfig) else RedisConfig.standalone(target)


def create_redis_client(target: RedisConfig | str, **kwargs: Any) -> RedisClient:
    """The right client for ``target`` (see :meth:`RedisConfig.client`)."""
    return as_config(target).client(**kwargs)
