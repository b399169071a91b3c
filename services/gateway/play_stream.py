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

A stream may be ended for idling (``idle_s``): once nothing was received or answered on
it for that long, with nothing in flight, :class:`PlayStreamIdle` is raised. The servicer
uses it for streams that have passed no seat token check (issue 30 item 3: a Play
stream's Bearer token is only checked with a request, and idle streams opened with
invented tokens held every call the process allowed).
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
PLAY_IDLE_GRACE_S = 15.0
"""Seconds a Play stream that has passed no seat token check may stay idle (nothing
received or answered) before the gateway ends it; a client opens a new one with its
next request (TeotiClient does, as does the web page's socket)."""


class PlayStreamIdle(Exception):
    """The stream was idle ``idle_s`` seconds and is ended (OK, with this as its
    details): open a new one with the next request."""

    def __init__(self, idle_s: float) -> None:
        super().__init__(
            f"play_stream_idle: no request with a valid seat token and none for {idle_s:g} s; "
            "open a new stream with your next request"
        )
        self.idle_s = idle_s


def _always() -> bool:
    return True


async def serve_stream(
    requests: AsyncIterable[Any],
    context: Any,
    answer: Callable[[Any], Awaitable[Any]],
    in_flight: int = PLAY_IN_FLIGHT,
    idle_s: float | None = None,
    idle_ends: Callable[[], bool] = _always,
) -> int:
    """Answer every message of ``requests`` with ``await answer(message)``, written to
    ``context`` (a grpc.aio ServicerContext of a bidi call), ``in_flight`` at most at
    once; returns the number of requests answered.

    ``answer`` must not raise: it turns a refusal into a response of its own. Returns when
    the client has half-closed and every answer was written; cancelling the call cancels
    the requests in flight (no task is left behind). A write that fails means the call
    has ended (the client went away before grpc cancelled this handler): that answer is
    dropped, logged at debug level, as nobody is left to read it.

    ``idle_s``: raise :class:`PlayStreamIdle` once the stream has been idle that long
    (nothing received or answered, nothing in flight) while ``idle_ends()`` is true
    (asked each time the stream has idled that long; once false, never again). None:
    never.
    """
    # One loop look-up per stream, not per message: on Python 3.11 each
    # asyncio.create_task asks for the running loop, a getpid system call (issue 16).
    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(max(1, in_flight))
    writing = asyncio.Lock()
    tasks: set[asyncio.Task[None]] = set()
    answered = 0
    active = loop.time()  # when something was last received or answered

    async def run(message: Any) -> None:
        nonlocal answered, active
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
            active = loop.time()
            slots.release()

    async def read_all() -> None:
        nonlocal active
        async for message in requests:
            active = loop.time()
            await slots.acquire()
            task = loop.create_task(run(message))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.gather(*tasks)

    try:
        if idle_s is None:
            await read_all()
        else:
            await _until_idle(
                loop, loop.create_task(read_all()), idle_s, idle_ends, tasks, lambda: active
            )
    finally:
        pending = list(tasks)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    return answered


async def _until_idle(
    loop: asyncio.AbstractEventLoop,
    reading: asyncio.Task[None],
    idle_s: float,
    idle_ends: Callable[[], bool],
    in_flight: set[asyncio.Task[None]],
    active: Callable[[], float],
) -> None:
    """Wait for ``reading`` (the stream's whole work) to finish, or raise PlayStreamIdle
    once it has been idle ``idle_s`` (see :func:`serve_stream`); ``reading`` is cancelled
    if this ends first (cancelled, or idle)."""
    try:
        while not reading.done():
            if not idle_ends():
                await asyncio.wait({reading})
                break
            left = active() + idle_s - loop.time()
            if left <= 0:
                if not in_flight:
                    raise PlayStreamIdle(idle_s)
                left = idle_s  # an answer in flight: its writing counts as activity
            await asyncio.wait({reading}, timeout=left)
        reading.result()
    finally:
        if not reading.done():
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
