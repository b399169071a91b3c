"""Refusals of the game service as Python exceptions.

Every refusal carries a ``google.rpc.ErrorInfo`` (README, "API guide"): ``reason`` is the
broken rule's id (e.g. ``"not_your_turn"``) or a fixed error kind, ``metadata["kind"]``
says which of the classes below it is, ``metadata["message"]`` explains it (naming the
rulebook section, ``RULES.md §…``, for a rule). Calls the server did not
refuse that way (UNAVAILABLE, DEADLINE_EXCEEDED, ...) stay ``grpc.aio.AioRpcError``.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from teoti_client.proto import rpc_status_pb2

#: ErrorInfo.domain of the game service's own refusals.
DOMAIN = "gameserver.v1"
_DETAILS_KEY = "grpc-status-details-bin"
_ERROR_INFO_TYPE = "google.rpc.ErrorInfo"


class GameServiceError(Exception):
    """A call the server refused, with its status ``code``, ``reason`` and ``metadata``.

    ``str(error)`` is the server's explanation (``metadata["message"]``).
    """

    def __init__(
        self, code: grpc.StatusCode, reason: str, message: str, metadata: Mapping[str, str]
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata)


class RuleViolation(GameServiceError):
    """FAILED_PRECONDITION: the action breaks the rule named by ``reason``."""


class InvalidArgument(GameServiceError):
    """INVALID_ARGUMENT: bad JSON, seat, options (``kind`` invalid_options) or ruleset."""


class GameNotFound(GameServiceError):
    """NOT_FOUND: no game has this id."""


class VersionConflict(GameServiceError):
    """ABORTED: ``expected_version`` is stale; ``actual`` is the game's version now."""

    @property
    def expected(self) -> int:
        """The version the request expected."""
        return int(self.metadata.get("expected", "0"))

    @property
    def actual(self) -> int:
        """The game's version when the request arrived."""
        return int(self.metadata.get("actual", "0"))


class NotAuthorized(GameServiceError):
    """PERMISSION_DENIED: a missing or wrong seat token."""


class RateLimited(GameServiceError):
    """RESOURCE_EXHAUSTED: the connection is over its rate; retry after ``retry_after_s``."""

    @property
    def retry_after_s(self) -> float:
        """Seconds to wait before the next call."""
        return float(self.metadata.get("retry_after_s", "0"))


class LogCorrupted(GameServiceError):
    """DATA_LOSS / INTERNAL: the game's stored log no longer chains or folds."""


_KINDS: dict[str, type[GameServiceError]] = {
    "rule_violation": RuleViolation,
    "invalid_options": InvalidArgument,
    "invalid_argument": InvalidArgument,
    "unknown_ruleset": InvalidArgument,
    "game_not_found": GameNotFound,
    "version_conflict": VersionConflict,
    "not_authorized": NotAuthorized,
    "rate_limited": RateLimited,
    "corrupt_log": LogCorrupted,
    "chain_mismatch": LogCorrupted,
    "archive_mismatch": LogCorrupted,
}


def error_info(error: grpc.aio.AioRpcError) -> rpc_status_pb2.ErrorInfo | None:
    """The ErrorInfo detail of a failed call, or None if the server sent none."""
    for key, value in error.trailing_metadata() or ():
        if key != _DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = rpc_status_pb2.Status.FromString(value)
        for detail in status.details:
            if detail.type_url.rpartition("/")[2] == _ERROR_INFO_TYPE:
                return rpc_status_pb2.ErrorInfo.FromString(detail.value)
    return None


def decode_error(error: grpc.aio.AioRpcError) -> Exception:
    """The :class:`GameServiceError` subclass a refused call stands for.

    Returns ``error`` itself for a call without the game service's ErrorInfo (an outage,
    a deadline) and, as a plain :class:`GameServiceError`, a kind this client does not
    know yet (a newer server).
    """
    info = error_info(error)
    if info is None or info.domain != DOMAIN:
        unchanged: Exception = error
        return unchanged
    metadata = dict(info.metadata)
    message = metadata.get("message") or error.details() or info.reason
    cls = _KINDS.get(metadata.get("kind", ""), GameServiceError)
    return cls(error.code(), info.reason, message, metadata)
