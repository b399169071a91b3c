"""Every gRPC call counted by method and status code, unary calls timed, streams held
counted (:data:`services.metrics.families.REQUESTS`, ``LATENCY``, ``STREAMS_OPEN``).

A server interceptor (grpc.aio) wraps each method's behaviour once (cached per method,
so a call costs two clock reads and two metric updates). Only methods the server has a
handler for are wrapped: an unknown method's name, which the client chose, never becomes
a label.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from services.metrics.families import STREAMS_OPEN, latency_of, requests_of

FACE = "grpc"


@functools.cache
def status_name(number: int) -> str:
    """The name of gRPC status code ``number`` (3: INVALID_ARGUMENT); UNKNOWN for a
    number that names none."""
    return next((code.name for code in grpc.StatusCode if code.value[0] == number), "UNKNOWN")


def code_name(context: Any, failed: BaseException | None) -> str:
    """The status code name the call ended with: the one set on ``context`` (an abort
    sets it), else CANCELLED for a call cancelled (the client left), UNKNOWN for another
    exception (what grpc answers), OK."""
    try:
        code = context.code()
    except Exception:  # a context without code(): judge by the exception alone
        code = None
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    if isinstance(code, int):
        return status_name(code)
    if failed is None:
        return "OK"
    if isinstance(failed, asyncio.CancelledError):
        return "CANCELLED"
    return "UNKNOWN"


def _unary(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    latency = latency_of(FACE, method)

    async def call(request: Any, context: Any) -> Any:
        start = time.perf_counter()
        failed: BaseException | None = None
        try:
            return await behavior(request, context)
        except BaseException as error:
            failed = error
            raise
        finally:
            latency.observe(time.perf_counter() - start)
            requests_of(FACE, method, code_name(context, failed)).inc()

    return call


def _streaming(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    held = STREAMS_OPEN.labels(FACE, method)
    if inspect.isasyncgenfunction(behavior):

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            failed: BaseException | None = None
            held.inc()
            try:
                async for response in behavior(request, context):
                    yield response
            except BaseException as error:
                failed = error
                raise
            finally:
                held.dec()
                requests_of(FACE, method, code_name(context, failed)).inc()

        return stream

    async def writer(request: Any, context: Any) -> Any:  # a behaviour using context.write
        failed: BaseException | None = None
        held.inc()
        try:
            return await behavior(request, context)
        except BaseException as error:
            failed = error
            raise
        finally:
            held.dec()
            requests_of(FACE, method, code_name(context, failed)).inc()

    return writer


class CallMetrics(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts and times every call of the methods the server serves."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self, continuation: Callable[[Any], Any], handler_call_details: Any
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None  # grpc answers UNIMPLEMENTED; the name is the client's text
        method = str(handler_call_details.method)
        seen = self._wrapped.get(method)
        if seen is not None and seen[0] is handler:
            return seen[1]
        wrapped = self._wrap(handler, method.lstrip("/"))
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    @staticmethod
    def _wrap(handler: Any, method: str) -> Any:
        if handler.unary_unary is not None:
            return handler._replace(unary_unary=_unary(handler.unary_unary, method))
        if handler.stream_unary is not None:
            return handler._replace(stream_unary=_unary(handler.stream_unary, method))
        if handler.unary_stream is not None:
            return handler._replace(unary_stream=_streaming(handler.unary_stream, method))
        if handler.stream_stream is not None:
            return handler._replace(stream_stream=_streaming(handler.stream_stream, method))
        return handler
