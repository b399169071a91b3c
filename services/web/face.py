"""Routes of the web face, driven by a service descriptor (one source of truth: the protos).

For every method of the service (``gameserver.v1.GameService`` from its generated
descriptor) there is one route, ``POST /<package>.<Service>/<Method>``, the method's gRPC
path. The body is the request message in protobuf's JSON mapping (snake_case or
lowerCamelCase field names, as ``json_format.Parse`` accepts); the reply is the response
message in the same mapping. The handler is the servicer's own method, called in-process
with a :class:`~services.web.context.WebContext`, so tokens, limits and errors are the
gRPC face's. A server-streaming method answers with server-sent events (one ``message``
event per response, then ``end``, or ``error`` with the status); it can also be opened
with ``GET`` and the request fields as query parameters, for ``EventSource``. A method
that streams requests (GameService.Play) has no HTTP form: its path answers UNIMPLEMENTED
(HTTP 501, reason ``streaming_requests_unsupported``) to a plain HTTP request, naming the
WebSocket at the same path that carries it (:mod:`services.web.play_socket`).

Before any method runs (issue 30, items 7 and 8): a request from a page whose ``Origin``
the face does not allow is refused (403, ``origin_not_allowed``: CORS alone only hides
the reply of a "simple" cross-site POST, it does not stop it), a ``POST`` must say
``Content-Type: application/json`` (415, ``unsupported_media_type``: a form or
``text/plain`` body is what a cross-site page can send without a preflight), and a token
in the query string is refused (400, ``token_in_url``: URLs end up in logs and browser
history). Query parameters of a ``GET`` fill the request's fields; a bool field reads
``true``/``false`` (or ``1``/``0``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

import grpc
import structlog
from google.protobuf import json_format
from google.protobuf.descriptor import (
    Descriptor,
    FieldDescriptor,
    MethodDescriptor,
    ServiceDescriptor,
)
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import status_pb2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from services.metrics.families import LATENCY, REQUESTS, STREAMS_OPEN
from services.metrics.grpc_calls import status_name
from services.rpc.errors import BadRequest
from services.rpc.limits import MAX_REQUEST_BYTES
from services.web.context import WebAbort, WebContext, peer_string, status_of
from services.web.errors import http_status, refusal, retry_after, status_json
from services.web.origins import origin_allowed
from services.web.strict_json import request_problem

log = structlog.get_logger(__name__)
FACE = "web"
"""The face label of the web face's calls (services.metrics.families)."""

KEEPALIVE_S = 15.0
"""Seconds of silence after which a stream sends an SSE comment (proxies cut idle
connections; the client ignores comments)."""
STREAM_BUFFER = 64
"""Responses a stream holds for a slow HTTP client before the servicer waits (the watch
hub drops a watcher that falls further behind: ``watch_too_slow``)."""
TIMEOUT_HEADER = "x-timeout-ms"
"""Request header carrying the caller's deadline (milliseconds), like gRPC's timeout."""
JSON_MEDIA_TYPE = "application/json"
"""The only request body type a method call accepts (any parameters, e.g. charset)."""


def to_json(message: Message) -> dict[str, Any]:
    """A response message as JSON: proto field names, every field present (defaults
    too, so a browser needs no knowledge of proto3's omitted zeros), int64 as numbers
    where exact."""
    result: dict[str, Any] = json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
        unquote_int64_if_possible=True,
    )
    return result


