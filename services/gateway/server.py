"""Composition of the public gRPC server."""

from __future__ import annotations

import grpc

from services.engine.client import EngineClient
from services.engine.reader import GameReader
from services.engine.rulesets import DEFAULT_RULESET
from services.gateway.servicer import GameServicer
from services.rpc.limits import PeerRateLimiter
from services.rpc.server import build_server, mark_serving
from services.rpc.stubs import load_stubs

GAME_SERVICE = "teotihuacan.v1.GameService"


async def create_server(
    address: str,
    reader: GameReader,
    client: EngineClient,
    default_ruleset: str | None = None,
    limiter: PeerRateLimiter | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Start GameService (+ health, reflection) on ``address``; returns (server, port).

    ``limiter`` is the per-connection rate limit (default: DEFAULT_RATE per second).
    Bind ``127.0.0.1:0`` in tests to get a free port. Stop with ``await server.stop(grace)``.
    """
    stubs = load_stubs()
    servicer = GameServicer(
        reader, client, default_ruleset or DEFAULT_RULESET, limiter=limiter or PeerRateLimiter()
    )
    server, port, health = build_server(
        address,
        [lambda s: stubs.game_pb2_grpc.add_GameServiceServicer_to_server(servicer, s)],
        [GAME_SERVICE],
    )
    await server.start()
    await mark_serving(health, [GAME_SERVICE])
    return server, port
