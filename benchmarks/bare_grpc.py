"""A bare grpc.aio server of one stream-stream method, for the transport benchmarks
(floor_benchmark): no service of ours, no serialization (bytes in, bytes
out), so what is measured is gRPC's own cost and whatever the handler adds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from multiprocessing.connection import Connection
from typing import Any

Handler = Callable[[AsyncIterator[bytes], Any], AsyncIterator[bytes]]


async def serve_stream_method(
    service: str, method: str, handler: Handler, ready: Connection
) -> None:
    """Serve ``handler`` as ``/{service}/{method}`` on a free loopback port, send that
    port on ``ready`` and serve until cancelled."""
    import grpc

    generic = grpc.method_handlers_generic_handler(
        service, {method: grpc.stream_stream_rpc_method_handler(handler)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((generic,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ready.send(port)
    await asyncio.Event().wait()
