"""Shared helpers of the integration tests: play Nim games through an engine, a
GameService over either engine wiring, a health check."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from teoti_client.proto import game_service_pb2_grpc

from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.entrypoints.servicer import start_engine_link
from services.engine.transport.client import EngineClient, InProcessEngineClient
from services.engine.transport.remote import RemoteEngineClient
from services.gateway.server import create_server

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]


async def play_to_end(engine: Engine, game_id: str, take: int = 1) -> int:
    """Play seats in turn (taking ``take`` or what is left) until the game ends."""
    while True:
        snapshot = await engine.load(game_id)
        if snapshot.is_terminal():
            return snapshot.version
        (seat,) = snapshot.seats_to_act()
        pile = snapshot.state.pile
        await engine.submit_action(
            game_id, seat, {"take": min(take, pile)}, command_id=f"c{snapshot.version}"
        )


@asynccontextmanager
async def game_service(
    engine: Engine, reader: GameReader, wiring: str, default_ruleset: str = "nim"
) -> AsyncIterator[Any]:
    """A GameService stub on a real gateway over ``engine``, reached in process
    (``wiring="in_process"``) or through a remote engine's link (``"remote_engine"``), the
    two ways the gateway writes; everything is stopped on exit."""
    engine_server = None
    client: EngineClient
    if wiring == "remote_engine":
        engine_server, engine_port = await start_engine_link(engine, "127.0.0.1", 0)
        client = RemoteEngineClient(f"127.0.0.1:{engine_port}")
    else:
        client = InProcessEngineClient(engine)
    server, port = await create_server("127.0.0.1:0", reader, client, default_ruleset)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield game_service_pb2_grpc.GameServiceStub(channel)
    finally:
        await server.stop(None)
        await client.close()
        if engine_server is not None:
            await engine_server.stop(None)


async def health_status(port: int, service: str) -> int:
    """The gRPC health status of ``service`` on ``127.0.0.1:port``."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        request = health_pb2.HealthCheckRequest(service=service)
        reply = await health_pb2_grpc.HealthStub(channel).Check(request, timeout=5)
    return int(reply.status)
