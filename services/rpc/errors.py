"""gRPC status plumbing that knows no game and no engine: the malformed-request error,
the echo limit, and reading a refusal's ``google.rpc.Status`` details back.

Which domain error becomes which status lives with the engine's transport
(services.engine.transport.status_mapping); this module is what both it and the gRPC
server plumbing (services.rpc.server) need, so services.rpc imports nothing of the engine.
"""

from __future__ import annotations

from typing import Any

import grpc
import structlog
from google.rpc import error_details_pb2, status_pb2
from teoti_client.errors import DOMAIN as DOMAIN  # one spelling for server and client

DETAILS_KEY = "grpc-status-details-bin"
"""The trailer holding a refusal's serialized ``google.rpc.Status``."""
MAX_ECHO = 200
"""Characters of any message or metadata value sent back (clients' input is cut)."""
DEFAULT_RETRY_S = 1.0
"""The retry delay suggested for an outage."""


class BadRequest(Exception):
    """A request whose bytes are not the method's message (see services.rpc.server)."""


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` cut to ``limit`` characters (marked with an ellipsis when cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


log = structlog.get_logger(__name__)


def internal_status(exc: Exception) -> status_pb2.Status:
    """The INTERNAL status of an unexpected error (a bug), logged with its trace: the
    status message names the exception's type only, as the engine's ``abort_for`` does
    (services.engine.transport.status_mapping)."""
    log.exception("unexpected_error", error=clip(repr(exc)))
    return status_pb2.Status(
        code=grpc.StatusCode.INTERNAL.value[0], message=f"internal error: {type(exc).__name__}"
    )


_CODES = {code.value[0]: code for code in grpc.StatusCode}


def rpc_error_from_status(status: bytes) -> grpc.aio.AioRpcError:
    """The failed-call error a serialized ``google.rpc.Status`` stands for, as a unary
    call refused with it would raise (its details in the trailer), so
    services.engine.transport.status_mapping.from_rpc_error maps it back exactly alike.
    Raises DecodeError for bytes that are not a Status."""
    decoded = status_pb2.Status.FromString(status)
    return grpc.aio.AioRpcError(
        _CODES.get(decoded.code, grpc.StatusCode.UNKNOWN),
        grpc.aio.Metadata(),
        grpc.aio.Metadata((DETAILS_KEY, status)),
        details=decoded.message,
    )


def error_info(error: Any) -> Any:
    """The ErrorInfo detail of a failed call, if the server sent one."""
    for key, value in error.trailing_metadata() or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info
    return None


def retry_delay_s(error: Any) -> float | None:
    """The ``google.rpc.RetryInfo`` delay (seconds) of a failed call, or None."""
    for key, value in error.trailing_metadata() or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.RetryInfo()
                if detail.Unpack(info):
                    return float(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)
    return None