def error_response(
    status: status_pb2.Status, http: int | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The HTTP response of a refused call (``http``: an HTTP status other than the
    code's usual one, for refusals HTTP has its own status for: 405, 413)."""
    headers = dict(headers or {})
    if (delay := retry_after(status)) is not None:
        headers["retry-after"] = delay
    return JSONResponse(
        status_json(status), status_code=http or http_status(status), headers=headers
    )


def not_allowed(method: str, allowed: str) -> JSONResponse:
    """405 with a Status (reason ``method_not_allowed``) and an ``Allow`` header."""
    return error_response(
        refusal(
            grpc.StatusCode.UNIMPLEMENTED,
            "method_not_allowed",
            f"{method[:10]} is not allowed here; use {allowed}",
        ),
        http=405,
        headers={"allow": allowed},
    )


def sse(event: str, data: dict[str, Any], event_id: str | None = None) -> bytes:
    """One server-sent event (``data`` as one line of JSON)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@dataclass(frozen=True)
class Route:
    """One RPC: its descriptor, request class and the servicer's bound method."""

    method: MethodDescriptor
    request_class: type[Message]
    handler: Callable[[Any, Any], Any]

    @property
    def path(self) -> str:
        """``/<full service name>/<method>``, as in gRPC."""
        return f"/{self.method.containing_service.full_name}/{self.method.name}"


def routes_for(service: ServiceDescriptor, servicer: Any) -> list[Route]:
    """A route per method of ``service``, each calling the servicer method of that name.

    Raises AttributeError if the servicer lacks one (it would not serve gRPC either).
    """
    return [
        Route(method, GetMessageClass(method.input_type), getattr(servicer, method.name))
        for method in service.methods
    ]


class Face:
    """The ASGI endpoints of one service's routes.

    Args:
        routes: from :func:`routes_for`.
        max_request_bytes: larger bodies are refused with RESOURCE_EXHAUSTED (HTTP 413),
            as the gRPC server refuses larger messages.
        cors_origins: the pages (origins) that may call (``*``: any); the face's own
            pages and clients sending no ``Origin`` always may (:func:`origin_allowed`).
    """

    def __init__(
        self,
        routes: list[Route],
        max_request_bytes: int = MAX_REQUEST_BYTES,
        cors_origins: tuple[str, ...] = ("*",),
    ) -> None:
        self._routes = {route.path: route for route in routes}
        self._max = max_request_bytes
        self._origins = cors_origins

    @property
    def routes(self) -> list[Route]:
        """The routes served."""
        return list(self._routes.values())

    async def endpoint(self, request: Request) -> Response:
        """Answer one call (Starlette endpoint for ``/{service}/{method}``), counted by
        method and status code and, unless it streams, timed (services.metrics)."""
        start = time.perf_counter()
        try:
            response = await self._answer(request)
        except Exception as exc:  # our bug: a status, never a trace
            log.exception("web_internal_error", path=request.url.path, error=repr(exc)[:200])
            response = error_response(
                status_of(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}")
            )
        route = self._routes.get(request.url.path)
        # A path no route has is the client's text: one label for all of them.
        method = route.path[1:] if route is not None else "unknown"
        if not isinstance(response, StreamingResponse):  # a stream is counted as it ends
            LATENCY.observe(time.perf_counter() - start, FACE, method)
            REQUESTS.inc(FACE, method, code_of(response))
        return response

    async def _answer(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if not origin_allowed(origin, request.headers.get("host"), self._origins):
            return _origin_refused(origin or "")
        if (secret := _token_in_query(request)) is not None:
            return error_response(
                refusal(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "token_in_url",
                    f"the query parameter {secret[:40]!r} carries a token, and URLs end up "
                    "in logs: send it as an 'Authorization: Bearer <token>' (a player "
                    "credential: 'Authorization: Player <credential>') header, or in the "
                    "JSON body of a POST",
                )
            )
        route = self._routes.get(request.url.path)
        if route is None:
            return error_response(
                refusal(
                    grpc.StatusCode.UNIMPLEMENTED,
                    "unknown_method",
                    f"no method {request.url.path[:100]}; see /openapi.json",
                )
            )
        if route.method.client_streaming:
            return error_response(
                refusal(
                    grpc.StatusCode.UNIMPLEMENTED,
                    "streaming_requests_unsupported",
                    f"{route.method.name} streams requests, which a plain HTTP request "
                    f"cannot carry: open a WebSocket at this path (ws[s]://<host>{route.path}, "
                    "JSON text frames, docs/web.md), or use SubmitAction (return_view) and "
                    "WatchGame (with_view)",
                )
            )
        streaming = route.method.server_streaming
        # Only POST (and GET for a stream, for EventSource) runs a method: HEAD, PUT,
        # DELETE... must never run one (HEAD would create a game and drop its tokens).
        allowed = ("GET", "POST") if streaming else ("POST",)
        if request.method not in allowed:
            return not_allowed(request.method, ", ".join(allowed))
        if request.method == "POST" and not _is_json(request.headers.get("content-type")):
            return error_response(
                refusal(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "unsupported_media_type",
                    f"a method call's body must be sent as 'Content-Type: {JSON_MEDIA_TYPE}' "
                    "(docs/web.md)",
                ),
                http=415,
            )
        parsed = await self._request_message(route, request)
        if isinstance(parsed, Response):
            return parsed
        try:
            _timeout_ms(request)
        except ValueError:
            return error_response(
                refusal(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "malformed_timeout",
                    f"the {TIMEOUT_HEADER} header must be a whole number of milliseconds "
                    "(docs/web.md)",
                )
            )
        context = _context(request)
        if streaming:
            resuming = request.method == "GET" and bool(request.headers.get("last-event-id"))
            return await _stream(route, parsed, context, resuming)
        try:
            reply = await route.handler(parsed, context)
        except WebAbort as abort:
            return error_response(abort.status)
        finally:
            context.finish()
        return JSONResponse(to_json(reply))

    async def _request_message(self, route: Route, request: Request) -> Message | Any:
        """The request message; a :class:`BadRequest` for JSON that is not one (the
        servicer refuses it as gRPC's does), a Response for a body over the limit."""
        if request.method == "GET":
            return _from_query(route, request)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max:
            return _too_large(self._max)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > self._max:
                return _too_large(self._max)
        message = route.request_class()
        if not body.strip():
            return message
        try:
            text = bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return BadRequest("the request is not UTF-8 text")
        return parse_message(text, message)


def parse_message(text: str, message: Message) -> Message | BadRequest:
    """``message`` filled from ``text`` (one JSON object in protobuf's JSON mapping),
    or a :class:`BadRequest` saying why it is not one (the servicer refuses it with
    INVALID_ARGUMENT ``malformed_request``, as the gRPC face refuses bytes that are not
    the method's message). Values must have the JSON types the OpenAPI document states
    (:func:`~services.web.strict_json.request_problem`), narrower than protobuf's parser
    (no float enums, no numeric strings for doubles). Shared by HTTP bodies and WebSocket
    frames."""
    if not text.lstrip().startswith("{"):
        # protobuf's own words for a list or a string are about fields, not this.
        return BadRequest("the request must be a JSON object")
    try:
        problem = request_problem(json.loads(text), cast(Descriptor, message.DESCRIPTOR))
        if problem is not None:
            return BadRequest(f"the request is not a valid JSON message: {problem}")
        json_format.Parse(text, message)
    except RecursionError:
        return BadRequest("the request is nested too deeply")
    except (json_format.ParseError, ValueError) as exc:
        if isinstance(exc.__cause__ or exc.__context__, RecursionError):
            # protobuf wraps it in a ParseError that quotes Python's own words.
            return BadRequest("the request is nested too deeply")
        return BadRequest(f"the request is not a valid JSON message: {str(exc)[:150]}")
    return message


def _too_large(limit: int) -> Response:
    """413 (as documented): a retry can never succeed, so not 429."""
    return error_response(
        refusal(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "request_too_large",
            f"the request is larger than {limit} bytes",
        ),
        http=413,
    )


def _origin_refused(origin: str) -> Response:
    """403 with a Status (``origin_not_allowed``), as the Play WebSocket refuses one."""
    log.info("web_origin_refused", origin=origin[:100])
    return error_response(
        refusal(
            grpc.StatusCode.PERMISSION_DENIED,
            "origin_not_allowed",
            f"pages of {origin[:100]} may not call this face (see its CORS origins, "
            "--web-cors-origins)",
        ),
        http=403,
    )


def _is_json(content_type: str | None) -> bool:
    """Is ``content_type`` application/json (parameters such as charset aside)?"""
    if content_type is None:
        return False
    return content_type.split(";", 1)[0].strip().lower() == JSON_MEDIA_TYPE


PLAYER_CREDENTIAL_PREFIX = "tpc_"
"""How a player credential starts (services.players.credentials.PREFIX)."""
_NOT_SECRET = {"pagetoken", "nextpagetoken"}
"""Query names ending in "token" that are cursors, not credentials."""


def _token_in_query(request: Request) -> str | None:
    """The first query parameter that carries a credential (``seat_token``,
    ``organiser_token``, ``player_token``, ``access_token``, ``authorization``, a player
    ``credential``...; either spelling), or None, or a value that looks like a player
    credential (``tpc_...``) under any name. Any method, any path of a method: the URL is
    logged either way."""
    for name, value in request.query_params.multi_items():
        folded = name.lower().replace("_", "").replace("-", "")
        if folded == "authorization" or (folded.endswith("token") and folded not in _NOT_SECRET):
            return name
        if folded.endswith("credential") or value.startswith(PLAYER_CREDENTIAL_PREFIX):
            return name
    return None


_DIGITS = re.compile(r"-?[0-9]+")
_BOOLS = {"true": True, "false": False, "1": True, "0": False}
"""How a bool field reads in a query string (JSON's words, or a digit)."""


def _from_query(route: Route, request: Request) -> Message | Any:
    """A request message from query parameters (GET of a stream, for EventSource);
    ``Last-Event-ID`` (a reconnecting EventSource) resumes after that version
    (``from_version``, ``after_version``; after that notice id for a request with an
    ``after`` field: WatchPlayer). Every
    value is a string; a bool field's ``true``/``false``/``1``/``0`` become JSON's
    booleans (protobuf's JSON mapping would refuse a quoted ``"true"``), an enum's
    digits its number; a parameter given twice is refused (which one would count?)."""
    descriptor = route.request_class.DESCRIPTOR
    fields: dict[str, Any] = dict(request.query_params)
    if len(fields) < len(request.query_params.multi_items()):
        return BadRequest("a query parameter is given more than once")
    for name, value in fields.items():
        field = descriptor.fields_by_name.get(name) or descriptor.fields_by_camelcase_name.get(name)
        if field is not None and field.type == FieldDescriptor.TYPE_BOOL:
            if value.lower() not in _BOOLS:
                return BadRequest(f"the query parameter {name!r} must be true or false")
            fields[name] = _BOOLS[value.lower()]
        elif field is not None and field.type == FieldDescriptor.TYPE_ENUM:
            fields[name] = int(value) if _DIGITS.fullmatch(value) else value
    if (problem := request_problem(fields, route.method.input_type)) is not None:
        return BadRequest(f"the query is not a valid request: {problem}")
    last = request.headers.get("last-event-id", "")
    for resume in ("from_version", "after_version"):  # WatchGame, WatchTournament
        if last.isdigit() and resume in descriptor.fields_by_name:
            fields[resume] = last
    if last and "after" in descriptor.fields_by_name:  # WatchPlayer: a notice id
        fields["after"] = last
    message = route.request_class()
    try:
        json_format.ParseDict(fields, message)
    except (json_format.ParseError, ValueError) as exc:
        return BadRequest(f"the query is not a valid request: {str(exc)[:150]}")
    return message


def _context(request: Request) -> WebContext:
    client = request.client
    metadata = [(key.lower(), value) for key, value in request.headers.items()]
    timeout = _timeout_ms(request)
    return WebContext(
        peer_string(client.host if client else None, client.port if client else None),
        metadata,
        None if timeout is None else timeout / 1000,
    )


_TIMEOUT_DIGITS = 12
"""At most this many digits (about 31 years of milliseconds)."""


def _timeout_ms(request: Request) -> int | None:
    """The ``x-timeout-ms`` header's milliseconds, None without one. Raises ValueError
    for anything but up to 12 ASCII digits (a header is Latin-1 text, and
    ``"²".isdigit()`` is true where ``int("²")`` fails)."""
    text = request.headers.get(TIMEOUT_HEADER)
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= _TIMEOUT_DIGITS):
        raise ValueError(TIMEOUT_HEADER)
    return int(text)


async def _stream(route: Route, message: Any, context: WebContext, resuming: bool) -> Response:
    """Run a server-streaming method: an HTTP error if it is refused before it accepts
    the call (unknown game, wrong token, too many watchers), else an SSE response.

    ``resuming``: a reconnecting EventSource (``Last-Event-ID``). If the stream then ends
    with nothing after that id (a finished game's watch, resumed past its last event),
    the answer is 204 No Content: the EventSource spec's way to stop it reconnecting,
    where 200 and ``end`` again would start another round every few seconds for ever.
    The first response is awaited up to :data:`KEEPALIVE_S` before that is decided."""
    queue: asyncio.Queue[Message | WebAbort | None] = asyncio.Queue(STREAM_BUFFER)
    pump = asyncio.create_task(_pump(route.handler(message, context), queue, context))
    accepted = asyncio.create_task(context.accepted.wait())
    await asyncio.wait({pump, accepted}, return_when=asyncio.FIRST_COMPLETED)
    accepted.cancel()
    first: Message | WebAbort | _Nothing | None = _NOTHING
    if not context.accepted.is_set():
        # Ended (or refused) without accepting: its first item decides.
        first = queue.get_nowait() if not queue.empty() else None
        if isinstance(first, WebAbort):
            await pump
            context.finish()
            return error_response(first.status)
    if resuming and isinstance(first, _Nothing):
        with contextlib.suppress(TimeoutError):
            first = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
    if resuming and first is None:
        await pump
        context.finish()
        return Response(status_code=204, headers={"cache-control": "no-store"})
    return StreamingResponse(
        _held(_events(queue, pump, context, first), route.path[1:], context),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


async def _pump(
    responses: AsyncIterator[Message],
    queue: asyncio.Queue[Message | WebAbort | None],
    context: WebContext,
) -> None:
    """Move the servicer's responses into ``queue``; None marks the end. A first
    response accepts the call (not every servicer sends initial metadata first)."""
    async with contextlib.aclosing(responses):  # type: ignore[type-var]
        try:
            async for response in responses:
                await queue.put(response)
                context.accepted.set()
        except WebAbort as abort:
            await queue.put(abort)
            return
        except Exception as exc:  # our bug: end the stream with INTERNAL, no trace
            log.exception("web_stream_error", error=repr(exc)[:200])
            await queue.put(
                WebAbort(
                    status_of(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}")
                )
            )
            return
    await queue.put(None)


class _Nothing:
    """No item taken from the queue yet (None is the queue's end mark)."""


_NOTHING = _Nothing()


async def _events(
    queue: asyncio.Queue[Message | WebAbort | None],
    pump: asyncio.Task[None],
    context: WebContext,
    first: Message | WebAbort | _Nothing | None = _NOTHING,
) -> AsyncIterator[bytes]:
    """SSE frames from ``first`` (an item already taken from the queue, if any) and
    ``queue``; cancels the servicer's stream when the client leaves."""
    ended = False
    try:
        while True:
            if not isinstance(first, _Nothing):
                item, first = first, _NOTHING
            else:
                try:
                    item = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield b": keepalive\n\n"
                    continue
            if item is None:
                ended = True
                yield sse("end", {})
                return
            if isinstance(item, WebAbort):
                ended = True
                yield sse("error", status_json(item.status))
                return
            body = to_json(item)
            yield sse("message", body, _version_of(body))
    finally:
        context.finish(cancelled=not ended)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump


async def _held(
    frames: AsyncIterator[bytes], method: str, context: WebContext
) -> AsyncIterator[bytes]:
    """``frames``, with the stream counted as held while they flow (teoti_streams_open)
    and, when they end, counted by the code it ended with (OK, or the client left:
    CANCELLED)."""
    STREAMS_OPEN.add(1, FACE, method)
    ended = False
    try:
        async for frame in frames:
            yield frame
        ended = True
    finally:
        STREAMS_OPEN.add(-1, FACE, method)
        REQUESTS.inc(FACE, method, "OK" if ended else "CANCELLED")


def code_of(response: Response) -> str:
    """The gRPC status code name a unary answer carries: OK for a 2xx (a 204 ends a
    resumed stream that has nothing more), else the code of the google.rpc.Status in its
    body (docs/web.md "Refusals")."""
    if 200 <= response.status_code < 300:
        return "OK"
    try:
        number = int(json.loads(bytes(response.body))["code"])
    except (ValueError, KeyError, TypeError):
        return "UNKNOWN"
    return status_name(number)


def _version_of(body: dict[str, Any]) -> str | None:
    """The event version of a WatchGame response, or the notice id of a WatchPlayer
    one, as the SSE id (the resume point ``Last-Event-ID`` brings back)."""
    event = body.get("event")
    if isinstance(event, dict) and "version" in event:
        return str(event["version"])
    notice = body.get("notice")
    if isinstance(notice, dict) and notice.get("id"):
        return str(notice["id"])
    return None


Endpoint = Callable[[Request], Awaitable[Response]]
