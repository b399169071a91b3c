"""Composition of the public gRPC server."""

from __future__ import annotations

import grpc
from teoti_client.proto import game_service_pb2_grpc

from services.engine.domain.head_signing import SigningKeys
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import default_ruleset as installed_default
from services.engine.transport.client import EngineClient
from services.gateway.lobby_servicer import LOBBY_SERVICE, LobbyServicer
from services.gateway.play_stream import PLAY_IDLE_GRACE_S
from services.gateway.player_servicer import PLAYER_SERVICE, PlayerServicer
from services.gateway.rating_servicer import RATING_SERVICE, RatingServicer
from services.gateway.servicer import GameServicer
from services.gateway.tournament_servicer import TOURNAMENT_SERVICE, TournamentServicer
from services.gateway.watch_hub import WatchHub
from services.lobby.service import LobbyService
from services.notices.hub import NoticeHub
from services.players.service import PlayerService
from services.ratings.queries import RatingQueries
from services.rpc.limits import (
    UNARY_RESERVE,
    ClientRateLimiter,
    CreationQuota,
    PlayStreamLimit,
    StreamBudget,
    WatcherLimit,
)
from services.rpc.server import MAX_CONCURRENT_RPCS, build_server, mark_serving
from services.tournament.service import TournamentService

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
    tournaments: TournamentService | None = None,
    play_streams: PlayStreamLimit | None = None,
    signing: SigningKeys | None = None,
    streams: StreamBudget | None = None,
    max_concurrent_rpcs: int = MAX_CONCURRENT_RPCS,
    play_grace_s: float = PLAY_IDLE_GRACE_S,
    players: PlayerService | None = None,
    accounts: CreationQuota | None = None,
    notices: NoticeHub | None = None,
    ratings: RatingQueries | None = None,
    lobby: LobbyService | None = None,
    lobby_quota: CreationQuota | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Start GameService (+ health, reflection) on ``address``; returns (server, port).

    ``limiter`` is the rate limit per client (default: DEFAULT_RATE per second per seat
    token / address), ``quota`` the CreateGame quota per caller (default:
    DEFAULT_CREATES_PER_HOUR), ``hub`` the WatchGame fan-out (default: a new one on
    ``reader.store``; the caller closes one it passes), ``watchers`` the open WatchGame
    streams per client (default DEFAULT_WATCHERS_PER_CLIENT). Bind ``127.0.0.1:0`` in tests to
    get a free port. ``play_streams``: the open Play streams per client (default
    DEFAULT_PLAY_STREAMS_PER_CLIENT). ``tournaments``: also serve TournamentService with
    it. ``signing``: the keys GameService signs heads with and publishes (default none:
    GetSignedHead refused, ``signing_key_missing``). ``streams``: the streams (WatchGame
    and Play) held at once, in all and per address (default: ``max_concurrent_rpcs`` less
    UNARY_RESERVE, DEFAULT_STREAMS_PER_ADDRESS each; pass the same object to the web face's
    servicer); ``max_concurrent_rpcs``: the process's calls in flight, which must exceed
    ``streams.total`` (the rest is for unary calls: ValueError otherwise).
    ``play_grace_s``: a Play stream that has passed no seat token check is ended once idle
    this long (``services.gateway.play_stream``). ``players``: also serve PlayerService
    with it, and let GameService's seat-scoped calls authenticate player credentials;
    ``accounts``: its registrations and credential creations per address (default
    DEFAULT_ACCOUNTS_PER_HOUR); ``notices``: PlayerService's WatchPlayer hub (None:
    WatchPlayer refused, ``player_streams_off``; the caller closes it).
    ``ratings``: also serve RatingService with it. ``lobby``: also serve LobbyService
    with it (needs ``players``: its calls act as players), ``lobby_quota`` its tables and
    seeks per address (default DEFAULT_LOBBY_PER_HOUR; pass the web face's). Stop with
    ``await server.stop(grace)``.
    """
    if streams is None:
        streams = StreamBudget(total=max(1, max_concurrent_rpcs - UNARY_RESERVE))
    if streams.total <= 0 or streams.total >= max_concurrent_rpcs:
        raise ValueError(
            f"the stream budget ({streams.total}) must leave room for unary calls within "
            f"max_concurrent_rpcs ({max_concurrent_rpcs})"
        )
    limiter = limiter or ClientRateLimiter()  # one budget per client across both services
    watchers = watchers or WatcherLimit()  # WatchGame and WatchPlayer share it
    servicer = GameServicer(
        reader,
        client,
        default_ruleset or installed_default(),
        hub=hub,
        limiter=limiter,
        quota=quota,
        watchers=watchers,
        play_streams=play_streams,
        signing=signing,
        streams=streams,
        play_grace_s=play_grace_s,
        players=players,
        raw_replies=True,  # build_server's serializer sends bytes as they are (issue 35)
    )
    registrars = [lambda s: game_service_pb2_grpc.add_GameServiceServicer_to_server(servicer, s)]
    names = [GAME_SERVICE]
    if tournaments is not None:
        from services.rpc.generated import tournament_service_pb2_grpc

        tournament_servicer = TournamentServicer(
            tournaments, default_ruleset or installed_default(), limiter, quota, players
        )
        registrars.append(
            lambda s: tournament_service_pb2_grpc.add_TournamentServiceServicer_to_server(
                tournament_servicer, s
            )
        )
        names.append(TOURNAMENT_SERVICE)
    if players is not None:
        from teoti_client.proto import player_service_pb2_grpc

        player_servicer = PlayerServicer(players, limiter, accounts, notices, watchers, streams)
        registrars.append(
            lambda s: player_service_pb2_grpc.add_PlayerServiceServicer_to_server(
                player_servicer, s
            )
        )
        names.append(PLAYER_SERVICE)
    if ratings is not None:  # ratings outside tournaments (issue 32)
        from teoti_client.proto import rating_service_pb2_grpc

        rating_servicer = RatingServicer(ratings, limiter)
        registrars.append(
            lambda s: rating_service_pb2_grpc.add_RatingServiceServicer_to_server(
                rating_servicer, s
            )
        )
        names.append(RATING_SERVICE)
    if lobby is not None and players is not None:
        from teoti_client.proto import lobby_service_pb2_grpc

        lobby_servicer = LobbyServicer(lobby, players, limiter, lobby_quota)
        registrars.append(
            lambda s: lobby_service_pb2_grpc.add_LobbyServiceServicer_to_server(lobby_servicer, s)
        )
        names.append(LOBBY_SERVICE)
    server, port, health = build_server(
        address, registrars, names, max_concurrent_rpcs=max_concurrent_rpcs
    )
    await server.start()
    await mark_serving(health, names)
    return server, port
