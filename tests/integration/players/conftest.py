"""The players' integration tests' client: the typed Python client on the module's
``stack`` (tests/integration/conftest.py), without a Play stream."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from teoti_client import TeotiClient

from services.app import Stack


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[TeotiClient]:
    """A client of ``stack``'s gRPC face."""
    async with TeotiClient(f"127.0.0.1:{stack.port}", play_stream=False) as made:
        yield made
