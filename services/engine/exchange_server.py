"""The engine's side of one EngineService.Exchange (or ExchangeBatches) stream: its
commands run concurrently (a bounded number at once) and each is answered, by request
id, as soon as it is done (answers done at the same moment share one ExchangeBatches
message)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import grpc
import structlog
from google.rpc import status_pb2

from services.engine.exchange_outbox import Outbox
from services.rpc.errors import BadRequest, abort_for, clip, internal_status, rich_status
from services.rpc.generated import engine_service_pb2 as pb

MAX_IN_FLIGHT = 100
"""Commands of one stream being worked on at once. The stream's further requests stay
unread until one finishes, so HTTP/2 flow control holds the client back: a stream never
makes the engine start unbounded work."""

log = structlog.get_logger(__name__)

Answer = Callable[[pb.EngineServiceExchangeRequest], Awaitable[tuple[str, Any]]]
"""Runs one request's command: returns (name of the response's oneof field, message)
or raises a domain error (services.rpc.errors)."""


BATCHES_METADATA = "x-teoti-exchange-batches"
"""Response header an ExchangeBatches stream opens with (value "1"), at once: it tells the
client the engine has the method before the client writes anything (an engine from
before it answers UNIMPLEMENTED, with no such header)."""
MAX_BATCH_BYTES = 1024 * 1024
"""Largest ExchangeBatches message of answers the engine sends (a single larger answer
goes alone): well under the 4 MiB a grpc client receives by default."""


class ExchangeSession:
    """Serves one Exchange (or, ``batched``, ExchangeBatches) stream on ``context`` with
    ``answer`` for each command.

    Commands run in tasks of their own, at most ``max_in_flight`` at once (a command's
    place, or a refusal's, is free once its answer is written); each answer is sent when
    ready (out of order). Answers ready at the same moment share one ExchangeBatches
    message; on Exchange each is a message of its own. A request whose ``timeout_ms``
    passes is answered DEADLINE_EXCEEDED; a ``cancel`` request stops its command with no
    answer; when the stream ends (the client half-closes: after its commands are
    answered; the client goes away: at once) nothing of it keeps running.
    """

    def __init__(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        answer: Answer,
        max_in_flight: int = MAX_IN_FLIGHT,
        batched: bool = False,
    ) -> None:
        self._context = context
        self._answer = answer
        self._batched = batched
        self._slots = asyncio.Semaphore(max_in_flight)
        self._running: dict[int, asyncio.Task[None]] = {}
        # One writer (grpc allows one write at a time on a call); each item says whether
        # writing it frees a place in flight.
        self._outbox: Outbox[tuple[pb.EngineServiceExchangeResponse, bool]] = Outbox(
            self._send, _answer_size, MAX_BATCH_BYTES
        )

    async def run(self, requests: AsyncIterator[Any]) -> None:
        """Serve ``requests`` (Exchange requests, or ExchangeBatches batches of them)
        until the client half-closes and every answer is written.

        Aborts the stream with INVALID_ARGUMENT for a message that does not parse
        (services.rpc.server.LenientParsing hands it over as a BadRequest).
        """
        # One loop look-up per stream, not per request: on Python 3.11 each
        # asyncio.create_task asks for the running loop, a getpid system call (issue 16).
        loop = asyncio.get_running_loop()
        writer = loop.create_task(self._outbox.run())
        try:
            async for message in requests:
                if isinstance(message, BadRequest):
                    await abort_for(self._context, message)
                if not self._batched:
                    await self._take(message, loop)
                    continue
                for request in message.requests:
                    await self._take(request, loop)
            while self._running:
                await asyncio.wait(set(self._running.values()))
            self._outbox.close()
            await writer
        finally:
            for task in self._running.values():
                task.cancel()
            writer.cancel()

    async def drain(self) -> None:
        """Tell the client to send nothing more here (the engine is about to stop); the
        requests it sent before are still answered."""
        self._outbox.put((pb.EngineServiceExchangeResponse(drain=True), False))

    async def _take(self, request: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Start (or cancel) ``request``'s command on ``loop`` (the running loop), once a
        place in flight is free."""
        if request.cancel:
            running = self._running.get(request.request_id)
            if running is not None:
                running.cancel()
        elif request.request_id in self._running:
            # A refusal holds a place until written, as an answer does: otherwise a peer
            # repeating an id and not reading would have refusals queued without bound.
            await self._slots.acquire()
            duplicate = BadRequest("request_id is already in flight on this stream")
            self._outbox.put((_refusal(request.request_id, duplicate), True))
        else:
            await self._slots.acquire()
            task = loop.create_task(self._serve(request))
            self._running[request.request_id] = task
            # Not a ``finally`` in _serve: a task cancelled before its first step (its
            # cancel came in the same batch) never runs its body.
            task.add_done_callback(partial(self._finished, request.request_id))

    async def _serve(self, request: Any) -> None:
        self._outbox.put((await self._respond(request), True))

    def _finished(self, request_id: int, task: asyncio.Task[None]) -> None:
        if self._running.get(request_id) is task:
            del self._running[request_id]
        if task.cancelled() or task.exception() is not None:
            self._slots.release()  # no answer was queued: its writing frees nothing

    async def _respond(self, request: Any) -> pb.EngineServiceExchangeResponse:
        deadline = asyncio.timeout(request.timeout_ms / 1000 if request.timeout_ms else None)
        try:
            async with deadline:
                field, message = await self._answer(request)
        except Exception as error:
            refusal = _DeadlinePassed() if deadline.expired() else error
            return _refusal(request.request_id, refusal)
        response = pb.EngineServiceExchangeResponse(request_id=request.request_id)
        getattr(response, field).CopyFrom(message)
        return response

    async def _send(self, batch: list[tuple[pb.EngineServiceExchangeResponse, bool]]) -> None:
        try:
            if self._batched:
                await self._context.write(
                    pb.EngineServiceExchangeBatchesResponse(responses=[r for r, _ in batch])
                )
            else:
                for response, _ in batch:
                    await self._context.write(response)
        except Exception as exc:  # the stream is gone: nobody is left to answer
            log.debug("exchange_write_failed", error=clip(repr(exc)))
        finally:
            for _, frees in batch:
                if frees:
                    self._slots.release()


def _answer_size(item: tuple[pb.EngineServiceExchangeResponse, bool]) -> int:
    return item[0].ByteSize()


class _DeadlinePassed(Exception):
    """The request's own timeout_ms passed (answered like a unary call's deadline)."""


def _refusal(request_id: int, exc: Exception) -> pb.EngineServiceExchangeResponse:
    """The answer refusing request ``request_id`` with ``exc``: the google.rpc.Status a
    unary call failing with it would carry (INTERNAL, logged, for an unmapped error)."""
    if isinstance(exc, _DeadlinePassed):
        status = status_pb2.Status(
            code=grpc.StatusCode.DEADLINE_EXCEEDED.value[0], message="Deadline Exceeded"
        )
    else:
        status = rich_status(exc) or internal_status(exc)
    return pb.EngineServiceExchangeResponse(request_id=request_id, error=status.SerializeToString())
