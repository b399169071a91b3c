"""The web face of GameService: its descriptor and a servicer, served over HTTP."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from teoti_client.proto import game_service_pb2

from services.engine.domain.head_signing import WELL_KNOWN_PATH
from services.web.server import WebServer, WebSettings, build_app, start_web

GAME_SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]


def split_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:8080`` for IPv6) as (host, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]") or "127.0.0.1", int(port)


async def start_game_web(
    address: str,
    servicer: Any,
    settings: WebSettings | None = None,
    tournaments: Any | None = None,
    players: Any | None = None,
    ratings: Any | None = None,
    lobby: Any | None = None,
) -> WebServer:
    """Serve ``servicer`` (a GameService servicer, as the gRPC server runs it) and, when
    given, ``tournaments`` (a TournamentService servicer), ``players`` (a PlayerService
    servicer), ``ratings`` (a RatingService servicer) and ``lobby`` (a LobbyService
    servicer) on the web face at ``address``
    (``host:port``; port 0: a free one), with the servicer's public signing keys at
    ``/.well-known/teoti-signing-keys.json`` (what ListSigningKeys answers)."""
    services: list[tuple[Any, Any]] = [(GAME_SERVICE, servicer)]
    if tournaments is not None:
        from services.rpc.generated import tournament_service_pb2

        descriptor = tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"]
        services.append((descriptor, tournaments))
    if players is not None:
        from teoti_client.proto import player_service_pb2

        services.append((player_service_pb2.DESCRIPTOR.services_by_name["PlayerService"], players))
    if ratings is not None:  # a RatingService servicer (issue 32)
        from teoti_client.proto import rating_service_pb2

        services.append((rating_service_pb2.DESCRIPTOR.services_by_name["RatingService"], ratings))
    if lobby is not None:
        from teoti_client.proto import lobby_service_pb2

        services.append((lobby_service_pb2.DESCRIPTOR.services_by_name["LobbyService"], lobby))
    settings = settings or WebSettings()
    host, port = split_address(address)

    async def signing_keys(_: Request) -> Response:
        return JSONResponse(servicer.signing.document())

    well_known = Route(WELL_KNOWN_PATH, signing_keys, methods=["GET"])
    return await start_web(
        build_app(services, settings, [well_known]),
        host,
        port,
        max_request_bytes=settings.max_request_bytes,
        settings=settings,
    )
