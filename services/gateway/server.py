"""Composition of the public gRPC server."""

from __future__ import annotations

import grpc

from services.engine.client import EngineClient
from services.engine.reader import GameReader
from services.engine.rulesets import DEFAULT_RULESET
from services.gateway.servicer import GameServicer
from services.gateway.watch_hub import WatchHub
from services.rpc.limits import ClientRateLimiter, CreationQuota, WatcherLimit
from services.rpc.server import build_server, mark_serving
from services.rpc.stubs import load_stubs

GAME_SERVICE = "gameserver.v1.GameService"


async def create_server(
    address: str,
    reader: GameReader,
    client: EngineClient,
    default_ruleset: str | None = None,
    limiter: ClientRateLimiter | None = None,
    quota: CreationQuota | None = None,
    hub: WatchHub | None = None,
    watchers: WatcherLimit | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Start GameService (+ health, reflection) on ``address``; returns (server, port).

    ``limiter`` is the rate limit per client (default: DEFAULT_RATE per second per seat
    token / address), ``quota`` the CreateGame quota per caller (default:
    DEFAULT_CREATES_PER_HOUR), ``hub`` the WatchGame fan-out (default: a new one on
    ``reader.store``; the caller closes one it passes), ``watchers`` the open WatchGame
    streams per client (default DEFAULT_WATCHERS_PER_CLIENT). Bind ``127.0.0.1:0`` in tests to
    get a free port. Stop with ``await server.stop(grace)``.
    """
    stubs = load_stubs()
    servicer = GameServicer(
        reader,
        client,
        default_ruleset or DEFAULT_RULESET,
        hub=hub,
        limiter=limiter or ClientRateLimiter(),
        quota=quota,
        watchers=watchers,
    )
    server, port, health = build_server(
        address,
        [lambda s: stubs.game_pb2_grpc.add_GameServiceServicer_to_server(servicer, s)],
        [GAME_SERVICE],
    )
    await server.start()
    await mark_serving(health, [GAME_SERVICE])
    return server, port
