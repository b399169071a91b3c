"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.engine.adapters.redis_client import RedisClient, create_redis_client
from services.engine.domain.rulesets import RulesetRegistry


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    """The whole service in this process on real Redis, Nim by default, over 4 shards
    (a module needing another set-up defines its own ``stack``)."""
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix, shards=4),
        registry=registry,
        default_ruleset="nim",
    ) as s:
        yield s


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[RedisClient]:
    """The deployment's own Redis client on the test Redis: a bounded pool whose callers
    wait for a connection, replies decoded (what the services use)."""
    client = create_redis_client(redis_url)
    yield client
    await client.aclose()
