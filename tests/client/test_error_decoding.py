"""The client's own copy of google.rpc.Status/ErrorInfo decodes what the server encodes.

``teoti_client`` decodes refusals without googleapis-common-protos, through the wire-compatible
messages of ``clients/python/proto/teoti_client/rpc_status.proto``. For every domain error the
server maps (``services.engine.transport.status_mapping.to_rpc_status``, with the real
google.rpc messages), the client must find the same reason, message and metadata, and pick the
error class the README names."""

from __future__ import annotations

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from teoti_client import errors as client_errors

from services.engine.domain.errors import (
    ChainMismatch,
    GameNotFound,
    InvalidArgument,
    InvalidOptions,
    NotAuthorized,
    RuleViolation,
    UnknownRuleset,
    VersionConflict,
)
from services.engine.transport.status_mapping import to_rpc_status
from services.rpc.errors import clip
from services.rpc.limits import RateLimited


def _failed_call(exc: Exception) -> grpc.aio.AioRpcError:
    """The error a client sees when the server refuses a call with ``exc``."""
    status = to_rpc_status(exc)
    assert status is not None
    return grpc.aio.AioRpcError(
        status.code,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(*status.trailing_metadata),
        status.details,
    )


CASES = [
    (RuleViolation("RULES.md §3.4", "no worker there"), client_errors.RuleViolation),
    (InvalidOptions("first_game", "must be a boolean"), client_errors.InvalidArgument),
    (InvalidArgument("bad JSON"), client_errors.InvalidArgument),
    (UnknownRuleset("chess"), client_errors.InvalidArgument),
    (GameNotFound("g1"), client_errors.GameNotFound),
    (VersionConflict("g1", 3, 5), client_errors.VersionConflict),
    (NotAuthorized("wrong token"), client_errors.NotAuthorized),
    (RateLimited("peer", 0.25), client_errors.RateLimited),
    (ChainMismatch("g1", "tail changed"), client_errors.LogCorrupted),
]


@pytest.mark.parametrize(("exc", "expected"), CASES, ids=[type(c[0]).__name__ for c in CASES])
def test_each_refusal_decodes_to_its_class(
    exc: Exception, expected: type[client_errors.GameServiceError]
) -> None:
    call = _failed_call(exc)
    decoded = client_errors.decode_error(call)
    assert type(decoded) is expected
    assert isinstance(decoded, client_errors.GameServiceError)
    assert decoded.code == call.code()
    assert decoded.metadata["kind"] and str(decoded) == decoded.metadata["message"]


def test_conflict_and_rate_limit_details_survive() -> None:
    conflict = client_errors.decode_error(_failed_call(VersionConflict("g1", 3, 5)))
    assert isinstance(conflict, client_errors.VersionConflict)
    assert (conflict.expected, conflict.actual) == (3, 5)
    limited = client_errors.decode_error(_failed_call(RateLimited("peer", 0.25)))
    assert isinstance(limited, client_errors.RateLimited)
    assert limited.retry_after_s == pytest.approx(0.25)


@given(rule=st.text(min_size=1), message=st.text(min_size=1))
def test_any_rule_and_message_round_trip(rule: str, message: str) -> None:
    decoded = client_errors.decode_error(_failed_call(RuleViolation(rule, message)))
    assert isinstance(decoded, client_errors.RuleViolation)
    # The server echoes at most MAX_ECHO characters of a message (issue 12).
    assert (decoded.reason, decoded.message) == (rule, clip(message))


def test_a_call_without_error_info_stays_a_grpc_error() -> None:
    outage = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "down"
    )
    assert client_errors.decode_error(outage) is outage
