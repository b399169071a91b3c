"""The engine's side of the engine link: ExchangeBatches streams on plain TCP (issue 16).

Each connection is one ExchangeBatches stream (services.engine.transport.link_frames says
what goes on it), served by an :class:`~services.engine.transport.exchange_server.
ExchangeSession`: its handlers, bounds in flight, deadlines, cancels and drain. The
connection does what a stream's transport would: back-pressure (a connection whose
requests wait for a place in flight is no longer read, so TCP holds its client back), the
peer's credential (the hello's), and the end of the stream (the ``E`` frame, a
google.rpc.Status).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, cast

import grpc
import structlog
from google.protobuf.message import DecodeError
from google.rpc import status_pb2

from services.engine.domain.bot_credential import BOT_KEY_METADATA
from services.engine.transport.link_frames import (
    BATCH,
    END,
    FINISH,
    HELLO,
    HELLO_MAGIC,
    MAX_HELLO_BYTES,
    FrameError,
    FrameReader,
    FrameTooLarge,
    frame,
    tune,
)
from services.rpc.errors import BadRequest, clip
from services.rpc.generated import engine_service_pb2 as pb
from services.rpc.limits import MAX_REQUEST_BYTES

log = structlog.get_logger(__name__)

HELLO_TIMEOUT_S = 10.0
"""How long a new connection may take to send its hello before the engine closes it."""
INBOX_PAUSE = 32
"""Batches read but not yet taken by the session at which the engine stops reading the
connection (resumed below half of it): with the session's bound in flight, a client
cannot make the engine hold unbounded work or bytes."""
Serve = Callable[[AsyncIterator[Any], Any, str], Awaitable[None]]
"""Serves one ExchangeBatches stream: (its batches, a context with ``write``,
``send_initial_metadata``, ``abort_with_status``, ``abort``, ``invocation_metadata``,
the peer's bot credential) until the client half-closes and all is answered
(services.engine.entrypoints.servicer.EngineServicer.serve_link)."""


def end_frame(code: grpc.StatusCode, message: str = "") -> bytes:
    """The ``E`` frame of a connection ending with ``code`` and ``message``."""
    status = status_pb2.Status(code=code.value[0], message=message)
    return frame(END, status.SerializeToString())


class LinkAborted(Exception):
    """The session aborted its stream (its ``E`` frame is written)."""


class LinkConnection(asyncio.Protocol):
    """One engine link connection: its hello, then its batches handed to ``serve`` as
    one ExchangeBatches stream (see :data:`Serve`), its answers written back as ``B``
    frames and its end as an ``E`` frame. ``max_request_bytes`` bounds a batch frame;
    ``on_closed``, if given, is called once the connection is over."""

    def __init__(
        self,
        serve: Serve,
        max_request_bytes: int = MAX_REQUEST_BYTES,
        on_closed: Callable[[LinkConnection], None] | None = None,
    ) -> None:
        self._serve = serve
        self._on_closed = on_closed
        self._reader = FrameReader(MAX_HELLO_BYTES)
        self._max_request_bytes = max_request_bytes
        self._transport: asyncio.Transport | None = None
        self._inbox: deque[Any] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self._finished = False
        self._paused = False
        self._writable: asyncio.Future[None] | None = None
        self._session: asyncio.Task[None] | None = None
        self._hello_timer: asyncio.TimerHandle | None = None
        self._closed = False
        self._log = log

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, only alike.
        transport = cast(asyncio.Transport, transport)
        self._transport = transport
        tune(transport)
        peer = transport.get_extra_info("peername")
        self._log = log.bind(peer=str(peer[:2]) if isinstance(peer, tuple) else str(peer))
        loop = asyncio.get_running_loop()
        self._hello_timer = loop.call_later(HELLO_TIMEOUT_S, self._no_hello)

    def data_received(self, data: bytes) -> None:
        if self._closed:
            return
        try:
            frames = self._reader.feed(data)
        except FrameTooLarge as error:
            self._end(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
            return
        except FrameError as error:
            self._end(grpc.StatusCode.INVALID_ARGUMENT, str(error))
            return
        for kind, payload in frames:
            if self.closed:  # an earlier frame of the chunk ended the connection
                return
            if self._session is None:
                self._hello(kind, payload)
            elif kind == BATCH:
                self._take(payload)
            elif kind == FINISH and not self._finished:
                self._finished = True
                self._wake()
            else:
                self._end(grpc.StatusCode.INVALID_ARGUMENT, f"unexpected frame {chr(kind)!r}")

    def eof_received(self) -> bool | None:
        if self._finished:
            # The client half-closed the connection after its finish (TCP's half-close,
            # saying no more than F did): it still reads, so what it asked for is
            # answered, then the E frame closes the connection.
            return True
        # The client closed its side without a finish: it is gone (nothing it asked for
        # is answered to anyone), as a gRPC stream whose client went away.
        self._lose()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._lose()

    def pause_writing(self) -> None:
        loop = asyncio.get_running_loop()
        if self._writable is None or self._writable.done():
            self._writable = loop.create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    @property
    def closed(self) -> bool:
        """True once the connection is ended or lost (nothing more is read or written)."""
        return self._closed

    # What ExchangeSession and EngineServicer use of a gRPC context.

    async def write(self, message: bytes) -> None:
        """Write ``message`` (an ExchangeBatches response, serialized) as a ``B`` frame;
        waits while the connection's send buffer is full. Raises ConnectionError once the
        connection is closed (the session logs it as a failed write)."""
        if self._closed or self._transport is None:
            raise ConnectionError("engine link connection closed")
        self._transport.write(frame(BATCH, message))
        writable = self._writable
        if writable is not None and not writable.done():
            await writable

    async def send_initial_metadata(self, metadata: Any) -> None:
        """Answer the client's hello (the stream's headers: the engine serves the link)."""
        if self._transport is not None and not self._closed:
            self._transport.write(frame(HELLO, HELLO_MAGIC))

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        """End the connection with ``status`` (its google.rpc.Status when it has one)."""
        details = dict(status.trailing_metadata or ()).get("grpc-status-details-bin")
        if isinstance(details, bytes):
            self._end_with(frame(END, details))
        else:
            self._end(status.code, status.details or "")
        raise LinkAborted

    async def abort(self, code: grpc.StatusCode, details: str = "") -> NoReturn:
        """End the connection with ``code`` and ``details``."""
        self._end(code, details)
        raise LinkAborted

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The credential of the hello, as a stream's metadata (see :data:`Serve`)."""
        return ((BOT_KEY_METADATA, self._bot_key),) if self._bot_key else ()

    # Internals.

    _bot_key = ""

    def _hello(self, kind: int, payload: bytes) -> None:
        if self._hello_timer is not None:
            self._hello_timer.cancel()
        if kind != HELLO:
            self._end(grpc.StatusCode.INVALID_ARGUMENT, "the first frame must be a hello")
            return
        if not payload.startswith(HELLO_MAGIC):
            self._end(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"engine link version not served (this engine serves {HELLO_MAGIC!r})",
            )
            return
        try:
            self._bot_key = payload[len(HELLO_MAGIC) :].decode()
        except UnicodeDecodeError:
            self._end(grpc.StatusCode.INVALID_ARGUMENT, "the hello's credential is not UTF-8")
            return
        # Batches may be up to a request's limit from now on (a hello stays small).
        self._reader.max_payload = self._max_request_bytes
        self._session = asyncio.get_running_loop().create_task(self._run())

    def _take(self, payload: bytes) -> None:
        try:
            message: Any = pb.EngineServiceExchangeBatchesRequest.FromString(payload)
        except DecodeError as error:
            message = BadRequest(f"the batch does not parse: {error}")
        self._inbox.append(message)
        self._wake()
        if len(self._inbox) >= INBOX_PAUSE and not self._paused and self._transport is not None:
            self._paused = True
            self._transport.pause_reading()

    async def _requests(self) -> AsyncIterator[Any]:
        loop = asyncio.get_running_loop()
        inbox = self._inbox
        while True:
            if inbox:
                item = inbox.popleft()
                if self._paused and len(inbox) <= INBOX_PAUSE // 2 and not self._closed:
                    self._paused = False
                    assert self._transport is not None
                    self._transport.resume_reading()
                yield item
                continue
            if self._finished:
                return
            self._wakeup = loop.create_future()
            await self._wakeup

    def _wake(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    async def _run(self) -> None:
        try:
            await self._serve(self._requests(), self, self._bot_key)
        except LinkAborted:
            return
        except asyncio.CancelledError:
            return  # the connection was lost: nobody is left to answer
        except Exception as error:  # a bug of ours: the client sees INTERNAL, as on gRPC
            self._log.exception("engine_link_failed", error=clip(repr(error)))
            self._end(grpc.StatusCode.INTERNAL, f"internal error: {type(error).__name__}")
            return
        self._end(grpc.StatusCode.OK)

    def _no_hello(self) -> None:
        if self._session is None:
            self._end(grpc.StatusCode.DEADLINE_EXCEEDED, "no hello in time")

    def _end(self, code: grpc.StatusCode, message: str = "") -> None:
        self._end_with(end_frame(code, clip(message)))

    def _end_with(self, end: bytes) -> None:
        """Write ``end`` (an ``E`` frame) and close once it is sent."""
        if self._closed or self._transport is None:
            return
        self._closed = True
        self._transport.write(end)
        self._transport.close()  # after the buffered bytes are written
        if self._session is not None and self._session is not asyncio.current_task():
            self._session.cancel()

    def close(self) -> None:
        """Close the connection now (what is in flight is dropped; the client fails it
        as an outage). Aborted, not closed gracefully: a graceful close waits until the
        buffered answers are sent, which a peer that reads nothing never lets happen."""
        self._lose()
        if self._transport is not None:
            self._transport.abort()

    def _lose(self) -> None:
        self._closed = True
        if self._on_closed is not None:
            self._on_closed(self)
            self._on_closed = None
        if self._hello_timer is not None:
            self._hello_timer.cancel()
        if self._session is not None and not self._session.done():
            self._session.cancel()
        self.resume_writing()  # a writer waiting for room learns it is closed
        if self._transport is not None:
            self._transport.close()


class LinkServer:
    """Engine link connections accepted on one listening socket, each served by
    ``serve`` (:data:`Serve`); made by :func:`start_link_server`."""

    def __init__(self, serve: Serve, max_request_bytes: int) -> None:
        self._serve = serve
        self._max_request_bytes = max_request_bytes
        self._connections: set[LinkConnection] = set()
        self._none_open = asyncio.Event()
        self._none_open.set()
        self._server: asyncio.Server | None = None

    def connection(self) -> LinkConnection:
        """A protocol for a new connection (the listener's factory)."""
        connection = LinkConnection(self._serve, self._max_request_bytes, self._forget)
        self._connections.add(connection)
        self._none_open.clear()
        return connection

    def _forget(self, connection: LinkConnection) -> None:
        self._connections.discard(connection)
        if not self._connections:
            self._none_open.set()

    async def listen(self, host: str, port: int) -> int:
        """Listen on ``host``:``port`` (0: any free port); returns the bound port. Raises
        OSError when the address cannot be bound (a port is never shared)."""
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self.connection, host.strip("[]") or None, port, reuse_port=False
        )
        return int(self._server.sockets[0].getsockname()[1])

    async def stop(self, grace_s: float | None) -> None:
        """Stop listening, give the open connections ``grace_s`` seconds (None: none) to
        finish what is in flight, then close the rest."""
        if self._server is not None:
            self._server.close()
        if grace_s:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._none_open.wait(), grace_s)
        for connection in list(self._connections):
            connection.close()
        if self._server is not None:
            await self._server.wait_closed()


async def start_link_server(
    serve: Serve,
    host: str,
    port: int,
    max_request_bytes: int = MAX_REQUEST_BYTES,
) -> tuple[LinkServer, int]:
    """Listen for engine link connections on ``host``:``port`` (0: any free port), each
    served by ``serve``. Returns (the server, the bound port). Raises OSError when the
    address cannot be bound."""
    server = LinkServer(serve, max_request_bytes)
    return server, await server.listen(host, port)
