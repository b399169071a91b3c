"""An engine served on loopback in this process, for tests and the in-process benchmarks:
the engine link (services.engine.transport.link_server) or EngineService over gRPC."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from services.engine.domain.engine import Engine
from services.engine.entrypoints.servicer import start_engine_link, start_engine_server


@asynccontextmanager
async def engine_served(
    engine: Engine, transport: str, port: int = 0, **options: Any
) -> AsyncIterator[tuple[Any, int]]:
    """Serve ``engine`` on ``127.0.0.1:port`` (0: any free port): the engine link for
    ``transport == "link"``, else EngineService over gRPC (``stream`` and ``unary``
    clients both talk to it). ``options`` go to start_engine_link / start_engine_server
    (``max_in_flight_per_exchange``, ``stopping``). Yields (the server, the bound port)
    and stops the server, without grace, on exit."""
    server: Any
    if transport == "link":
        server, bound = await start_engine_link(engine, "127.0.0.1", port, **options)
    else:
        server, bound = await start_engine_server(engine, f"127.0.0.1:{port}", **options)
    try:
        yield server, bound
    finally:
        await server.stop(0)
