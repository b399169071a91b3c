"""THE one place mapping domain errors to gRPC statuses, and back for remote clients.

The engine's errors and the gateway's limits (services.rpc.limits) in, rich statuses out;
the status plumbing that knows no domain (echo limit, reading details back) is
services.rpc.errors.

Every refusal carries a ``google.rpc.Status`` with a ``google.rpc.ErrorInfo`` detail:
``domain = "gameserver.v1"``, ``reason`` = the broken rule for RuleViolation (else a
fixed error kind), and ``metadata`` with ``kind``, ``message`` and, for conflicts,
``expected``/``actual``. RemoteEngineClient turns that back into the same exception.

What a client should do follows from the code: INVALID_ARGUMENT, NOT_FOUND,
PERMISSION_DENIED and FAILED_PRECONDITION — fix the request; ABORTED — reload and decide
again; RESOURCE_EXHAUSTED and UNAVAILABLE — retry after the ``google.rpc.RetryInfo``
delay they carry (an outage of Redis or of the engine is UNAVAILABLE, never INTERNAL);
INTERNAL — a bug, report it. Nothing a client sent is echoed unbounded: every message
and metadata value is cut to MAX_ECHO characters (gRPC trailers must stay small).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, ParamSpec, TypeVar

import grpc
import structlog
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from redis import exceptions as redis_errors

from services.engine.domain.errors import (
    ArchiveMismatch,
    ChainMismatch,
    CorruptLog,
    GameNotFound,
    InvalidArgument,
    InvalidOptions,
    NotAuthorized,
    RuleViolation,
    Unavailable,
    UnknownRuleset,
    VersionConflict,
)
from services.metrics.families import REFUSALS
from services.rpc.errors import DEFAULT_RETRY_S, DOMAIN, BadRequest, clip, error_info
from services.rpc.limits import (
    RateLimited,
    TooManyPlayStreams,
    TooManyStreams,
    TooManyWatchers,
    WatcherTooSlow,
)

_REDIS_OUTAGES: tuple[type[Exception], ...] = (
    redis_errors.ConnectionError,  # also BusyLoadingError, MaxConnectionsError
    redis_errors.TimeoutError,
    redis_errors.ReadOnlyError,  # a replica being promoted
    redis_errors.TryAgainError,
    redis_errors.ClusterDownError,
    redis_errors.MasterDownError,
    ConnectionError,  # refused/reset sockets, our own Unavailable
    TimeoutError,
)
_ENGINE_OUTAGES = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def outage_of(exc: Exception) -> Unavailable | None:
    """The outage ``exc`` reports (Redis or the engine down, slow or overloaded), or None.

    A Redis login refused (AuthenticationError) is a configuration bug, not an outage.
    """
    if isinstance(exc, Unavailable):
        return exc
    if isinstance(exc, grpc.aio.AioRpcError):
        if exc.code() in _ENGINE_OUTAGES:
            return Unavailable("engine", DEFAULT_RETRY_S, exc.code().name)
        return None
    if isinstance(exc, redis_errors.AuthenticationError | redis_errors.AuthorizationError):
        return None
    if isinstance(exc, _REDIS_OUTAGES):
        return Unavailable("redis", DEFAULT_RETRY_S, type(exc).__name__)
    return None


log = structlog.get_logger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


LIMIT_REASONS = frozenset(
    {
        "rate_limited",
        "too_many_watchers",
        "too_many_play_streams",
        "too_many_streams",
        "watch_too_slow",
    }
)
"""The reasons of the limits' refusals (services.rpc.limits), counted by reason in
``teoti_limit_refusals_total``."""


def status_for(exc: Exception) -> tuple[grpc.StatusCode, str, dict[str, str]] | None:
    """(code, reason, metadata) for a domain error; None if ``exc`` is not one."""
    if isinstance(exc, InvalidOptions):
        return (
            grpc.StatusCode.INVALID_ARGUMENT,
            exc.rule,
            {"kind": "invalid_options", "message": exc.message},
        )
    if isinstance(exc, RuleViolation):
        return (
            grpc.StatusCode.FAILED_PRECONDITION,
            exc.rule,
            {"kind": "rule_violation", "message": exc.message},
        )
    if isinstance(exc, VersionConflict):
        meta = {
            "kind": "version_conflict",
            "game_id": exc.game_id,
            "expected": str(exc.expected),
            "actual": str(exc.actual),
        }
        return grpc.StatusCode.ABORTED, "version_conflict", meta
    if isinstance(exc, GameNotFound):
        # A subclass (e.g. an unknown tournament) names its own reason and id field.
        return (
            grpc.StatusCode.NOT_FOUND,
            exc.rule,
            {"kind": "game_not_found", exc.id_field: exc.game_id},
        )
    if isinstance(exc, UnknownRuleset):
        return grpc.StatusCode.INVALID_ARGUMENT, "unknown_ruleset", {"kind": "unknown_ruleset"}
    if isinstance(exc, InvalidArgument):
        # A refusal that names its rule (e.g. seat_token_strength) carries it as the reason.
        reason = str(getattr(exc, "rule", "invalid_argument"))
        return grpc.StatusCode.INVALID_ARGUMENT, reason, {"kind": "invalid_argument"}
    if isinstance(exc, BadRequest):
        return grpc.StatusCode.INVALID_ARGUMENT, "malformed_request", {"kind": "invalid_argument"}
    if isinstance(exc, NotAuthorized):
        return (
            grpc.StatusCode.PERMISSION_DENIED,
            str(getattr(exc, "rule", "bad_seat_token")),
            {"kind": "not_authorized", "message": str(exc)},
        )
    if isinstance(exc, RateLimited):
        return (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "rate_limited",
            {"kind": "rate_limited", "retry_after_s": f"{exc.retry_after_s:.3f}"},
        )
    if isinstance(exc, TooManyWatchers):
        return (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "too_many_watchers",
            {"kind": "too_many_watchers", "limit": str(exc.limit)},
        )
    if isinstance(exc, TooManyPlayStreams):
        return (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "too_many_play_streams",
            {"kind": "too_many_play_streams", "limit": str(exc.limit)},
        )
    if isinstance(exc, TooManyStreams):
        return (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "too_many_streams",
            {"kind": "too_many_streams", "limit": str(exc.limit), "scope": exc.scope},
        )
    if isinstance(exc, WatcherTooSlow):
        return (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "watch_too_slow",
            {"kind": "watch_too_slow", "buffered": str(exc.buffered)},
        )
    if (outage := outage_of(exc)) is not None:
        return (
            grpc.StatusCode.UNAVAILABLE,
            f"{outage.service}_unavailable",
            {
                "kind": "unavailable",
                "service": outage.service,
                "message": str(outage),
                "retry_after_s": f"{outage.retry_after_s:.3f}",
            },
        )
    if isinstance(exc, CorruptLog):
        return grpc.StatusCode.INTERNAL, "corrupt_log", {"kind": "corrupt_log"}
    if isinstance(exc, ChainMismatch):
        return grpc.StatusCode.DATA_LOSS, "chain_mismatch", {"kind": "chain_mismatch"}
    if isinstance(exc, ArchiveMismatch):
        return grpc.StatusCode.DATA_LOSS, "archive_mismatch", {"kind": "archive_mismatch"}
    return None


def to_rpc_status(exc: Exception) -> grpc.Status | None:
    """A rich gRPC status for a domain error, or None for anything else."""
    status = rich_status(exc)
    if status is None:
        return None
    result: grpc.Status = rpc_status.to_status(status)
    return result


def rich_status(exc: Exception) -> status_pb2.Status | None:
    """The ``google.rpc.Status`` (code, "<reason>: <message>", ErrorInfo and, for a
    retryable refusal, RetryInfo) of a domain error, or None for anything else. A refused
    unary call carries it as its trailer; a Play stream answers the request with it."""
    mapped = status_for(exc)
    if mapped is None:
        return None
    code, reason, metadata = mapped
    if reason in LIMIT_REASONS:  # both faces refuse through here: counted once
        REFUSALS.inc(reason)
    message = clip(metadata.get("message") or str(exc))
    # Every refusal explains itself (README); nothing the client sent comes back unbounded.
    metadata = {key: clip(value) for key, value in {**metadata, "message": message}.items()}
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if "retry_after_s" in metadata:
        # Rounded, not truncated: 0.003 s is 2,999,999.9999 ns in floating point.
        seconds, nanos = divmod(round(float(metadata["retry_after_s"]) * 1e9), 1_000_000_000)
        retry = error_details_pb2.RetryInfo(
            retry_delay=duration_pb2.Duration(seconds=seconds, nanos=nanos)
        )
        hint = any_pb2.Any()
        hint.Pack(retry)
        details.append(hint)
    return status_pb2.Status(code=code.value[0], message=f"{reason}: {message}", details=details)


async def abort_for(context: grpc.aio.ServicerContext[Any, Any], exc: Exception) -> NoReturn:
    """Abort the RPC with the status mapped from ``exc`` (INTERNAL if unmapped)."""
    status = to_rpc_status(exc)
    if status is None:
        log.exception("unexpected_error", error=clip(repr(exc)))
        await context.abort(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}")
    else:
        await context.abort_with_status(status)
    raise AssertionError("abort returned")  # pragma: no cover


def unary_errors(
    method: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R]]:
    """Decorate an async unary servicer method ``(self, request, context)`` to map errors."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            if isinstance(args[1], BadRequest):
                raise args[1]
            return await method(*args, **kwargs)
        except Exception as exc:
            if isinstance(exc, grpc.aio.AbortError):
                raise
            await abort_for(args[2], exc)

    return wrapper


