"""The engine's side of one ExchangeBatches stream (an engine link connection,
services.engine.transport.link_server): its commands run concurrently (a bounded number
at once) and each is answered, by request id, as soon as it is done (answers done at the
same moment share one batch)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import grpc
import structlog
from google.rpc import status_pb2

from services.engine.transport.exchange_outbox import Outbox
from services.engine.transport.status_mapping import abort_for, rich_status
from services.metrics.families import LATENCY, REQUESTS
from services.metrics.grpc_calls import status_name
from services.rpc.errors import BadRequest, clip, internal_status
from services.rpc.generated import engine_service_pb2 as pb
from services.task_deadline import TaskDeadline

MAX_IN_FLIGHT = 100
"""Commands of one stream being worked on at once. The stream's further requests stay
unread until one finishes, so TCP flow control holds the client back: a stream never
makes the engine start unbounded work."""

log = structlog.get_logger(__name__)

Answer = Callable[
    [pb.EngineServiceExchangeRequest, pb.EngineServiceExchangeResponse], Awaitable[None]
]
"""Runs one request's command and writes its reply into the response's oneof field (in
place: no copy of the reply and its events, issue 16), or raises a domain error
(services.engine.transport.status_mapping); the response it was given is then dropped,
whatever it holds."""


ENGINE_SERVICE = "gameserver.v1.EngineService"
"""The engine's name in gRPC health (its readiness: SERVING while Redis answers); the
engine's commands go on the engine link, not on gRPC."""

BATCHES_METADATA = "x-teoti-exchange-batches"
"""What a link client takes the engine's hello for (value "1"): the stream's headers,
saying the peer is an engine serving ExchangeBatches (services.engine.transport.
link_client)."""
MAX_BATCH_BYTES = 1024 * 1024
"""Largest batch of answers the engine sends (a single larger answer goes alone): well
under the 4 MiB a link client reads (link_client.MAX_ANSWER_BYTES)."""


