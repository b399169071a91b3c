"""The machinery of GameService.Play: many requests answered on one open stream.

A Play stream is the gRPC analog of boardgame.io's socket (issue 16): a grpc.aio unary
call costs the server far more CPU than one message each way on an open stream. This
module only moves messages; what a request means is the servicer's (``answer``).

Requests are answered concurrently, at most ``in_flight`` at once per stream: beyond
that the reader stops reading, so a client that sends without reading its answers is
held back by HTTP/2 flow control instead of growing tasks or buffers here. Answers carry
the request's id and go out as they are ready (possibly out of order), one write at a
time (gRPC allows one message being sent per call). When the client half-closes, the
requests in flight are answered and the stream ends OK; when the call is cancelled (the
client vanished, the server stops), the requests in flight are cancelled with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable, Callable
from typing import Any

import structlog

from services.rpc.errors import clip

log = structlog.get_logger(__name__)

PLAY_IN_FLIGHT = 32
"""Requests of one Play stream being answered at once (the reader waits beyond)."""


async def serve_stream(
    requests: AsyncIterable[Any],
    context: Any,
    answer: Callable[[Any], Awaitable[Any]],
    in_flight: int = PLAY_IN_FLIGHT,
) -> int:
    """Answer every message of ``requests`` with ``await answer(message)``, written to
    ``context`` (a grpc.aio ServicerContext of a bidi call), ``in_flight`` at most at
    once; returns the number of requests answered.

    ``answer`` must not raise: it turns a refusal into a response of its own. Returns when
    the client has half-closed and every answer was written; cancelling the call cancels
    the requests in flight (no task is left behind). A write that fails means the call
    has ended (the client went away before grpc cancelled this handler): that answer is
    dropped, logged at debug level, as nobody is left to read it.
    """
    # One loop look-up per stream, not per message: on Python 3.11 each
    # asyncio.create_task asks for the running loop, a getpid system call (issue 16).
    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(max(1, in_flight))
    writing = asyncio.Lock()
    tasks: set[asyncio.Task[None]] = set()
    answered = 0

    async def run(message: Any) -> None:
        nonlocal answered
        try:
            response = await answer(message)
            async with writing:
                try:
                    await context.write(response)
                except Exception as exc:  # grpc's ExecuteBatchError, AbortError ...
                    log.debug("play_write_failed", error=clip(repr(exc)))
                    return
            answered += 1
        finally:
            slots.release()

    try:
        async for message in requests:
            await slots.acquire()
            task = loop.create_task(run(message))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.gather(*tasks)
    finally:
        pending = list(tasks)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    return answered
