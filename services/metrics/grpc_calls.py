"""Every gRPC call counted by method and status code, unary calls timed, streams held
counted (:data:`services.metrics.families.REQUESTS`, ``LATENCY``, ``STREAMS_OPEN``).

:func:`instrumented` wraps a method's behaviour; the server's interceptor
(services.rpc.server.PreparedMethods) does it once per method, so a call costs two
clock reads and two metric updates.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from services.metrics.families import LATENCY, REQUESTS, STREAMS_OPEN

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
    if code is None and failed is None:
        return "OK"
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
    async def call(request: Any, context: Any) -> Any:
        start = time.perf_counter()
        failed: BaseException | None = None
        try:
            return await behavior(request, context)
        except BaseException as error:
            failed = error
            raise
        finally:
            LATENCY.observe(time.perf_counter() - start, FACE, method)
            REQUESTS.inc(FACE, method, code_name(context, failed))

    return call


def _streaming(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(behavior):

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            failed: BaseException | None = None
            STREAMS_OPEN.add(1, FACE, method)
            try:
                async for response in behavior(request, context):
                    yield response
            except BaseException as error:
                failed = error
                raise
            finally:
                STREAMS_OPEN.add(-1, FACE, method)
                REQUESTS.inc(FACE, method, code_name(context, failed))

        return stream

    async def writer(request: Any, context: Any) -> Any:  # a behaviour using context.write
        failed: BaseException | None = None
        STREAMS_OPEN.add(1, FACE, method)
        try:
            return await behavior(request, context)
        except BaseException as error:
            failed = error
            raise
        finally:
            STREAMS_OPEN.add(-1, FACE, method)
            REQUESTS.inc(FACE, method, code_name(context, failed))

    return writer


def instrumented(handler: Any, method: str) -> Any:
    """``handler`` (a grpc RpcMethodHandler) with its behaviour counted and timed under
    ``method`` (``package.Service/Method``; services.rpc.server.PreparedMethods makes each
    once per method)."""
    if handler.unary_unary is not None:
        return handler._replace(unary_unary=_unary(handler.unary_unary, method))
    if handler.stream_unary is not None:
        return handler._replace(stream_unary=_unary(handler.stream_unary, method))
    if handler.unary_stream is not None:
        return handler._replace(unary_stream=_streaming(handler.unary_stream, method))
    if handler.stream_stream is not None:
        return handler._replace(stream_stream=_streaming(handler.stream_stream, method))
    return handler
