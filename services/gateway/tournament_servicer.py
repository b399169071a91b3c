"""TournamentService over gRPC: proto <-> services.tournament.service, errors mapped in
services.engine.transport.status_mapping (refusals carry the rule as ErrorInfo reason)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from services.engine.domain.game_seats import new_token
from services.engine.domain.records import StoredEvent, canonical_json
from services.engine.transport.proto_convert import parse_object
from services.engine.transport.status_mapping import stream_errors, unary_errors
from services.gateway.player_auth import player_credential
from services.players.model import Player
from services.players.service import PlayerService
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.rpc.limits import ClientRateLimiter, CreationQuota
from services.tournament.aggregate import FINISHED, TournamentState
from services.tournament.config import TimeControl, TournamentConfig
from services.tournament.errors import InvalidTournament
from services.tournament.model import Format
from services.tournament.repository import stream_id
from services.tournament.service import TournamentService

TOURNAMENT_SERVICE = "gameserver.v1.TournamentService"
WATCH_BLOCK_MS = 1000

Context = Any  # grpc.aio.ServicerContext; grpc ships no type stubs

_FORMATS = {
    pb.TOURNAMENT_FORMAT_UNSPECIFIED: Format.SWISS,
    pb.TOURNAMENT_FORMAT_SWISS: Format.SWISS,
    pb.TOURNAMENT_FORMAT_ROUND_ROBIN: Format.ROUND_ROBIN,
    pb.TOURNAMENT_FORMAT_ELIMINATION: Format.ELIMINATION,
}
_FORMAT_NUMBERS = {
    Format.SWISS: pb.TOURNAMENT_FORMAT_SWISS,
    Format.ROUND_ROBIN: pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    Format.ELIMINATION: pb.TOURNAMENT_FORMAT_ELIMINATION,
}


def config_from_proto(message: pb.TournamentConfig, default_ruleset: str) -> TournamentConfig:
    """A TournamentConfig from its message. Raises InvalidTournament, InvalidArgument."""
    if message.format not in _FORMATS:
        raise InvalidTournament("invalid_config", f"unknown format {message.format}")
    clock = message.time_control
    sizes = [p.table_size for p in message.points_by_place]
    if len(set(sizes)) != len(sizes):
        raise InvalidTournament("invalid_config", f"points_by_place repeats table sizes: {sizes}")
    return TournamentConfig(
        name=message.name,
        ruleset=message.ruleset or default_ruleset,
        options=parse_object(message.options_json, "options_json"),
        format=_FORMATS[message.format],
        min_seats=message.min_seats or 2,
        max_seats=message.max_seats or max(message.min_seats, 2),
        rounds=message.rounds,
        points_by_place={p.table_size: tuple(p.points) for p in message.points_by_place},
        bye_points=message.bye_points,
        tiebreaks=tuple(message.tiebreaks) or ("buchholz", "sonneborn_berger", "wins"),
        advance=message.advance,
        time_control=TimeControl(clock.base_ms, clock.increment_ms, clock.move_deadline_ms),
        timeout_policy=message.timeout_policy or "forfeit",
        rated=message.rated,
        max_players=message.max_players,
        registration_opens_at=message.registration_opens_at,
        registration_closes_at=message.registration_closes_at,
    )


def config_to_proto(config: TournamentConfig) -> pb.TournamentConfig:
    """The message of a TournamentConfig."""
    clock = config.time_control
    return pb.TournamentConfig(
        name=config.name,
        ruleset=config.ruleset,
        options_json=canonical_json(dict(config.options)),
        format=_FORMAT_NUMBERS[config.format],
        min_seats=config.min_seats,
        max_seats=config.max_seats,
        rounds=config.rounds,
        points_by_place=[
            pb.PlacePoints(table_size=size, points=list(points))
            for size, points in sorted(config.points_by_place.items())
        ],
        bye_points=config.bye_points,
        tiebreaks=list(config.tiebreaks),
        advance=config.advance,
        time_control=pb.TournamentTimeControl(
            base_ms=clock.base_ms,
            increment_ms=clock.increment_ms,
            move_deadline_ms=clock.move_deadline_ms,
        ),
        timeout_policy=config.timeout_policy,
        rated=config.rated,
        max_players=config.max_players,
        registration_opens_at=config.registration_opens_at,
        registration_closes_at=config.registration_closes_at,
    )


def tournament_to_proto(state: TournamentState) -> pb.Tournament:
    """The Tournament message: players, rounds with tables, standings."""
    withdrawn = {e.player for e in state.entrants if e.withdrawn}
    tiebreaks = list(state.config.tiebreaks)
    return pb.Tournament(
        tournament_id=state.tournament_id,
        config=config_to_proto(state.config),
        status=state.status,
        players=[
            pb.TournamentPlayer(
                name=e.player, kind=e.kind, withdrawn=e.withdrawn, player_id=e.player_id
            )
            for e in state.entrants
        ],
        rounds=[
            pb.TournamentRound(
                round=r.number,
                byes=list(r.pairing.byes),
                finished=r.complete(),
                tables=[
                    pb.TournamentTable(
                        table=t.number,
                        players=list(t.players),
                        game_id=r.game_ids.get(t.number, ""),
                        places=list(r.results[t.number].places) if t.number in r.results else [],
                        finished=t.number in r.results,
                    )
                    for t in r.pairing.tables
                ],
            )
            for r in state.rounds
        ],
        standings=[
            pb.StandingRow(
                player=row.player,
                rank=row.rank,
                points=row.points,
                tiebreaks=[float(row.tiebreaks.get(name, 0.0)) for name in tiebreaks],
                rounds_played=row.rounds_played,
                byes=row.byes,
                withdrawn=row.player in withdrawn,
                round_reached=row.round_reached,
                eliminated_in_round=row.eliminated_in_round,
                place_in_round=row.place_in_round,
            )
            for row in state.standings()
        ],
        tiebreaks=tiebreaks,
        version=state.version,
        seed_commitment=state.seed_commitment,
        revealed_seed=state.revealed_seed or "",
    )


def event_to_proto(event: StoredEvent) -> pb.TournamentEvent:
    """A TournamentEvent message, exactly as stored and hash-chained: every field the
    hash covers (services.engine.domain.chain), so a reader can re-check the chain."""
    return pb.TournamentEvent(
        version=event.version,
        type=event.type,
        schema_version=event.schema_version,
        payload_json=canonical_json(dict(event.payload)),
        recorded_at=event.metadata.recorded_at,
        hash=event.hash,
        command_id=event.metadata.command_id,
        seat=event.metadata.seat,
    )


class TournamentServicer(pb_grpc.TournamentServiceServicer):  # type: ignore[misc]
    """gRPC handlers of TournamentService (see proto/gameserver/v1/tournament_service.proto).

    Every call spends the caller's rate limit (the gateway's, per address);
    CreateTournament also one of its creation quota (the games a tournament's rounds
    create later are the director's, not the caller's).
    """

    def __init__(
        self,
        service: TournamentService,
        default_ruleset: str,
        limiter: ClientRateLimiter | None = None,
        quota: CreationQuota | None = None,
        players: PlayerService | None = None,
    ) -> None:
        self._service = service
        self._default_ruleset = default_ruleset
        self._limiter = limiter or ClientRateLimiter()
        self._quota = quota or CreationQuota()
        self._players = players

    async def _account(self, context: Context) -> Player | None:
        """The player account of the call's ``authorization: Player`` credential (None
        without one). Raises NotYourPlayer ``player_credential_invalid`` for a bad one,
        InvalidTournament ``player_accounts_unavailable`` where no accounts are served."""
        credential = player_credential(context)
        if not credential:
            return None
        if self._players is None:
            raise InvalidTournament(
                "player_accounts_unavailable", "this server keeps no player accounts"
            )
        return await self._players.get(await self._players.authenticate(credential))

    def _admit(self, context: Context) -> None:
        self._limiter.admit(str(context.peer()))

    @unary_errors
    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Context
    ) -> pb.CreateTournamentResponse:
        """See the proto."""
        self._admit(context)
        self._quota.admit(str(context.peer()))
        config = config_from_proto(request.config, self._default_ruleset)
        state, token = await self._service.create(
            config, request.command_id, request.organiser_token
        )
        return pb.CreateTournamentResponse(
            tournament=tournament_to_proto(state), organiser_token=token
        )

    @unary_errors
    async def RegisterPlayer(
        self, request: pb.RegisterPlayerRequest, context: Context
    ) -> pb.RegisterPlayerResponse:
        """See the proto."""
        self._admit(context)
        account = None if request.bot else await self._account(context)
        if account is not None:
            # A player account enters as itself: its name, no tournament token; its
            # tables' seats are bound to it (docs/players.md).
            state = await self._service.register_account(
                request.tournament_id, account.player_id, account.name
            )
            return pb.RegisterPlayerResponse(tournament=tournament_to_proto(state))
        # An empty player token gets a generated one (returned), as a seat token does.
        token = "" if request.bot else request.player_token or new_token()
        state = await self._service.register(
            request.tournament_id, request.player, token, request.bot, request.organiser_token
        )
        return pb.RegisterPlayerResponse(tournament=tournament_to_proto(state), player_token=token)

    @unary_errors
    async def WithdrawPlayer(
        self, request: pb.WithdrawPlayerRequest, context: Context
    ) -> pb.WithdrawPlayerResponse:
        """See the proto."""
        self._admit(context)
        account = None if request.organiser_token else await self._account(context)
        state = await self._service.withdraw(
            request.tournament_id,
            request.player,
            request.player_token,
            request.organiser_token,
            player_id=account.player_id if account is not None else "",
        )
        return pb.WithdrawPlayerResponse(tournament=tournament_to_proto(state))

    @unary_errors
    async def StartTournament(
        self, request: pb.StartTournamentRequest, context: Context
    ) -> pb.StartTournamentResponse:
        """See the proto."""
        self._admit(context)
        state = await self._service.start(request.tournament_id, request.organiser_token)
        return pb.StartTournamentResponse(tournament=tournament_to_proto(state))

    @unary_errors
    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: Context
    ) -> pb.GetTournamentResponse:
        """See the proto."""
        self._admit(context)
        state = await self._service.get(request.tournament_id)
        return pb.GetTournamentResponse(tournament=tournament_to_proto(state))

    @unary_errors
    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Context
    ) -> pb.ListTournamentsResponse:
        """See the proto."""
        self._admit(context)
        if not 0 <= request.page_size <= 100:
            raise InvalidTournament("page_size", "page_size is 1 to 100 (0: 50)")
        size = request.page_size or 50
        after: tuple[int, str] | None = None
        if request.page_token:
            ms, sep, last = request.page_token.partition(":")
            if not sep or not ms.isdigit() or not last:
                raise InvalidTournament("page_token", "bad page token")
            after = (int(ms), last)
        page = await self._service.page(after, size)
        return pb.ListTournamentsResponse(
            tournaments=[
                pb.TournamentSummary(
                    tournament_id=s.tournament_id,
                    name=s.config.name,
                    ruleset=s.config.ruleset,
                    status=s.status,
                    players=len(s.entrants),
                    rounds_paired=len(s.rounds),
                )
                for _ms, s in page
            ],
            next_page_token=f"{page[-1][0]}:{page[-1][1].tournament_id}"
            if len(page) == size
            else "",
        )

    @stream_errors
    async def WatchTournament(
        self, request: pb.WatchTournamentRequest, context: Context
    ) -> AsyncIterator[pb.WatchTournamentResponse]:
        """See the proto: events after ``after_version`` until TournamentFinished's batch."""
        self._admit(context)
        state = await self._service.get(request.tournament_id)
        store = self._service.repo.store
        sid = stream_id(state.tournament_id)
        version = max(int(request.after_version), 0)
        finished = False
        while not finished:
            if context.done():
                return
            events = await store.read_after(sid, version, WATCH_BLOCK_MS, 200)
            for event in events:
                yield pb.WatchTournamentResponse(event=event_to_proto(event))
                version = event.version
            if not events:
                finished = (await self._service.get(request.tournament_id)).status == FINISHED
                finished = finished and version >= await store.version(sid)

    @unary_errors
    async def ExportTournament(
        self, request: pb.ExportTournamentRequest, context: Context
    ) -> pb.ExportTournamentResponse:
        """See the proto."""
        self._admit(context)
        return pb.ExportTournamentResponse(json=await self._service.export(request.tournament_id))

    @unary_errors
    async def VerifyTournament(
        self, request: pb.VerifyTournamentRequest, context: Context
    ) -> pb.VerifyTournamentResponse:
        """See the proto."""
        self._admit(context)
        report = await self._service.verify(request.tournament_id)
        return pb.VerifyTournamentResponse(**report)

    @unary_errors
    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: Context
    ) -> pb.GetLeaderboardResponse:
        """See the proto."""
        self._admit(context)
        if not 0 <= request.limit <= 500:
            raise InvalidTournament("limit", "limit is 1 to 500 (0: 100)")
        limit = request.limit or 100
        board = await self._service.leaderboard(request.ruleset or self._default_ruleset, limit)
        return pb.GetLeaderboardResponse(
            rows=[
                pb.RatingRow(
                    rank=i + 1,
                    player=player,
                    ordinal=rating.ordinal,
                    mu=rating.mu,
                    sigma=rating.sigma,
                    games=rating.games,
                )
                for i, (player, rating) in enumerate(board)
            ]
        )
