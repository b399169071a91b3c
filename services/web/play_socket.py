"""A request-streaming RPC (GameService.Play) over a WebSocket at the method's own path.

Browsers cannot stream an HTTP request body, but they can open a WebSocket, which is
what Play needs: one open connection per player (boardgame.io and Lichess play over a
socket too). Each text frame from the client is one request message, each text frame
to it one response message, both in protobuf's JSON mapping (:func:`parse_message`,
:func:`to_json`: the face's HTTP bodies' mapping, from the descriptors). The answering
is the servicer's own ``Play`` (its rate limit per opening and per message, its limit
of open streams, :func:`services.gateway.play_stream.serve_stream` with its 32 requests
in flight) over a :class:`SocketContext`, as the HTTP routes call the servicer with a
WebContext. See docs/web.md, "Play over a WebSocket".

What the socket adds: the Origin check (a page the face's CORS origins do not allow must
not open it; the face's own pages may), a frame size limit, and the close codes. A
WebSocket has no half-close: when it closes (either side) the requests in flight are
cancelled, as a cancelled gRPC call's are. A close frame comes behind the frames sent
before it, and gRPC's cancel has no such queue to wait in, so frames are read ahead of
the servicer into a small :class:`Inbox` (``INBOX_BYTES``): a client that closes with up
to that much unanswered sees its requests cancelled at once; beyond it the server has
stopped reading (the back-pressure) and sees the close once the answers make room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
import structlog
from google.rpc import status_pb2
from starlette.websockets import WebSocket

from services.metrics.families import REQUESTS, STREAMS_OPEN
from services.metrics.grpc_calls import status_name
from services.rpc.errors import BadRequest, clip
from services.web.context import WebAbort, WebContext, peer_string
from services.web.errors import refusal, status_json
from services.web.face import FACE, error_response, parse_message, to_json
from services.web.origins import origin_allowed

log = structlog.get_logger(__name__)

CLOSE_UNSUPPORTED_DATA = 1003
"""A binary frame: requests are JSON text frames."""
CLOSE_POLICY = 1008
"""The stream was refused for a reason that waiting will not fix."""
CLOSE_TOO_BIG = 1009
"""A frame over the face's request size limit (``request_too_large``)."""
CLOSE_INTERNAL = 1011
"""Our bug (INTERNAL); never with a trace."""
CLOSE_TRY_LATER = 1013
"""RESOURCE_EXHAUSTED (``too_many_play_streams``, ``rate_limited``) or UNAVAILABLE."""

_RETRYABLE = {grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], grpc.StatusCode.UNAVAILABLE.value[0]}
_INTERNAL = {grpc.StatusCode.INTERNAL.value[0], grpc.StatusCode.UNKNOWN.value[0]}
INBOX_BYTES = 64 * 1024
"""Characters of frames read ahead of the servicer per socket (as HTTP/2's default
stream window lets a gRPC client send ahead); one frame may go past it."""
_MAX_REASON_BYTES = 123
"""RFC 6455 5.5: a close frame's payload is at most 125 bytes, 2 of them the code."""


class MalformedPlayRequest(BadRequest):
    """A frame that is not a request message, remembering the ``request_id`` it named
    (0 if none could be read), so the refusal can be matched to what the client sent."""

    def __init__(self, message: str, request_id: int) -> None:
        super().__init__(message)
        self.request_id = request_id


def close_reason(text: str) -> str:
    """``text`` cut to what a close frame can carry (123 bytes of UTF-8)."""
    encoded = text.encode("utf-8")
    if len(encoded) <= _MAX_REASON_BYTES:
        return text
    return encoded[: _MAX_REASON_BYTES - 3].decode("utf-8", "ignore") + "..."


def close_code(status: status_pb2.Status) -> int:
    """The close code of a stream refused (or ended) with ``status``."""
    if status.code in _RETRYABLE:
        return CLOSE_TRY_LATER
    if status.code in _INTERNAL:
        return CLOSE_INTERNAL
    return CLOSE_POLICY


