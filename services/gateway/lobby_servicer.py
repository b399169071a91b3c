"""LobbyService over gRPC: proto <-> services.lobby.service, errors mapped in
services.engine.transport.status_mapping (refusals carry the rule as ErrorInfo reason).

Every call authenticates ``authorization: Player <credential>`` (as PlayerService does:
services.gateway.player_auth) and spends one unit of the caller's rate limit (per
address); OpenTable and Seek also one of the address's lobby quota (tables opened and
seeks made per hour: ``--lobby-per-hour``, default DEFAULT_LOBBY_PER_HOUR).
"""

from __future__ import annotations

import json
import math
from typing import Any

from teoti_client.proto import lobby_service_pb2 as pb
from teoti_client.proto import lobby_service_pb2_grpc as pb_grpc

from services.engine.domain.timing.time_control import TimeControl
from services.engine.transport.proto_convert import time_control_from_proto, time_control_to_proto
from services.engine.transport.status_mapping import unary_errors
from services.gateway.player_auth import player_credential
from services.lobby.rematch import Rematch, RematchStatus
from services.lobby.service import LobbyService, SeekAnswer
from services.lobby.tables import LobbyTable, TableStatus
from services.matchmaking.seeks import RatingWindow
from services.players.service import PlayerService
from services.rpc.limits import (
    DEFAULT_LOBBY_PER_HOUR,
    ClientRateLimiter,
    CreationQuota,
    lobby_burst,
)

LOBBY_SERVICE = "gameserver.v1.LobbyService"

Context = Any  # grpc.aio.ServicerContext; grpc ships no type stubs

_STATUS = {
    TableStatus.OPEN: pb.LOBBY_TABLE_STATUS_OPEN,
    TableStatus.STARTED: pb.LOBBY_TABLE_STATUS_STARTED,
    TableStatus.CLOSED: pb.LOBBY_TABLE_STATUS_CLOSED,
    TableStatus.FAILED: pb.LOBBY_TABLE_STATUS_FAILED,
}
_SEEK_STATUS = {
    "waiting": pb.SEEK_STATUS_WAITING,
    "placed": pb.SEEK_STATUS_PLACED,
    "cancelled": pb.SEEK_STATUS_CANCELLED,
}
_RATED = {pb.RATED_FILTER_RATED: True, pb.RATED_FILTER_CASUAL: False}


def lobby_quota(per_hour: float = DEFAULT_LOBBY_PER_HOUR) -> CreationQuota:
    """A fresh lobby quota per address: ``per_hour`` tables opened and seeks made an
    hour (``--lobby-per-hour``; <= 0: none), bursts of services.rpc.limits.lobby_burst."""
    return CreationQuota(per_hour, lobby_burst(per_hour))


def table_to_proto(table: LobbyTable) -> pb.LobbyTable:
    """The public LobbyTable message (player ids only: never a credential or token)."""
    message = pb.LobbyTable(
        table_id=table.table_id,
        host_player_id=table.host,
        ruleset=table.ruleset,
        options_json=table.options,
        seats=[
            pb.LobbyTableSeat(seat=i, player_id=p, bot=i in table.bots)
            for i, p in enumerate(table.seats)
        ],
        free_seats=table.free_seats if table.status is TableStatus.OPEN else 0,
        rated=table.rated,
        created_ms=table.created_ms,
        status=_STATUS[table.status],
        game_id=table.game_id,
        failure=table.failure,
    )
    if table.time_control:
        control = TimeControl.from_json(json.loads(table.time_control))
        message.time_control.CopyFrom(time_control_to_proto(control))
    return message


def rematch_to_proto(rematch: Rematch, now_ms: int) -> pb.RematchOffer:
    """The public RematchOffer message (an offer past its time shows EXPIRED)."""
    status = {
        RematchStatus.OFFERED: pb.REMATCH_STATUS_OFFERED,
        RematchStatus.ACCEPTED: pb.REMATCH_STATUS_ACCEPTED,
        RematchStatus.DECLINED: pb.REMATCH_STATUS_DECLINED,
    }[rematch.status]
    if rematch.expired(now_ms):
        status = pb.REMATCH_STATUS_EXPIRED
    return pb.RematchOffer(
        offer_id=rematch.offer_id,
        game_id=rematch.game_id,
        offered_by=rematch.by,
        players=list(rematch.players),
        accepted=list(rematch.accepted),
        status=status,
        expires_ms=rematch.expires_ms,
        table_id=rematch.table_id,
    )


def window_from_proto(request: Any) -> RatingWindow | None:
    """The request's rating window (None if unset: the default)."""
    if not request.HasField("rating_window"):
        return None
    message = request.rating_window
    limit = message.limit if message.HasField("limit") else math.inf
    return RatingWindow(message.base, message.widen_per_s, limit)


def seek_answer_to_proto(answer: SeekAnswer) -> pb.SeekResponse:
    """Seek's response."""
    return pb.SeekResponse(
        seek_id=answer.seek_id,
        status=_SEEK_STATUS[answer.status],
        table_id=answer.table_id,
        rating=answer.rating,
    )


