"""The web face's test stack: a real all-in-one stack on a real Redis, and httpx."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.engine.domain.rulesets import RulesetRegistry

StackFactory = Callable[..., AbstractAsyncContextManager[tuple[Stack, httpx.AsyncClient]]]


@pytest.fixture
def served(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> StackFactory:
    """A factory: ``async with served(**all_in_one kwargs) as (stack, http)``."""

    @asynccontextmanager
    async def start(**kwargs: Any) -> AsyncIterator[tuple[Stack, httpx.AsyncClient]]:
        async with all_in_one(
            redis_url,
            store=StoreSettings(key_prefix),
            registry=registry,
            web_address="127.0.0.1:0",
            **kwargs,
        ) as stack:
            base = f"http://127.0.0.1:{stack.web_port}"
            async with httpx.AsyncClient(base_url=base, timeout=20) as http:
                yield stack, http

    return start