def request_id_of(text: str) -> int:
    """The ``request_id`` (or ``requestId``) a malformed frame names, 0 if it names none
    readable: only for matching its refusal, never trusted for anything else."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return 0
    if not isinstance(body, dict):
        return 0
    value = body.get("request_id", body.get("requestId"))
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    return 0


def encode(message: Any) -> str:
    """A response message as one JSON text frame (the face's mapping, compact)."""
    return json.dumps(to_json(message), separators=(",", ":"))


class Inbox:
    """Text frames read from a socket and not yet taken by the servicer, at most about
    ``capacity`` characters of them: :meth:`put` waits while it holds that much, so the
    socket's reader stops and the server stops reading the connection."""

    def __init__(self, capacity: int = INBOX_BYTES) -> None:
        self._frames: deque[str] = deque()
        self._size = 0
        self._capacity = capacity
        self._changed = asyncio.Condition()

    async def put(self, frame: str) -> None:
        """Add ``frame``, once the inbox holds less than its capacity."""
        async with self._changed:
            await self._changed.wait_for(lambda: self._size < self._capacity)
            self._frames.append(frame)
            self._size += len(frame)
            self._changed.notify_all()

    async def get(self) -> str:
        """The oldest frame, once there is one."""
        async with self._changed:
            await self._changed.wait_for(lambda: bool(self._frames))
            frame = self._frames.popleft()
            self._size -= len(frame)
            self._changed.notify_all()
            return frame


class SocketContext(WebContext):
    """The WebContext of one WebSocket's streaming call: ``write`` sends a response as
    a text frame. A write that fails (the socket is gone) sets ``lost`` and raises, as
    grpc's write on an ended call does."""

    def __init__(
        self,
        websocket: WebSocket,
        peer: str,
        metadata: Sequence[tuple[str, str]],
        lost: asyncio.Event,
    ) -> None:
        super().__init__(peer, metadata)
        self._socket = websocket
        self._lost = lost

    async def write(self, message: Any) -> None:
        """Send ``message`` (a response) as one JSON text frame."""
        try:
            await self._socket.send_text(encode(message))
        except BaseException:
            self._lost.set()
            raise


def _ended_with(play: asyncio.Task[Any]) -> str:
    """The status code name a finished Play call ended with: CANCELLED when the socket
    closed first, the refusal's code, INTERNAL for our bug, else OK."""
    if play.cancelled():
        return "CANCELLED"
    error = play.exception()
    if isinstance(error, WebAbort):
        return status_name(error.status.code)
    return "OK" if error is None else "INTERNAL"


class PlaySocket:
    """The WebSocket endpoint of one request-streaming route.

    Args:
        request_class: the request message (``gameserver.v1.PlayRequest``).
        handler: the servicer's method, ``handler(requests, context)`` as grpc calls it.
        max_request_bytes: a larger frame closes the socket (1009, ``request_too_large``).
        cors_origins: the face's CORS allowed origins (see :func:`origin_allowed`).
    """

    def __init__(
        self,
        request_class: Any,
        handler: Any,
        max_request_bytes: int,
        cors_origins: Sequence[str],
        method: str = "unknown",
    ) -> None:
        self._method = method
        self._request_class = request_class
        self._handler = handler
        self._max = max_request_bytes
        self._origins = tuple(cors_origins)

    async def endpoint(self, websocket: WebSocket) -> None:
        """Serve one WebSocket (Starlette endpoint) until either side closes it."""
        headers = websocket.headers
        if not origin_allowed(headers.get("origin"), headers.get("host"), self._origins):
            await _deny(websocket, headers.get("origin") or "")
            return
        await websocket.accept()
        client = websocket.client
        lost = asyncio.Event()
        context = SocketContext(
            websocket,
            peer_string(client.host if client else None, client.port if client else None),
            [(key.lower(), value) for key, value in headers.items()],
            lost,
        )
        inbox = Inbox()
        reader = asyncio.create_task(self._read(websocket, inbox, lost))
        play = asyncio.create_task(self._handler(self._requests(inbox), context))
        gone = asyncio.create_task(lost.wait())
        STREAMS_OPEN.add(1, FACE, self._method)
        try:
            await asyncio.wait({play, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            reader.cancel()
            if not play.done():
                play.cancel()  # the socket closed: what is in flight has nobody to answer
            await asyncio.gather(play, reader, return_exceptions=True)
            context.finish(cancelled=lost.is_set())
            STREAMS_OPEN.add(-1, FACE, self._method)
        REQUESTS.inc(FACE, self._method, _ended_with(play))
        if play.cancelled():
            return
        error = play.exception()
        if isinstance(error, WebAbort):
            await _refuse(websocket, error.status)
        elif error is not None:  # the servicer maps its errors: this is our bug
            log.error("web_play_error", error=clip(repr(error)))
            await _close(websocket, CLOSE_INTERNAL, f"internal error: {type(error).__name__}")
        else:
            await _close(websocket, 1000, "")

    async def _read(self, websocket: WebSocket, inbox: Inbox, lost: asyncio.Event) -> None:
        """Move the socket's text frames into ``inbox`` until the socket closes or breaks
        a rule (a binary frame, a frame over the size limit: then this side closes it);
        either way ``lost`` is set, which ends the call."""
        try:
            while True:
                event = await websocket.receive()
                if event["type"] == "websocket.disconnect":
                    return
                text = event.get("text")
                if text is None:
                    await _close(
                        websocket,
                        CLOSE_UNSUPPORTED_DATA,
                        "unsupported_data: send each request as a JSON text frame",
                    )
                    return
                if len(text) * 4 > self._max and len(text.encode("utf-8")) > self._max:
                    await _close(
                        websocket,
                        CLOSE_TOO_BIG,
                        f"request_too_large: a frame is larger than {self._max} bytes",
                    )
                    return
                await inbox.put(text)
        finally:
            lost.set()

    async def _requests(self, inbox: Inbox) -> AsyncIterator[Any]:
        """The request messages of the inbox's frames (a BadRequest for one that is no
        message), each taken when the servicer asks for the next: with its requests in
        flight at their limit it stops asking, the inbox fills and reading stops."""
        while True:
            yield self._parse(await inbox.get())

    def _parse(self, text: str) -> Any:
        parsed = parse_message(text, self._request_class())
        if isinstance(parsed, BadRequest):
            return MalformedPlayRequest(str(parsed), request_id_of(text))
        return parsed


async def _deny(websocket: WebSocket, origin: str) -> None:
    """Refuse the handshake: HTTP 403 with a Status (``origin_not_allowed``) where the
    server can send one, else a bare 403 (close before accept)."""
    status = refusal(
        grpc.StatusCode.PERMISSION_DENIED,
        "origin_not_allowed",
        f"pages of {clip(origin, 100)} may not open this socket (see the web face's CORS origins)",
    )
    log.info("web_play_origin_refused", origin=clip(origin, 100))
    try:
        await websocket.send_denial_response(error_response(status, http=403))
    except RuntimeError:  # no denial-response extension in this server
        await websocket.close(CLOSE_POLICY, close_reason(status.message))


async def _refuse(websocket: WebSocket, status: status_pb2.Status) -> None:
    """End a stream the servicer refused: one last frame with the whole Status (as
    ``{"request_id": 0, "error": ...}``, a PlayResponse refusing no request in
    particular), then the close code with the Status message as its reason."""
    frame = {"request_id": 0, "error": status_json(status)}
    with contextlib.suppress(Exception):  # the client may be gone already
        await websocket.send_text(json.dumps(frame, separators=(",", ":")))
    await _close(websocket, close_code(status), status.message)


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    """Close with ``code`` and ``reason`` (cut to fit), unless the socket is gone."""
    with contextlib.suppress(Exception):
        await websocket.close(code, close_reason(reason))