class LobbyServicer(pb_grpc.LobbyServiceServicer):  # type: ignore[misc]
    """gRPC handlers of LobbyService (see proto/gameserver/v1/lobby_service.proto).

    Args:
        service: the lobby and the matchmaker.
        players: the player accounts (authenticates the caller).
        limiter: the gateway's rate limit per client (shared with its other services).
        quota: tables opened and seeks made per address (default :func:`lobby_quota`).
    """

    def __init__(
        self,
        service: LobbyService,
        players: PlayerService,
        limiter: ClientRateLimiter | None = None,
        quota: CreationQuota | None = None,
    ) -> None:
        self._service = service
        self._players = players
        self._limiter = limiter or ClientRateLimiter()
        self._quota = quota or lobby_quota()

    async def _caller(self, context: Context, creates: bool = False) -> str:
        """Admit the call and return the caller's player id (NotYourPlayer
        ``player_credential_invalid`` without a valid credential)."""
        self._limiter.admit(str(context.peer()))
        player = await self._players.authenticate(player_credential(context))
        if creates:
            self._quota.admit(str(context.peer()))
        return player

    @unary_errors
    async def OpenTable(
        self, request: pb.OpenTableRequest, context: Context
    ) -> pb.OpenTableResponse:
        """See the proto."""
        player = await self._caller(context, creates=True)
        table = await self._service.open_table(
            player,
            request.ruleset,
            request.options_json,
            request.seat_count,
            request.rated,
            time_control_from_proto(request),
            host_sits=not request.host_stands,
            command_id=request.command_id,
        )
        return pb.OpenTableResponse(table=table_to_proto(table))

    @unary_errors
    async def ListTables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        """See the proto."""
        await self._caller(context)
        tables, token = await self._service.list_tables(
            request.ruleset,
            _RATED.get(request.rated),
            request.include_full,
            request.page_size,
            request.page_token,
        )
        return pb.ListTablesResponse(
            tables=[table_to_proto(t) for t in tables], next_page_token=token
        )

    @unary_errors
    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> pb.GetTableResponse:
        """See the proto."""
        await self._caller(context)
        table = await self._service.get_table(request.table_id)
        return pb.GetTableResponse(table=table_to_proto(table))

    @unary_errors
    async def JoinTable(
        self, request: pb.JoinTableRequest, context: Context
    ) -> pb.JoinTableResponse:
        """See the proto."""
        player = await self._caller(context)
        seat = request.seat if request.HasField("seat") else None
        table = await self._service.join_table(player, request.table_id, seat)
        return pb.JoinTableResponse(table=table_to_proto(table))

    @unary_errors
    async def LeaveTable(
        self, request: pb.LeaveTableRequest, context: Context
    ) -> pb.LeaveTableResponse:
        """See the proto."""
        player = await self._caller(context)
        table = await self._service.leave_table(player, request.table_id)
        return pb.LeaveTableResponse(table=table_to_proto(table))

    @unary_errors
    async def StartTable(
        self, request: pb.StartTableRequest, context: Context
    ) -> pb.StartTableResponse:
        """See the proto."""
        player = await self._caller(context)
        table = await self._service.start_table(player, request.table_id, request.fill_with_bots)
        return pb.StartTableResponse(table=table_to_proto(table))

    @unary_errors
    async def Seek(self, request: pb.SeekRequest, context: Context) -> pb.SeekResponse:
        """See the proto."""
        player = await self._caller(context, creates=True)
        answer = await self._service.seek(
            player,
            request.ruleset,
            request.min_seats,
            request.max_seats,
            request.rated,
            time_control_from_proto(request),
            window_from_proto(request),
            request.bots_after_s if request.HasField("bots_after_s") else None,
            request.command_id,
        )
        return seek_answer_to_proto(answer)

    @unary_errors
    async def CancelSeek(
        self, request: pb.CancelSeekRequest, context: Context
    ) -> pb.CancelSeekResponse:
        """See the proto."""
        player = await self._caller(context)
        answer = await self._service.cancel_seek(player, request.seek_id)
        return pb.CancelSeekResponse(status=_SEEK_STATUS[answer.status], table_id=answer.table_id)

    @unary_errors
    async def GetSeek(self, request: pb.GetSeekRequest, context: Context) -> pb.GetSeekResponse:
        """See the proto."""
        player = await self._caller(context)
        state = await self._service.get_seek(player, request.seek_id)
        return pb.GetSeekResponse(
            status=_SEEK_STATUS[state.status],
            table_id=state.table_id,
            game_id=state.game_id,
            ruleset=state.ruleset,
            waited_s=state.waited_s,
        )

    @unary_errors
    async def OfferRematch(
        self, request: pb.OfferRematchRequest, context: Context
    ) -> pb.OfferRematchResponse:
        """See the proto."""
        player = await self._caller(context, creates=True)
        rematch = await self._service.offer_rematch(player, request.game_id)
        return pb.OfferRematchResponse(rematch=rematch_to_proto(rematch, self._service.now_ms()))

    @unary_errors
    async def AcceptRematch(
        self, request: pb.AcceptRematchRequest, context: Context
    ) -> pb.AcceptRematchResponse:
        """See the proto."""
        player = await self._caller(context)
        rematch = await self._service.accept_rematch(player, request.game_id)
        return pb.AcceptRematchResponse(rematch=rematch_to_proto(rematch, self._service.now_ms()))

    @unary_errors
    async def DeclineRematch(
        self, request: pb.DeclineRematchRequest, context: Context
    ) -> pb.DeclineRematchResponse:
        """See the proto."""
        player = await self._caller(context)
        rematch = await self._service.decline_rematch(player, request.game_id)
        return pb.DeclineRematchResponse(rematch=rematch_to_proto(rematch, self._service.now_ms()))
