"""services/rpc/errors.py: outages are UNAVAILABLE with a retry hint, nothing a client
sent is echoed unbounded (issue 12)."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from redis import exceptions as redis_errors

from services.engine.domain.errors import GameNotFound, Unavailable
from services.engine.transport.status_mapping import status_for, to_rpc_status
from services.rpc.limits import RateLimited


def _details(status: grpc.Status) -> list[object]:
    ((_key, value),) = [(k, v) for k, v in status.trailing_metadata if k.endswith("-bin")]
    decoded = status_pb2.Status.FromString(value)
    found: list[object] = []
    for detail in decoded.details:
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo):
            message = kind()
            if detail.Unpack(message):
                found.append(message)
    return found


@pytest.mark.parametrize(
    "error",
    [
        redis_errors.ConnectionError("refused"),
        redis_errors.BusyLoadingError("loading"),
        redis_errors.TimeoutError("slow"),
        redis_errors.ReadOnlyError("replica"),
        redis_errors.TryAgainError("cluster"),
        ConnectionRefusedError("refused"),
    ],
)
def test_a_redis_outage_is_unavailable_with_a_retry_hint(error: Exception) -> None:
    mapped = status_for(error)
    assert mapped is not None and mapped[:2] == (grpc.StatusCode.UNAVAILABLE, "redis_unavailable")
    status = to_rpc_status(error)
    assert status is not None and status.code == grpc.StatusCode.UNAVAILABLE
    info, retry = _details(status)
    assert isinstance(info, error_details_pb2.ErrorInfo) and info.reason == "redis_unavailable"
    assert isinstance(retry, error_details_pb2.RetryInfo)
    assert retry.retry_delay.seconds == 1


def test_a_refused_redis_login_is_a_bug_not_an_outage() -> None:
    assert status_for(redis_errors.AuthenticationError("bad password")) is None


def test_an_engine_outage_reported_by_the_engine_keeps_its_service() -> None:
    mapped = status_for(Unavailable("engine", 2.5))
    assert mapped is not None and mapped[1] == "engine_unavailable"
    status = to_rpc_status(Unavailable("engine", 2.5))
    assert status is not None
    retry = _details(status)[1]
    assert isinstance(retry, error_details_pb2.RetryInfo)
    assert (retry.retry_delay.seconds, retry.retry_delay.nanos) == (2, 500_000_000)


def test_rate_limits_carry_a_retry_hint() -> None:
    status = to_rpc_status(RateLimited("peer", 0.25))
    assert status is not None
    retry = _details(status)[1]
    assert isinstance(retry, error_details_pb2.RetryInfo)
    assert retry.retry_delay.nanos == 250_000_000


def test_nothing_a_client_sent_is_echoed_unbounded() -> None:
    status = to_rpc_status(GameNotFound("g" * 60_000))
    assert status is not None and status.code == grpc.StatusCode.NOT_FOUND
    assert len(status.details) <= 300
    assert sum(len(v) for _, v in status.trailing_metadata) < 2000
