"""The web face's ASGI app and its server (uvicorn, in the caller's event loop).

``build_app`` puts together: the RPC routes (:mod:`services.web.face`) for every service
given, a WebSocket at the path of each request-streaming one (GameService.Play,
:mod:`services.web.play_socket`), ``/openapi.json`` generated from their descriptors,
CORS (Starlette's middleware, origins configurable), ``/healthz``, and the reference
client's static files at ``/``.
``start_web`` binds a socket (port 0: a free one) and serves the app until ``stop``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import structlog
import uvicorn
from google.protobuf.descriptor import ServiceDescriptor
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from services.rpc.limits import MAX_REQUEST_BYTES
from services.rpc.server import MAX_CONCURRENT_RPCS
from services.web.connections import (
    HEADER_TIMEOUT_S,
    MAX_CONNECTIONS_PER_ADDRESS,
    MAX_HEAD_BYTES,
    MAX_HEADERS,
    bounded_protocol,
)
from services.web.errors import refusal
from services.web.face import TIMEOUT_HEADER, Face, error_response, not_allowed, routes_for
from services.web.openapi import openapi
from services.web.play_socket import PlaySocket

log = structlog.get_logger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
DEFAULT_WEB_PORT = 8080
KEEPALIVE_IDLE_S = 5.0
"""Seconds an idle kept-alive connection stays open (uvicorn's default, now stated)."""


@dataclass(frozen=True)
class WebSettings:
    """How the web face is offered.

    cors_origins: origins allowed to call it from a browser (``*``: any; the face uses
    no cookies, only Bearer tokens a page has to send itself); also the pages that may
    open a Play WebSocket (besides the face's own). static: serve the reference client
    at ``/``. max_request_bytes: as the gRPC server's limit (HTTP bodies and WebSocket
    frames). max_head_bytes, max_headers, header_timeout_s: a request's line and headers
    (:mod:`services.web.connections`; over: 431, too slow: 408, connection closed).
    keepalive_s: an idle kept-alive connection is closed after this many seconds.
    max_connections_per_address: open connections per client address (beyond: closed).
    """

    cors_origins: Sequence[str] = ("*",)
    static: bool = True
    max_request_bytes: int = MAX_REQUEST_BYTES
    version: str = "v1"
    max_head_bytes: int = MAX_HEAD_BYTES
    max_headers: int = MAX_HEADERS
    header_timeout_s: float = HEADER_TIMEOUT_S
    keepalive_s: float = KEEPALIVE_IDLE_S
    max_connections_per_address: int = MAX_CONNECTIONS_PER_ADDRESS


def build_app(
    services: Sequence[tuple[ServiceDescriptor, Any]],
    settings: WebSettings | None = None,
    extra_routes: Sequence[Route] = (),
) -> Starlette:
    """The ASGI app serving each ``(service descriptor, servicer)`` pair's RPCs, and
    ``extra_routes`` (fixed documents such as the well-known signing keys) before them."""
    settings = settings or WebSettings()
    routes = [route for service, servicer in services for route in routes_for(service, servicer)]
    face = Face(routes, settings.max_request_bytes, tuple(settings.cors_origins))
    descriptors = [service for service, _ in services]
    protos = ", ".join(dict.fromkeys(f"proto/{service.file.name}" for service in descriptors))
    document = openapi(descriptors, protos, settings.version)

    async def spec(_: Request) -> Response:
        return JSONResponse(document)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "SERVING"})

    # Before the HTTP routes: a WebSocket scope matches only a WebSocketRoute.
    table: list[Any] = [
        WebSocketRoute(
            route.path,
            PlaySocket(
                route.request_class,
                route.handler,
                settings.max_request_bytes,
                settings.cors_origins,
                route.path[1:],
            ).endpoint,
        )
        for route in routes
        if route.method.client_streaming
    ]
    table += [
        *extra_routes,
        Route("/openapi.json", spec, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        # Every verb reaches the face, which refuses all but POST (GET for streams)
        # with a Status: Starlette would add HEAD to a GET route and run the method.
        Route("/{service:str}/{method:str}", face.endpoint, methods=_ALL_VERBS),
    ]
    if settings.static:
        table.append(Mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="client"))
    middleware = [
        Middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["authorization", "content-type", TIMEOUT_HEADER, "last-event-id"],
            max_age=600,
        )
    ]
    return Starlette(
        routes=table,
        middleware=middleware,
        exception_handlers={404: _not_found, 405: _not_allowed},
    )


