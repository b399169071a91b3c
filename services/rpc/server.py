"""Building a grpc.aio server with health checking and reflection."""

from __future__ import annotations

import resource
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.metrics.grpc_calls import instrumented
from services.rpc.errors import BadRequest
from services.rpc.limits import DEFAULT_STREAMS, MAX_REQUEST_BYTES, UNARY_RESERVE

MAX_CONCURRENT_RPCS = DEFAULT_STREAMS + UNARY_RESERVE
"""Calls in flight per server process, streams included (RESOURCE_EXHAUSTED beyond):
20,000. A gateway lets streams take at most DEFAULT_STREAMS (16,000) of them
(services.rpc.limits.StreamBudget), so UNARY_RESERVE (4,000) are always left for unary
calls; an idle watcher costs a small buffer, no Redis connection
(services/gateway/watch_hub.py)."""
MAX_STREAMS_PER_CONNECTION = MAX_CONCURRENT_RPCS
"""HTTP/2 streams (calls) open at once on one client connection. A call beyond this limit
does not fail: the client holds it until a stream ends, with no deadline of ours, so
gRPC's default of 100 let one connection holding 100 watchers hang every further call
on it (issue 12). At the process's own limit a connection is never what stops a call:
past MAX_CONCURRENT_RPCS a call fails at once with RESOURCE_EXHAUSTED, and one client's
share is bounded by the gateway (services.rpc.limits.WatcherLimit) instead."""
PENDING_CALL_OPTIONS = (
    # Calls that arrived but that the Python server has not picked up yet. grpc's
    # defaults (1,000, hard limit 3,000) cancel a burst beyond them (a client opening
    # thousands of watchers at once saw CANCELLED); bounded by MAX_CONCURRENT_RPCS instead.
    ("grpc.server.max_pending_requests", MAX_CONCURRENT_RPCS),
    ("grpc.server.max_pending_requests_hard_limit", MAX_CONCURRENT_RPCS),
)
KEEPALIVE_OPTIONS = (
    # Find dead clients (and their idle watchers) within ~2 minutes.
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    # Accept client pings every 10 s even with no call in flight (idle watchers' clients).
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
)
HANDSHAKE_TIMEOUT_MS = 5_000
"""A connection that has not sent the HTTP/2 preface and its SETTINGS frame within this
is closed (grpc's default, 120 s, let 400 of 400 silent or half-sent sockets stay open
past 40 s and 20,600 reach the fd limit: issue 30 item 2)."""
MAX_CONNECTION_IDLE_MS = 60_000
"""A connection with no call in flight for this long is sent GOAWAY and closed, whether
or not the client answers (grpc's default: never). A gRPC client reconnects on its next
call; an open WatchGame or Play stream is a call, so a watcher is never idle."""
MAX_CONNECTIONS = 10_000
"""Connections open at once per server (grpc core's ``max_allowed_incoming_connections``:
beyond it a new connection is closed at once), at most half the process's
file-descriptor limit (:func:`connection_cap`)."""
MIN_CONNECTIONS = 64


def connection_cap(fd_limit: int | None = None) -> int:
    """The default connection cap: MAX_CONNECTIONS, at most half ``fd_limit`` (default
    this process's soft RLIMIT_NOFILE) so that Redis, the web face and the logs keep
    descriptors when the port is flooded, and never below MIN_CONNECTIONS."""
    if fd_limit is None:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        fd_limit = soft if soft > 0 else 2 * MAX_CONNECTIONS  # RLIM_INFINITY is -1
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, fd_limit // 2))


def connection_options(
    handshake_timeout_ms: int = HANDSHAKE_TIMEOUT_MS,
    max_connection_idle_ms: int | None = MAX_CONNECTION_IDLE_MS,
    max_connections: int | None = None,
) -> list[tuple[str, int]]:
    """grpc core's channel arguments closing silent, slow and idle connections and
    capping them (None: no idle timeout; ``max_connections`` None: :func:`connection_cap`).
    grpc core offers no cap per client address: one address's silent sockets are bounded
    by how many it can open within ``handshake_timeout_ms`` (docs/operations.md)."""
    options = [
        ("grpc.server_handshake_timeout_ms", handshake_timeout_ms),
        ("grpc.max_allowed_incoming_connections", max_connections or connection_cap()),
    ]
    if max_connection_idle_ms:
        options.append(("grpc.max_connection_idle_ms", max_connection_idle_ms))
    return options


OUR_SERVICES = "/gameserver."
"""Method-name prefix of the services whose requests are parsed leniently (see below)."""


