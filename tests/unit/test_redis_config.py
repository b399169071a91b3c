"""Redis configuration: a URL or cluster seed nodes, flags before environment."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from services.cli import build_parser
from services.engine.store.redis_client import RedisConfig, create_redis_client, parse_nodes


def test_parse_nodes() -> None:
    assert parse_nodes("10.0.0.1:7000, redis-2:7001,") == (("10.0.0.1", 7000), ("redis-2", 7001))
    assert parse_nodes("[::1]:7000") == (("::1", 7000),)
    for bad in ("", "host", "host:port", ":7000"):
        with pytest.raises(ValueError):
            parse_nodes(bad)


def test_resolve_prefers_flags_then_cluster_env_then_url_env() -> None:
    env = {"REDIS_URL": "redis://env:6379/0", "REDIS_CLUSTER_NODES": "c1:7000,c2:7001"}
    assert RedisConfig.resolve("redis://flag:1/0", None, env) == RedisConfig(url="redis://flag:1/0")
    assert RedisConfig.resolve(None, "n:7000", env) == RedisConfig(cluster_nodes=(("n", 7000),))
    assert RedisConfig.resolve(None, None, env) == RedisConfig.cluster("c1:7000,c2:7001")
    assert RedisConfig.resolve(None, None, {"REDIS_URL": "redis://e/0"}) == RedisConfig(
        url="redis://e/0"
    )
    assert RedisConfig.resolve(None, None, {}) is None
    with pytest.raises(ValueError):
        RedisConfig.resolve("redis://a/0", "n:7000", {})
    with pytest.raises(ValueError):
        RedisConfig()


async def test_the_factory_builds_the_matching_client() -> None:
    standalone = create_redis_client("redis://127.0.0.1:1/0")
    cluster = create_redis_client(RedisConfig.cluster("127.0.0.1:1,127.0.0.1:2"))
    assert isinstance(standalone, Redis) and isinstance(cluster, RedisCluster)
    assert RedisConfig.cluster("h:1,h:2").describe() == "cluster:h:1,h:2"
    await standalone.aclose()
    await cluster.aclose()


@pytest.mark.parametrize("command", ["serve", "engine", "gateway", "bot"])
def test_every_service_command_takes_cluster_nodes(command: str) -> None:
    args = build_parser().parse_args([command, "--redis-cluster-nodes", "h:7000,h:7001"])
    assert args.redis_cluster_nodes == "h:7000,h:7001"


def test_a_cluster_logs_in_with_the_username_and_password_from_the_environment() -> None:
    env = {"REDIS_CLUSTER_NODES": "c1:7000", "REDIS_USERNAME": "teoti-bot", "REDIS_PASSWORD": "pw"}
    config = RedisConfig.resolve(None, None, env)
    assert config == RedisConfig.cluster("c1:7000", "teoti-bot", "pw")
    assert RedisConfig.resolve(None, "n:1", env) == RedisConfig.cluster("n:1", "teoti-bot", "pw")
    assert config is not None and "pw" not in repr(config)
    assert config.describe() == "cluster:teoti-bot@c1:7000"
    # A URL carries its own login: the variables do not change it.
    url = "redis://teoti-gateway:secret@h:6379/0"
    assert RedisConfig.resolve(url, None, env) == RedisConfig(url=url)


def test_logged_urls_hide_the_password() -> None:
    assert RedisConfig(url="redis://teoti-bot:s3cret@h:6379/0").describe() == (
        "redis://teoti-bot:***@h:6379/0"
    )
    assert RedisConfig(url="rediss://:s3cret@h:6379/0").describe() == "rediss://:***@h:6379/0"
    assert RedisConfig(url="redis://h:6379/0").describe() == "redis://h:6379/0"


async def test_a_url_login_reaches_the_client() -> None:
    client = create_redis_client("redis://teoti-bot:s3cret@127.0.0.1:1/0")
    assert isinstance(client, Redis)
    kwargs = client.connection_pool.connection_kwargs
    assert (kwargs["username"], kwargs["password"]) == ("teoti-bot", "s3cret")
    await client.aclose()
    cluster = RedisConfig.cluster("127.0.0.1:1", "teoti-bot", "s3cret").client()
    assert isinstance(cluster, RedisCluster)
    kwargs = cluster.connection_kwargs
    assert (kwargs["username"], kwargs["password"]) == ("teoti-bot", "s3cret")
    await cluster.aclose()
