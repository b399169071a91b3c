"""Engines as earlier versions were, a gateway client that keeps what they answered, and
the two stores of a split stack: what the tests of a gateway talking to a separate engine
(possibly older than itself) share (issue 35's ``public_reply``, issue 16's
``return_view``)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from services.engine.adapters import RedisEventStore
from services.engine.domain.command_result import CommandResult
from services.engine.entrypoints.servicer import EngineServicer
from services.engine.transport.remote import RemoteEngineClient


class RecordingClient(RemoteEngineClient):
    """The gateway's engine client, keeping each SubmitAction's result in ``results``
    (the test sets the list)."""

    results: list[CommandResult]

    async def submit_action(self, *args: Any, **kwargs: Any) -> CommandResult:
        result = await super().submit_action(*args, **kwargs)
        self.results.append(result)
        return result


class EngineBeforePublicReply(EngineServicer):
    """An engine as it was before ``public_reply`` (issue 35): it never sees the field."""

    async def _submit_action(self, request: Any, bot_key: str, into: Any = None) -> Any:
        request.ClearField("public_reply")
        return await super()._submit_action(request, bot_key, into)


class EngineBeforeReturnView(EngineBeforePublicReply):
    """An engine as it was before ``return_view`` (and so ``public_reply``)."""

    async def _submit_action(self, request: Any, bot_key: str, into: Any = None) -> Any:
        request.ClearField("return_view")
        return await super()._submit_action(request, bot_key, into)


async def split_stores(
    stack: AsyncExitStack, redis_url: str, key_prefix: str
) -> tuple[RedisEventStore, RedisEventStore]:
    """(the engine's store, the gateway's store): each process of a split deployment has
    its own connection pool and cache on the one Redis; both closed with ``stack``."""
    engine_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    stack.push_async_callback(engine_store.close)
    gateway_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    stack.push_async_callback(gateway_store.close)
    return engine_store, gateway_store
