"""services.gateway.play_stream: a client that goes away while its answers are being
written is the client's doing, not a server bug.

grpc.aio raises from ``context.write`` (ExecuteBatchError) when the call ended before
the handler was cancelled; under open/close churn this reached the Play handler's
catch-all and was logged as ``unexpected_error`` with a traceback (a bug report, and a
traceback's cost per vanished client) before an abort of the dead call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from structlog.testing import capture_logs

from services.gateway.play_stream import serve_stream


class CallGone(Exception):
    """What grpc raises writing to a call that ended (ExecuteBatchError is not importable
    as public API; any exception from ``write`` means the same here)."""


class EndedCall:
    """The servicer context of a call whose client has gone: every write fails."""

    def __init__(self) -> None:
        self.writes = 0

    async def write(self, message: Any) -> None:
        self.writes += 1
        raise CallGone('Failed "execute_batch"')


async def messages(count: int) -> AsyncIterator[int]:
    for number in range(count):
        yield number


async def test_a_write_to_an_ended_call_ends_the_stream_quietly() -> None:
    context = EndedCall()

    async def answer(message: Any) -> Any:
        return message

    with capture_logs() as logs:
        answered = await serve_stream(messages(5), context, answer, in_flight=2)
    assert context.writes >= 1
    assert answered == 0  # nothing reached the client
    assert [entry for entry in logs if entry["log_level"] in {"error", "critical"}] == []
