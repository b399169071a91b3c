"""A stand-in for the little of a grpc.aio ServicerContext that the gateway's servicer reads
when a test (or an in-process benchmark) calls its methods directly, with no gRPC call."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """What a unary method's refusal ends with here (``context.abort`` under gRPC): its
    status code and details."""


class ServicerContext:
    """No metadata, a fixed loopback peer, no deadline; ``abort`` raises :class:`Refused`."""

    def invocation_metadata(self) -> tuple[()]:
        return ()

    def peer(self) -> str:
        return "ipv4:127.0.0.1:4242"

    def time_remaining(self) -> None:
        return None

    async def abort(self, code: Any, details: str) -> None:
        raise Refused(f"{code}: {details}")

    async def abort_with_status(self, status: Any) -> None:
        raise Refused(f"{status.code}: {status.details}")