_ALL_VERBS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]


async def _not_found(request: Request, _exc: Exception) -> Response:
    """404 as a google.rpc.Status (docs/web.md "Refusals"), for any unknown path."""
    return error_response(
        refusal(grpc.StatusCode.NOT_FOUND, "not_found", "no such path; see /openapi.json")
    )


async def _not_allowed(request: Request, _exc: Exception) -> Response:
    """405 as a google.rpc.Status (e.g. POST on /openapi.json or a static file)."""
    return not_allowed(request.method, "GET")


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the process (teoti serve) owns SIGINT and
    SIGTERM and stops the web face with everything else."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebServer:
    """A running web face: ``port`` it listens on; ``await stop()`` to end it."""

    def __init__(self, server: uvicorn.Server, task: asyncio.Task[None], port: int) -> None:
        self._server = server
        self._task = task
        self.port = port

    async def stop(self) -> None:
        """Stop accepting, let calls finish within the grace period, then close."""
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket; raises AddressInUse (services.rpc.server) if it is taken."""
    from services.rpc.server import AddressInUse

    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    # Lets a restart bind while old connections linger in TIME_WAIT; on Linux it never
    # lets two servers listen on one port (that would be SO_REUSEPORT).
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
    except OSError as error:
        sock.close()
        raise AddressInUse(f"{host}:{port}") from error
    sock.listen(1024)
    sock.setblocking(False)
    return sock


async def start_web(
    app: Starlette,
    host: str,
    port: int,
    grace_s: float = 3.0,
    max_request_bytes: int = MAX_REQUEST_BYTES,
    settings: WebSettings | None = None,
) -> WebServer:
    """Serve ``app`` on ``host:port`` (0: a free port) in this event loop.

    Calls in flight are bounded like the gRPC server's (MAX_CONCURRENT_RPCS; HTTP 503
    beyond); open streams are ended ``grace_s`` after :meth:`WebServer.stop`. WebSockets
    by the ``websockets`` library (uvicorn's sans-I/O binding: it stops reading a socket
    until the app has taken its last message, which is the Play stream's back-pressure).
    The app refuses frames over ``max_request_bytes`` with its own close reason; the
    library cuts off those over twice that before they are buffered whole (close 1009).
    HTTP/1.1 by httptools, bounded by ``settings`` (:mod:`services.web.connections`).
    """
    settings = settings or WebSettings()
    sock = _bind(host, port)
    config = uvicorn.Config(
        app,
        http=bounded_protocol(
            settings.max_head_bytes,
            settings.max_headers,
            settings.header_timeout_s,
            settings.max_connections_per_address,
        ),
        timeout_keep_alive=settings.keepalive_s,  # type: ignore[arg-type]
        log_config=None,
        access_log=False,
        lifespan="off",
        ws="websockets-sansio",
        ws_max_size=2 * max_request_bytes,
        limit_concurrency=MAX_CONCURRENT_RPCS,
        timeout_graceful_shutdown=int(grace_s) or 1,
        server_header=False,
    )
    server = _EmbeddedServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
            raise RuntimeError("the web server stopped while starting")
        await asyncio.sleep(0.01)
    bound = int(sock.getsockname()[1])
    log.info("web_serving", host=host, port=bound)
    return WebServer(server, task, bound)
