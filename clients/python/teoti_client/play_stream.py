"""One open ``GameService.Play`` call carrying many requests, matched by request id.

A move over an open stream costs the server a fraction of a unary call's CPU (issue 16),
so :class:`~teoti_client.client.GameServiceClient` sends its moves here by default.
:class:`PlayStream` opens the call lazily, writes each request with a fresh
``request_id`` and resolves the caller's future when the response with that id comes
(responses may come in any order). When the call breaks (the server restarts, the
connection drops, the server refuses the stream), every request waiting on it fails
with the call's error, as a unary call would have failed, and the next request opens a
new call.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

import grpc

from teoti_client.proto import game_service_pb2 as pb

_DETAILS_KEY = "grpc-status-details-bin"
_CODES = {code.value[0]: code for code in grpc.StatusCode}


def error_of(error: pb.PlayError) -> grpc.aio.AioRpcError:
    """The refusal of one Play request as the error its unary call would have raised:
    the same code and details, and the status (ErrorInfo, RetryInfo) in the
    ``grpc-status-details-bin`` trailer, so the client's error decoding reads it alike."""
    trailer = grpc.aio.Metadata((_DETAILS_KEY, error.SerializeToString()))
    return grpc.aio.AioRpcError(
        _CODES.get(error.code, grpc.StatusCode.UNKNOWN),
        grpc.aio.Metadata(),
        trailer,
        error.message,
    )


def client_failure(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    """An error the client raises itself (no call answered it), shaped as a call's:
    ``code``, ``details`` and empty metadata."""
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)


class _OpenCall:
    """One Play call, its reader task and the requests waiting on it, by id."""

    def __init__(self, call: Any) -> None:
        self.call = call
        self.pending: dict[int, asyncio.Future[pb.PlayResponse]] = {}
        self.reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        """Hand each response to its request until the call ends; then fail the rest."""
        try:
            while True:
                response = await self.call.read()
                if response is grpc.aio.EOF:
                    raise client_failure(grpc.StatusCode.UNAVAILABLE, "the server ended the stream")
                future = self.pending.get(response.request_id)
                if future is not None and not future.done():
                    future.set_result(response)
        except grpc.aio.AioRpcError as error:
            self.fail(error)
        except asyncio.CancelledError:
            self.fail(client_failure(grpc.StatusCode.CANCELLED, "the client closed the stream"))
            raise

    def fail(self, error: grpc.aio.AioRpcError) -> None:
        """End the call and fail every request still waiting on it with ``error``."""
        self.call.cancel()
        for future in self.pending.values():
            if not future.done():
                future.set_exception(error)

    @property
    def ended(self) -> bool:
        """True once the reader has stopped (the call broke or was closed)."""
        return self.reader is None or self.reader.done()


class PlayStream:
    """A lazily opened ``Play`` call on ``stub`` shared by every request of one client.

    ``metadata``: sent when the call opens (e.g. ``authorization: Bearer``). Use
    :meth:`request`; :meth:`close` cancels the call. One event loop only. A caller
    cancelled while its request is being written cancels the whole call (grpc.aio does
    so), failing the others' requests with CANCELLED; a timeout does not (see below).
    """

    def __init__(self, stub: Any, metadata: Sequence[tuple[str, str]] = ()) -> None:
        self._stub = stub
        self._metadata = tuple(metadata)
        self._ids = itertools.count(1)
        self._open: _OpenCall | None = None
        self._writing = asyncio.Lock()

    @property
    def open(self) -> bool:
        """True while a call is open (one opens on the next request otherwise)."""
        return self._open is not None and not self._open.ended

    async def request(self, message: pb.PlayRequest, timeout_s: float | None) -> pb.PlayResponse:
        """Send ``message`` (its request_id is set here) and wait for its response.

        Raises the call's ``grpc.aio.AioRpcError`` if the stream breaks first, and a
        DEADLINE_EXCEEDED one after ``timeout_s`` without an answer (the stream stays
        open; a late answer is dropped). A PlayResponse carrying ``error`` is returned
        as is (see :func:`error_of`).
        """
        current = self._open
        if current is None or current.ended:
            current = self._start()
        request_id = next(self._ids)
        message.request_id = request_id
        future: asyncio.Future[pb.PlayResponse] = asyncio.get_running_loop().create_future()
        current.pending[request_id] = future
        try:
            try:
                async with self._writing:
                    await current.call.write(message)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                # The call has ended: its reader fails the waiting requests with why.
                if current.reader is not None:
                    await asyncio.wait([current.reader], timeout=1.0)
                if not future.done():
                    current.fail(client_failure(grpc.StatusCode.UNAVAILABLE, "the stream closed"))
            if timeout_s is None:
                return await future
            try:
                async with asyncio.timeout(timeout_s):
                    return await future
            except TimeoutError:
                raise client_failure(
                    grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"
                ) from None
        finally:
            current.pending.pop(request_id, None)

    async def open_now(self) -> None:
        """Open the call now, if none is open, rather than on the next request, and wait
        until the server has accepted it (it acknowledges an admitted Play stream with
        its headers before any request). Bound it with the caller's own timeout: a
        server from before that acknowledgement sends its headers only with its first
        answer, so this then waits until the timeout.

        Raises the call's ``grpc.aio.AioRpcError`` if it ends first: refused (e.g.
        RESOURCE_EXHAUSTED ``too_many_play_streams``), the server unreachable
        (UNAVAILABLE) or the stream closed meanwhile (CANCELLED).
        """
        current = self._open
        if current is None or current.ended:
            current = self._start()
        call = current.call
        await call.initial_metadata()  # the server's headers, or the call's end
        if call.done():
            raise grpc.aio.AioRpcError(
                await call.code(),
                await call.initial_metadata(),
                await call.trailing_metadata(),
                await call.details(),
            )

    def _start(self) -> _OpenCall:
        opened = _OpenCall(self._stub.Play(metadata=self._metadata or None))
        opened.reader = asyncio.create_task(opened.read(), name="teoti-play-reader")
        self._open = opened
        return opened

    async def close(self) -> None:
        """Cancel the open call, if any (its waiting requests fail with CANCELLED)."""
        current, self._open = self._open, None
        if current is not None and current.reader is not None:
            current.call.cancel()
            current.reader.cancel()
            await asyncio.gather(current.reader, return_exceptions=True)
