"""Engines as earlier versions were, and a gateway client that keeps what they answered:
what the tests of a gateway talking to an engine older than itself share (issue 35's
``public_reply``, issue 16's ``return_view``)."""

from __future__ import annotations

from typing import Any

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
