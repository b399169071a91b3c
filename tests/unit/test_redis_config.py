"""Redis configuration: a URL or cluster seed nodes, flags before environment."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import UnixDomainSocketConnection

from services.cli.commands import build_parser
from services.cli.errors import UsageError
from services.cli.service_options import redis_config
from services.engine.adapters.redis_client import RedisConfig, create_redis_client, parse_nodes


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


async def test_a_unix_socket_url_builds_a_socket_client_with_its_db() -> None:
    client = create_redis_client("unix:///run/teoti/redis.sock?db=3")
    assert isinstance(client, Redis)
    pool = client.connection_pool
    assert pool.connection_class is UnixDomainSocketConnection
    assert (pool.connection_kwargs["path"], pool.connection_kwargs["db"]) == (
        "/run/teoti/redis.sock",
        3,
    )
    # A socket has no TCP keepalive: the option must not reach the connection class.
    assert "socket_keepalive" not in pool.connection_kwargs
    connection = pool.make_connection()
    assert isinstance(connection, UnixDomainSocketConnection)
    await client.aclose()


def test_a_unix_socket_url_resolves_from_flag_and_environment() -> None:
    url = "unix:///tmp/teoti/redis.sock?db=0"
    assert RedisConfig.resolve(url, None, {}) == RedisConfig(url=url)
    assert RedisConfig.resolve(None, None, {"REDIS_URL": url}) == RedisConfig(url=url)


@pytest.mark.parametrize(
    "url", ["localhost:6379", "http://h:6379/0", "unix://", "unix:///", "redis:/h"]
)
def test_a_url_redis_cannot_use_is_refused_when_configured(url: str) -> None:
    with pytest.raises(ValueError, match="a Redis URL is"):
        RedisConfig.resolve(url, None, {})


@pytest.mark.parametrize("command", ["serve", "engine", "gateway", "bot", "archive", "director"])
def test_every_service_command_takes_a_unix_socket_url(command: str) -> None:
    url = "unix:///tmp/teoti/redis.sock?db=0"
    args = build_parser().parse_args([command, "--redis-url", url])
    assert redis_config(args) == RedisConfig(url=url)
    bad = build_parser().parse_args([command, "--redis-url", "tcp://h:1"])
    with pytest.raises(UsageError):
        redis_config(bad)


def test_logged_unix_urls_hide_the_password_wherever_it_is() -> None:
    assert RedisConfig(url="unix://:s3cret@/tmp/r.sock?db=0").describe() == (
        "unix://:***@/tmp/r.sock?db=0"
    )
    assert RedisConfig(url="unix://teoti-bot:s3cret@/tmp/r.sock").describe() == (
        "unix://teoti-bot:***@/tmp/r.sock"
    )
    # redis-py also reads a password from the query string.
    assert RedisConfig(url="unix:///tmp/r.sock?db=1&password=s3cret").describe() == (
        "unix:///tmp/r.sock?db=1&password=***"
    )
    assert RedisConfig(url="redis://h:6379/0?password=s3cret").describe() == (
        "redis://h:6379/0?password=***"
    )
    assert RedisConfig(url="unix:///tmp/r.sock?db=0").describe() == "unix:///tmp/r.sock?db=0"


async def test_a_login_given_to_a_unix_url_reaches_the_socket_client() -> None:
    config = RedisConfig.standalone("unix:///tmp/r.sock?db=2").with_login("teoti-gw", "p@ss")
    assert config.describe() == "unix://teoti-gw:***@/tmp/r.sock?db=2"
    client = config.client()
    assert isinstance(client, Redis)
    kwargs = client.connection_pool.connection_kwargs
    assert (kwargs["username"], kwargs["password"], kwargs["path"], kwargs["db"]) == (
        "teoti-gw",
        "p@ss",
        "/tmp/r.sock",
        2,
    )
    await client.aclose()
