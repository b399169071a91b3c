"""An engine served on loopback in this process, for tests and the in-process benchmarks:
the engine link (services.engine.transport.link_server), what every RemoteEngineClient
talks to."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from services.engine.domain.engine import Engine
from services.engine.entrypoints.servicer import start_engine_link


@asynccontextmanager
async def engine_served(
    engine: Engine, port: int = 0, **options: Any
) -> AsyncIterator[tuple[Any, int]]:
    """Serve ``engine``'s link on ``127.0.0.1:port`` (0: any free port). ``options`` go
    to start_engine_link (``max_in_flight_per_exchange``, ``stopping``). Yields (the
    server, the bound port) and stops the server, without grace, on exit."""
    server, bound = await start_engine_link(engine, "127.0.0.1", port, **options)
    try:
        yield server, bound
    finally:
        await server.stop(0)