def stream_errors(
    method: Callable[P, AsyncIterator[R]],
) -> Callable[P, AsyncIterator[R]]:
    """Decorate an async-generator servicer method ``(self, request, context)``."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> AsyncIterator[R]:
        try:
            if isinstance(args[1], BadRequest):
                raise args[1]
            async for item in method(*args, **kwargs):
                yield item
        except Exception as exc:
            if isinstance(exc, grpc.aio.AbortError):
                raise
            await abort_for(args[2], exc)

    return wrapper


def from_rpc_error(error: Exception) -> Exception:
    """The domain error a failed call stands for (the inverse of :func:`to_rpc_status`).

    Calls without our ErrorInfo (e.g. UNAVAILABLE) come back unchanged.
    """
    original = error
    if not isinstance(error, grpc.aio.AioRpcError):
        return original
    info = error_info(error)
    if info is None or info.domain != DOMAIN:
        return original
    meta = dict(info.metadata)
    kind = meta.get("kind", "")
    message = meta.get("message", error.details() or "")
    if kind == "invalid_options":
        return InvalidOptions(info.reason, message)
    if kind == "rule_violation":
        return RuleViolation(info.reason, message)
    if kind == "version_conflict":
        return VersionConflict(meta.get("game_id", ""), int(meta["expected"]), int(meta["actual"]))
    if kind == "game_not_found":
        return GameNotFound(str(meta.get("game_id") or meta.get("tournament_id") or ""))
    if kind == "unknown_ruleset":
        return UnknownRuleset(error.details() or "")
    if kind == "invalid_argument":
        refused = InvalidArgument(error.details() or "")
        if info.reason != "invalid_argument":
            # Keep the rule it named (e.g. time_control_invalid) through a remote engine.
            setattr(refused, "rule", info.reason)  # noqa: B010
        return refused
    if kind == "corrupt_log":
        return CorruptLog(error.details() or "")
    if kind == "chain_mismatch":
        return ChainMismatch("", error.details() or "")
    if kind == "not_authorized":
        return NotAuthorized(message)
    if kind == "unavailable":
        return Unavailable(
            meta.get("service", "engine"), float(meta.get("retry_after_s", DEFAULT_RETRY_S))
        )
    return original  # a newer server's kind: keep the gRPC error