def _lenient(deserializer: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as exc:  # DecodeError, invalid UTF-8 in a string field, ...
            return BadRequest(f"the request is not a valid message: {type(exc).__name__}")

    return parse


def passing_bytes(serializer: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """``serializer`` (a response message's SerializeToString), but a response that is
    ``bytes`` already goes out as it is: a move's answer the engine serialized, which the
    gateway sends on unparsed (issue 35, services.gateway.raw_replies)."""

    def serialize(response: Any) -> bytes:
        # type(), not isinstance: one pointer comparison on every response.
        return response if type(response) is bytes else serializer(response)

    return serialize


class PreparedMethods(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Each method's handler as the server runs it, made once per method and reused:

    - lenient parsing: bytes that do not parse as the method's request reach the handler
      as a :class:`BadRequest`, which ``services.engine.transport.status_mapping`` refuses
      with INVALID_ARGUMENT (grpc itself would answer UNKNOWN, the status of a server bug);
    - responses already serialized: a handler of our services may answer with ``bytes``,
      sent as they are (:func:`passing_bytes`);
    - metrics: every call counted by method and status code, unary calls timed, streams
      held counted (services.metrics.grpc_calls).

    Only methods the server has a handler for are prepared: an unknown method's name, the
    client's text, never becomes a metric label. Made once, not per call: a new handler
    per call cost a few microseconds of every move.
    """

    def __init__(self) -> None:
        self._prepared: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self, continuation: Callable[[Any], Any], handler_call_details: Any
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = str(getattr(handler_call_details, "method", ""))
        seen = self._prepared.get(method)
        if seen is not None and seen[0] is handler:
            return seen[1]
        prepared = instrumented(handler, method.lstrip("/"))
        if prepared.request_deserializer is not None and method.startswith(OUR_SERVICES):
            prepared = prepared._replace(
                request_deserializer=_lenient(prepared.request_deserializer)
            )
        if prepared.response_serializer is not None and method.startswith(OUR_SERVICES):
            prepared = prepared._replace(
                response_serializer=passing_bytes(prepared.response_serializer)
            )
        self._prepared[method] = (handler, prepared)
        return prepared


def build_server(
    address: str,
    register: Sequence[Callable[[grpc.aio.Server], None]],
    service_names: Sequence[str],
    max_request_bytes: int = MAX_REQUEST_BYTES,
    max_concurrent_rpcs: int = MAX_CONCURRENT_RPCS,
    max_streams_per_connection: int = MAX_STREAMS_PER_CONNECTION,
    max_connection_age_ms: int | None = None,
    handshake_timeout_ms: int = HANDSHAKE_TIMEOUT_MS,
    max_connection_idle_ms: int | None = MAX_CONNECTION_IDLE_MS,
    max_connections: int | None = None,
) -> tuple[grpc.aio.Server, int, Any]:
    """A not-yet-started server with our services, health and reflection.

    Args:
        address: ``host:port``; port 0 picks a free port.
        register: callables adding servicers to the server.
        service_names: full names of those services (for health and reflection).
        max_request_bytes: larger requests fail with RESOURCE_EXHAUSTED before any handler.
        max_concurrent_rpcs: calls in flight in the process; beyond this, new calls fail
            with RESOURCE_EXHAUSTED.
        max_streams_per_connection: calls open at once on one connection (HTTP/2
            SETTINGS_MAX_CONCURRENT_STREAMS); a client's further calls wait client-side.
        max_connection_age_ms: if set, each connection is closed (GOAWAY, 10 s grace for
            its calls) after this long, so clients re-resolve the server's name.
        handshake_timeout_ms: a connection that has not sent the HTTP/2 preface and
            SETTINGS within this is closed.
        max_connection_idle_ms: a connection with no call in flight this long is closed
            (GOAWAY; None: never).
        max_connections: connections open at once; beyond, a new one is closed at once
            (None: :func:`connection_cap`, half the fd limit, at most MAX_CONNECTIONS).

    Returns ``(server, bound_port, health_servicer)``; every service is marked SERVING.
    Raises AddressInUse if the address cannot be bound (ports are never shared).
    """
    age = (
        [
            ("grpc.max_connection_age_ms", max_connection_age_ms),
            ("grpc.max_connection_age_grace_ms", 10_000),
        ]
        if max_connection_age_ms
        else []
    )
    server = grpc.aio.server(
        options=[
            *age,
            *connection_options(handshake_timeout_ms, max_connection_idle_ms, max_connections),
            ("grpc.max_receive_message_length", max_request_bytes),
            ("grpc.max_concurrent_streams", max_streams_per_connection),
            *KEEPALIVE_OPTIONS,
            *PENDING_CALL_OPTIONS,
            # A second server on a busy port must fail, not share it and split clients.
            ("grpc.so_reuseport", 0),
        ],
        maximum_concurrent_rpcs=max_concurrent_rpcs,
        interceptors=[PreparedMethods()],
    )
    for add in register:
        add(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*service_names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as error:  # grpc's own "Failed to bind" for a port in use
        raise AddressInUse(address) from error
    if port == 0:
        raise AddressInUse(address)
    _HEALTH[server] = health_servicer
    return server, port, health_servicer


_HEALTH: weakref.WeakKeyDictionary[grpc.aio.Server, Any] = weakref.WeakKeyDictionary()


def health_of(server: grpc.aio.Server) -> Any:
    """The health servicer :func:`build_server` gave ``server`` (for a readiness that
    follows the store, services.rpc.store_readiness). Raises KeyError for another."""
    return _HEALTH[server]


class AddressInUse(OSError):
    """The server could not bind its address (another process listens there)."""

    def __init__(self, address: str) -> None:
        super().__init__(f"cannot listen on {address}: the address is in use or not local")
        self.address = address


async def mark_serving(
    health_servicer: Any, service_names: Sequence[str], serving: bool = True
) -> None:
    """Set the health status of the overall server ("") and each named service."""
    status = (
        health_pb2.HealthCheckResponse.SERVING
        if serving
        else health_pb2.HealthCheckResponse.NOT_SERVING
    )
    for name in ("", *service_names):
        await health_servicer.set(name, status)
