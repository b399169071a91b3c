"""Refusals on the web face: the gRPC status as HTTP status + google.rpc.Status JSON.

The body is the ``google.rpc.Status`` the gRPC face sends in its trailers, printed with
protobuf's JSON mapping: ``{"code": 9, "message": "...", "details": [{"@type":
"type.googleapis.com/google.rpc.ErrorInfo", "reason": ..., "domain": "gameserver.v1",
"metadata": {...}}]}``. The HTTP status follows the usual gRPC-to-HTTP table (the one
grpc-gateway and Google's HTTP APIs use), so a client that reads only the HTTP status
still does the right thing; ``Retry-After`` is set from a RetryInfo detail.
"""

from __future__ import annotations

import math
from typing import Any

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from services.web.context import status_of

HTTP_STATUS: dict[int, int] = {
    grpc.StatusCode.OK.value[0]: 200,
    grpc.StatusCode.CANCELLED.value[0]: 499,
    grpc.StatusCode.UNKNOWN.value[0]: 500,
    grpc.StatusCode.INVALID_ARGUMENT.value[0]: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED.value[0]: 504,
    grpc.StatusCode.NOT_FOUND.value[0]: 404,
    grpc.StatusCode.ALREADY_EXISTS.value[0]: 409,
    grpc.StatusCode.PERMISSION_DENIED.value[0]: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]: 429,
    grpc.StatusCode.FAILED_PRECONDITION.value[0]: 400,
    grpc.StatusCode.ABORTED.value[0]: 409,
    grpc.StatusCode.OUT_OF_RANGE.value[0]: 400,
    grpc.StatusCode.UNIMPLEMENTED.value[0]: 501,
    grpc.StatusCode.INTERNAL.value[0]: 500,
    grpc.StatusCode.UNAVAILABLE.value[0]: 503,
    grpc.StatusCode.DATA_LOSS.value[0]: 500,
    grpc.StatusCode.UNAUTHENTICATED.value[0]: 401,
}
"""HTTP status per gRPC code number."""


def status_json(status: status_pb2.Status) -> dict[str, Any]:
    """``status`` as protobuf JSON (details unpacked with their ``@type``)."""
    # error_details_pb2 is imported above so its types are in the default pool.
    assert error_details_pb2.ErrorInfo.DESCRIPTOR is not None
    body: dict[str, Any] = json_format.MessageToDict(status)
    body.setdefault("code", status.code)
    body.setdefault("message", status.message)
    body.setdefault("details", [])
    return body


def http_status(status: status_pb2.Status) -> int:
    """The HTTP status of a gRPC status (500 for an unknown code)."""
    return HTTP_STATUS.get(status.code, 500)


def retry_after(status: status_pb2.Status) -> str | None:
    """Whole seconds for a ``Retry-After`` header from a RetryInfo detail, or None."""
    for detail in status.details:
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            delay = info.retry_delay.seconds + info.retry_delay.nanos / 1e9
            return str(max(1, math.ceil(delay)))
    return None


def refusal(code: grpc.StatusCode, reason: str, message: str) -> status_pb2.Status:
    """A Status with an ErrorInfo (domain gameserver.v1) for refusals the web layer
    makes itself, before any servicer runs (unknown method, body too large, bad JSON)."""
    from services.rpc.errors import DOMAIN

    status = status_of(code, f"{reason}: {message}")
    info = error_details_pb2.ErrorInfo(
        reason=reason, domain=DOMAIN, metadata={"kind": _kind(code), "message": message}
    )
    status.details.add().Pack(info)
    return status


def _kind(code: grpc.StatusCode) -> str:
    kinds: dict[grpc.StatusCode, str] = {
        grpc.StatusCode.INVALID_ARGUMENT: "invalid_argument",
        grpc.StatusCode.RESOURCE_EXHAUSTED: "request_too_large",
        grpc.StatusCode.UNIMPLEMENTED: "unimplemented",
    }
    return kinds.get(code) or str(code.name).lower()
