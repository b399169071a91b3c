"""The engine's side of one EngineService.Exchange stream: its commands run concurrently
(a bounded number at once) and each is answered, by request id, as soon as it is done."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import structlog
from google.rpc import status_pb2

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


class ExchangeSession:
    """Serves one Exchange stream on ``context`` with ``answer`` for each command.

    Commands run in tasks of their own, at most ``max_in_flight`` at once; each answer is
    written when ready (out of order). A request whose ``timeout_ms`` passes is answered
    DEADLINE_EXCEEDED; a ``cancel`` request stops its command with no answer; when the
    stream ends (the client half-closes: after its commands are answered; the client goes
    away: at once) nothing of it keeps running.
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
        # grpc allows one write at a time on a call.
        self._write_lock = asyncio.Lock()

    async def run(self, requests: AsyncIterator[Any]) -> None:
        """Serve ``requests`` until the client half-closes and every answer is written.

        Aborts the stream with INVALID_ARGUMENT for a request that does not parse
        (services.rpc.server.LenientParsing hands it over as a BadRequest).
        """
        try:
            async for request in requests:
                if isinstance(request, BadRequest):
                    await abort_for(self._context, request)
                if request.cancel:
                    running = self._running.get(request.request_id)
                    if running is not None:
                        running.cancel()
                elif request.request_id in self._running:
                    duplicate = BadRequest("request_id is already in flight on this stream")
                    await self._write(_refusal(request.request_id, duplicate))
                else:
                    await self._slots.acquire()
                    self._running[request.request_id] = asyncio.create_task(self._serve(request))
            while self._running:
                await asyncio.wait(set(self._running.values()))
        finally:
            for task in self._running.values():
                task.cancel()

    async def drain(self) -> None:
        """Tell the client to send nothing more here (the engine is about to stop); the
        requests it sent before are still answered."""
        await self._write(pb.EngineServiceExchangeResponse(drain=True))

    async def _serve(self, request: Any) -> None:
        try:
            await self._write(await self._respond(request))
        finally:
            self._running.pop(request.request_id, None)
            self._slots.release()

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

    async def _write(self, response: pb.EngineServiceExchangeResponse) -> None:
        async with self._write_lock:
            try:
                await self._context.write(response)
            except Exception as exc:  # the stream is gone: nobody is left to answer
                log.debug("exchange_write_failed", error=clip(repr(exc)))


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