class ExchangeSession:
    """Serves one ExchangeBatches stream on ``context`` (a link connection: ``write``
    takes a batch's bytes, ``abort_with_status`` and ``abort`` end it) with ``answer`` for
    each command.

    Commands run in tasks of their own, at most ``max_in_flight`` at once (a command's
    place, or a refusal's, is free once its answer is written); each answer is sent when
    ready (out of order). Answers ready at the same moment share one batch. A request
    whose ``timeout_ms``
    passes is answered DEADLINE_EXCEEDED; a ``cancel`` request stops its command with no
    answer; when the stream ends (the client half-closes: after its commands are
    answered; the client goes away: at once) nothing of it keeps running.
    """

    def __init__(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        answer: Answer,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        self._context = context
        self._answer = answer
        self._slots = asyncio.Semaphore(max_in_flight)
        self._running: dict[int, asyncio.Task[None]] = {}
        # Each running command's own deadline (timeout_ms); its cancellation answers
        # DEADLINE_EXCEEDED.
        self._deadlines: dict[int, TaskDeadline] = {}
        # One writer; each item says whether writing it frees a place in flight. Batches
        # are written as their bytes: each answer is serialized once, when queued, instead
        # of being copied into a batch message (with its events) and sized apart (issue 16).
        self._outbox: Outbox[tuple[bytes, bool]] = Outbox(self._send, _answer_size, MAX_BATCH_BYTES)

    async def run(self, requests: AsyncIterator[Any]) -> None:
        """Serve ``requests`` (ExchangeBatches batches of Exchange requests) until the
        client half-closes and every answer is written.

        Aborts the stream with INVALID_ARGUMENT for a batch that does not parse (the link
        hands it over as a BadRequest).
        """
        # One loop look-up per stream, not per request: on Python 3.11 each
        # asyncio.create_task asks for the running loop, a getpid system call (issue 16).
        loop = asyncio.get_running_loop()
        writer = loop.create_task(self._outbox.run())
        try:
            async for message in requests:
                if isinstance(message, BadRequest):
                    await abort_for(self._context, message)
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
        self._queue(pb.EngineServiceExchangeResponse(drain=True), False)

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
            self._queue(_refusal(request.request_id, duplicate), True)
        else:
            await self._slots.acquire()
            request_id = request.request_id
            task = loop.create_task(self._serve(request))
            self._running[request_id] = task
            if request.timeout_ms:
                self._deadlines[request_id] = TaskDeadline(
                    loop, loop.time() + request.timeout_ms / 1000, task
                )
            # Not a ``finally`` in _serve: a task cancelled before its first step (its
            # cancel came in the same batch) never runs its body.
            task.add_done_callback(partial(self._finished, request_id))

    async def _serve(self, request: Any) -> None:
        self._queue(await self._respond(request), True)

    def _queue(self, response: pb.EngineServiceExchangeResponse, frees: bool) -> None:
        """Queue ``response`` for the writer (``frees``: writing it frees a place)."""
        self._outbox.put((response.SerializeToString(), frees))

    def _finished(self, request_id: int, task: asyncio.Task[None]) -> None:
        if self._running.get(request_id) is task:
            del self._running[request_id]
            deadline = self._deadlines.pop(request_id, None)
            if deadline is not None:
                deadline.cancel()
        if task.cancelled() or task.exception() is not None:
            self._slots.release()  # no answer was queued: its writing frees nothing

    async def _respond(self, request: Any) -> pb.EngineServiceExchangeResponse:
        request_id = request.request_id
        response = pb.EngineServiceExchangeResponse(request_id=request_id)
        start = time.perf_counter()
        # The command's kind is the proto's oneof field name: a fixed set of labels.
        method = request.WhichOneof("command") or "none"
        try:
            await self._answer(request, response)
        except asyncio.CancelledError:
            # Only the deadline's own cancellation becomes an answer (as asyncio.timeout
            # turns it into TimeoutError): a cancel request, or the stream ending, stops
            # the command with none.
            deadline = self._deadlines.get(request_id)
            if deadline is None or not deadline.caused_cancellation():
                _answered(method, "CANCELLED", start)
                raise
            refused = _refusal(request_id, _DeadlinePassed())
        except Exception as error:
            deadline = self._deadlines.get(request_id)
            expired = deadline is not None and deadline.expired
            refused = _refusal(request_id, _DeadlinePassed() if expired else error)
        else:
            _answered(method, "OK", start)
            return response
        _answered(method, status_name(refused_code(refused)), start)
        return refused

    async def _send(self, batch: list[tuple[bytes, bool]]) -> None:
        try:
            await self._context.write(b"".join(repeated_field(BATCH_FIELD, a) for a, _ in batch))
        except Exception as exc:  # the stream is gone: nobody is left to answer
            log.debug("exchange_write_failed", error=clip(repr(exc)))
        finally:
            for _, frees in batch:
                if frees:
                    self._slots.release()


def _answer_size(item: tuple[bytes, bool]) -> int:
    return len(item[0])


BATCH_FIELD = 1
"""Field number of the messages an ExchangeBatches message repeats (``responses``, and
``requests`` the other way)."""


def repeated_field(number: int, message: bytes) -> bytes:
    """The wire bytes of one element, serialized as ``message``, of the repeated message
    field ``number``: its tag (wire type 2), its length as a varint, the message. A
    message whose only field is that one serializes as these, element after element."""
    size = len(message)
    head = bytearray(((number << 3) | 2,))
    while size > 0x7F:
        head.append((size & 0x7F) | 0x80)
        size >>= 7
    head.append(size)
    return bytes(head) + message


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


def _answered(method: str, code: str, start: float) -> None:
    """Count and time one engine link command (face ``link``; services.metrics.families)."""
    LATENCY.observe(time.perf_counter() - start, LINK_FACE, method)
    REQUESTS.inc(LINK_FACE, method, code)


def refused_code(response: pb.EngineServiceExchangeResponse) -> int:
    """The status code number of a refusal made by :func:`_refusal`."""
    return int(status_pb2.Status.FromString(response.error).code)


LINK_FACE = "link"
"""The face label of the engine link's commands."""
