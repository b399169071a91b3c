"""A grpc.aio ServicerContext stand-in for calls that arrive over HTTP.

The web face calls the gRPC servicer's own methods, so everything they do with their
context (peer for the rate limits, ``authorization`` metadata for seat tokens, deadline,
abort with a rich status) has to mean the same here. An abort raises :class:`WebAbort`
carrying the ``google.rpc.Status`` the gRPC client would have seen in its trailers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

import grpc
from google.rpc import status_pb2

from services.rpc.errors import DETAILS_KEY


class WebAbort(grpc.aio.AbortError):  # type: ignore[misc]
    """The servicer aborted the call: ``status`` is the google.rpc.Status to send.

    A subclass of grpc's AbortError so the servicer's error decorators
    (services.engine.transport.status_mapping) pass it through as they pass a real abort.
    """

    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.status = status


def status_of(code: grpc.StatusCode, message: str) -> status_pb2.Status:
    """A google.rpc.Status without details."""
    return status_pb2.Status(code=code.value[0], message=message)


def peer_string(host: str | None, port: int | None) -> str:
    """The gRPC peer spelling of an HTTP client address (``ipv4:1.2.3.4:5678``,
    ``ipv6:[::1]:5678``), so the limits key callers the same way on both faces."""
    if not host:
        return "unknown"
    if ":" in host:
        return f"ipv6:[{host}]:{port or 0}"
    return f"ipv4:{host}:{port or 0}"


class WebContext:
    """What the GameService servicer reads from its context, for one HTTP request.

    Args:
        peer: the caller in gRPC's spelling (:func:`peer_string`).
        metadata: request headers as (lower-case name, value) pairs; the servicer reads
            ``authorization: Bearer <token>`` from them.
        timeout_s: the caller's deadline in seconds from now, or None for none.
    """

    def __init__(
        self, peer: str, metadata: Sequence[tuple[str, str]], timeout_s: float | None = None
    ) -> None:
        self._peer = peer
        self._metadata = tuple(metadata)
        self._deadline = None if timeout_s is None else time.monotonic() + timeout_s
        self.accepted = asyncio.Event()
        """Set when a stream sends its initial metadata or its first response (the call
        was accepted: the HTTP response may start)."""
        self._done = False
        self._cancelled = False
        self._callbacks: list[Callable[[Any], None]] = []
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None

    def finish(self, *, cancelled: bool = False) -> None:
        """The HTTP exchange ended (``cancelled``: the client left before the end); runs
        the done callbacks once, as grpc runs them when an RPC terminates."""
        if self._done:
            return
        self._done = True
        self._cancelled = cancelled
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def done(self) -> bool:
        """True once the call has ended (the response is sent or the client left)."""
        return self._done

    def cancelled(self) -> bool:
        """True if the client left before the call ended."""
        return self._cancelled

    def is_active(self) -> bool:
        """False once the call has ended (grpc's legacy spelling of ``not done()``)."""
        return not self._done

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        """Run ``callback(self)`` when the call ends (now if it already has)."""
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def set_code(self, code: grpc.StatusCode) -> None:
        """Remembered only: the web face answers from the reply or an abort."""
        self._code = code

    def set_details(self, details: str) -> None:
        """Remembered only, as :meth:`set_code`."""
        self._details = details

    def code(self) -> grpc.StatusCode | None:
        """The code set by :meth:`set_code`, or None."""
        return self._code

    def details(self) -> str | None:
        """The details set by :meth:`set_details`, or None."""
        return self._details

    def set_trailing_metadata(self, _metadata: Any) -> None:
        """Ignored: HTTP replies carry no trailers here."""

    def auth_context(self) -> dict[str, list[bytes]]:
        """No transport security identity over plain HTTP."""
        return {}

    def disable_next_message_compression(self) -> None:
        """Nothing to disable: the web face does not compress."""

    def peer(self) -> str:
        """The caller, as grpc spells a peer."""
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request's headers."""
        return self._metadata

    def time_remaining(self) -> float | None:
        """Seconds left before the caller's deadline, or None."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - time.monotonic())

    async def send_initial_metadata(self, _metadata: Any) -> None:
        """Mark the (streaming) call accepted: the HTTP response may start."""
        self.accepted.set()

    async def abort(self, code: grpc.StatusCode, details: str = "", *_: Any) -> None:
        """End the call with ``code``: raises WebAbort."""
        raise WebAbort(status_of(code, details))

    async def abort_with_status(self, status: grpc.Status) -> None:
        """End the call with a rich status (its google.rpc.Status from the trailers)."""
        for key, value in status.trailing_metadata or ():
            if key == DETAILS_KEY and isinstance(value, bytes):
                raise WebAbort(status_pb2.Status.FromString(value))
        raise WebAbort(status_of(status.code, status.details))
