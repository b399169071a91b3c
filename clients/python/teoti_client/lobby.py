"""Typed access to ``gameserver.v1.LobbyService``: lobby tables and matchmaking seeks.

Every call acts as a player: it carries the player credential as
``authorization: Player <credential>``. :class:`~teoti_client.client.GameServiceClient`
exposes these calls as its own methods (``open_table``, ``seek`` ...), on its one
channel. A table that starts (full, or started by its host with bots) and a seek that is
placed get their game from the server's table opener a moment later: ``get_table`` and
``get_seek`` show its ``game_id`` once it is open, and the player's seats are bound to
the player (play them with the credential, no seat token).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import grpc

from teoti_client.players import Caller, player_metadata
from teoti_client.proto import game_service_pb2 as gpb
from teoti_client.proto import lobby_service_pb2 as pb
from teoti_client.proto import lobby_service_pb2_grpc as pb_grpc

T = TypeVar("T")

_STATUS = {
    pb.LOBBY_TABLE_STATUS_OPEN: "open",
    pb.LOBBY_TABLE_STATUS_STARTED: "started",
    pb.LOBBY_TABLE_STATUS_CLOSED: "closed",
    pb.LOBBY_TABLE_STATUS_FAILED: "failed",
}
_SEEK_STATUS = {
    pb.SEEK_STATUS_WAITING: "waiting",
    pb.SEEK_STATUS_PLACED: "placed",
    pb.SEEK_STATUS_CANCELLED: "cancelled",
}
_RATED = {
    None: pb.RATED_FILTER_UNSPECIFIED,
    True: pb.RATED_FILTER_RATED,
    False: pb.RATED_FILTER_CASUAL,
}


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """One seat of a table: ``seat`` (0-based), ``player_id`` ("" free or a bot), ``bot``."""

    seat: int
    player_id: str
    bot: bool


@dataclass(frozen=True, slots=True)
class LobbyTableInfo(Generic[T]):
    """A lobby table (or a placed match). ``status``: ``open``, ``started``, ``closed``
    or ``failed``; ``game_id`` once its game is open; ``failure`` the rule a failed
    table's game was refused with; ``options`` decoded JSON; ``time_control`` the
    client's TimeControl (None: no clocks); ``created_ms`` ms since the epoch."""

    table_id: str
    host_player_id: str
    ruleset: str
    options: dict[str, Any]
    seats: tuple[LobbySeat, ...]
    free_seats: int
    rated: bool
    time_control: T | None
    created_ms: int
    status: str
    game_id: str
    failure: str


@dataclass(frozen=True, slots=True)
class SeekTicket:
    """Seek's answer: the ``seek_id``, its ``status`` (``waiting`` or ``placed``), the
    ``table_id`` of a placed seek, the ``rating`` the window is centred on."""

    seek_id: str
    status: str
    table_id: str
    rating: float


@dataclass(frozen=True, slots=True)
class SeekState:
    """GetSeek's answer: ``status`` (``waiting`` / ``placed``), ``table_id`` and
    ``game_id`` ("" until known), ``ruleset``, seconds ``waited_s`` while waiting."""

    status: str
    table_id: str
    game_id: str
    ruleset: str
    waited_s: float


@dataclass(frozen=True, slots=True)
class RematchInfo:
    """A rematch of a finished game: ``status`` (``offered``, ``accepted``,
    ``declined``, ``expired``), who offered (``offered_by``), every player of the game
    and those who ``accepted``, ``expires_ms``, and the rematch's ``table_id`` (its
    game: :meth:`GameServiceClient.get_table` once ``accepted``)."""

    offer_id: str
    game_id: str
    offered_by: str
    players: tuple[str, ...]
    accepted: tuple[str, ...]
    status: str
    expires_ms: int
    table_id: str


_REMATCH_STATUS = {
    pb.REMATCH_STATUS_OFFERED: "offered",
    pb.REMATCH_STATUS_ACCEPTED: "accepted",
    pb.REMATCH_STATUS_DECLINED: "declined",
    pb.REMATCH_STATUS_EXPIRED: "expired",
}


def _rematch(message: pb.RematchOffer) -> RematchInfo:
    return RematchInfo(
        message.offer_id,
        message.game_id,
        message.offered_by,
        tuple(message.players),
        tuple(message.accepted),
        _REMATCH_STATUS.get(message.status, "unknown"),
        message.expires_ms,
        message.table_id,
    )


class LobbyCalls(Generic[T]):
    """Every LobbyService call, made through ``call`` on ``channel``'s stub; time
    controls converted with ``encode`` / ``decode`` (the client's TimeControl)."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        call: Caller,
        encode: Callable[[T], gpb.TimeControl],
        decode: Callable[[gpb.TimeControl], T],
    ) -> None:
        self._stub = pb_grpc.LobbyServiceStub(channel)
        self._call = call
        self._encode = encode
        self._decode = decode

    def _table(self, message: pb.LobbyTable) -> LobbyTableInfo[T]:
        return LobbyTableInfo(
            message.table_id,
            message.host_player_id,
            message.ruleset,
            json.loads(message.options_json or "{}"),
            tuple(LobbySeat(s.seat, s.player_id, s.bot) for s in message.seats),
            message.free_seats,
            message.rated,
            self._decode(message.time_control) if message.HasField("time_control") else None,
            message.created_ms,
            _STATUS.get(message.status, "unknown"),
            message.game_id,
            message.failure,
        )

    async def open_table(
        self,
        credential: str,
        ruleset: str,
        seats: int,
        options: dict[str, Any] | None,
        rated: bool,
        time_control: T | None,
        host_stands: bool,
        command_id: str,
    ) -> LobbyTableInfo[T]:
        """See :meth:`GameServiceClient.open_table`."""
        request = pb.OpenTableRequest(
            ruleset=ruleset,
            seat_count=seats,
            options_json=json.dumps(options or {}, sort_keys=True),
            rated=rated,
            host_stands=host_stands,
            command_id=command_id,
        )
        if time_control is not None:
            request.time_control.CopyFrom(self._encode(time_control))
        reply: pb.OpenTableResponse = await self._call(
            self._stub.OpenTable, request, player_metadata(credential)
        )
        return self._table(reply.table)

    async def list_tables(
        self,
        credential: str,
        ruleset: str,
        rated: bool | None,
        include_full: bool,
        page_size: int,
        page_token: str,
    ) -> tuple[list[LobbyTableInfo[T]], str]:
        """See :meth:`GameServiceClient.list_tables`."""
        request = pb.ListTablesRequest(
            ruleset=ruleset,
            rated=_RATED[rated],
            include_full=include_full,
            page_size=page_size,
            page_token=page_token,
        )
        reply: pb.ListTablesResponse = await self._call(
            self._stub.ListTables, request, player_metadata(credential)
        )
        return [self._table(t) for t in reply.tables], reply.next_page_token

    async def get_table(self, credential: str, table_id: str) -> LobbyTableInfo[T]:
        """See :meth:`GameServiceClient.get_table`."""
        reply: pb.GetTableResponse = await self._call(
            self._stub.GetTable, pb.GetTableRequest(table_id=table_id), player_metadata(credential)
        )
        return self._table(reply.table)

    async def join_table(
        self, credential: str, table_id: str, seat: int | None
    ) -> LobbyTableInfo[T]:
        """See :meth:`GameServiceClient.join_table`."""
        request = pb.JoinTableRequest(table_id=table_id)
        if seat is not None:
            request.seat = seat
        reply: pb.JoinTableResponse = await self._call(
            self._stub.JoinTable, request, player_metadata(credential)
        )
        return self._table(reply.table)

    async def leave_table(self, credential: str, table_id: str) -> LobbyTableInfo[T]:
        """See :meth:`GameServiceClient.leave_table`."""
        reply: pb.LeaveTableResponse = await self._call(
            self._stub.LeaveTable,
            pb.LeaveTableRequest(table_id=table_id),
            player_metadata(credential),
        )
        return self._table(reply.table)

    async def start_table(
        self, credential: str, table_id: str, fill_with_bots: bool
    ) -> LobbyTableInfo[T]:
        """See :meth:`GameServiceClient.start_table`."""
        reply: pb.StartTableResponse = await self._call(
            self._stub.StartTable,
            pb.StartTableRequest(table_id=table_id, fill_with_bots=fill_with_bots),
            player_metadata(credential),
        )
        return self._table(reply.table)

    async def seek(
        self,
        credential: str,
        ruleset: str,
        min_seats: int,
        max_seats: int,
        rated: bool,
        time_control: T | None,
        window: tuple[float, float, float] | None,
        bots_after_s: float | None,
        command_id: str,
    ) -> SeekTicket:
        """See :meth:`GameServiceClient.seek`."""
        request = pb.SeekRequest(
            ruleset=ruleset,
            min_seats=min_seats,
            max_seats=max_seats,
            rated=rated,
            command_id=command_id,
        )
        if time_control is not None:
            request.time_control.CopyFrom(self._encode(time_control))
        if window is not None:
            base, widen, limit = window
            request.rating_window.base = base
            request.rating_window.widen_per_s = widen
            if math.isfinite(limit):
                request.rating_window.limit = limit
        if bots_after_s is not None:
            request.bots_after_s = bots_after_s
        reply: pb.SeekResponse = await self._call(
            self._stub.Seek, request, player_metadata(credential)
        )
        return SeekTicket(
            reply.seek_id, _SEEK_STATUS.get(reply.status, "unknown"), reply.table_id, reply.rating
        )

    async def cancel_seek(self, credential: str, seek_id: str) -> tuple[str, str]:
        """See :meth:`GameServiceClient.cancel_seek`."""
        reply: pb.CancelSeekResponse = await self._call(
            self._stub.CancelSeek,
            pb.CancelSeekRequest(seek_id=seek_id),
            player_metadata(credential),
        )
        return _SEEK_STATUS.get(reply.status, "unknown"), reply.table_id

    async def get_seek(self, credential: str, seek_id: str) -> SeekState:
        """See :meth:`GameServiceClient.get_seek`."""
        reply: pb.GetSeekResponse = await self._call(
            self._stub.GetSeek, pb.GetSeekRequest(seek_id=seek_id), player_metadata(credential)
        )
        return SeekState(
            _SEEK_STATUS.get(reply.status, "unknown"),
            reply.table_id,
            reply.game_id,
            reply.ruleset,
            reply.waited_s,
        )

    async def offer_rematch(self, credential: str, game_id: str) -> RematchInfo:
        """See :meth:`GameServiceClient.offer_rematch`."""
        reply: pb.OfferRematchResponse = await self._call(
            self._stub.OfferRematch,
            pb.OfferRematchRequest(game_id=game_id),
            player_metadata(credential),
        )
        return _rematch(reply.rematch)

    async def accept_rematch(self, credential: str, game_id: str) -> RematchInfo:
        """See :meth:`GameServiceClient.accept_rematch`."""
        reply: pb.AcceptRematchResponse = await self._call(
            self._stub.AcceptRematch,
            pb.AcceptRematchRequest(game_id=game_id),
            player_metadata(credential),
        )
        return _rematch(reply.rematch)

    async def decline_rematch(self, credential: str, game_id: str) -> RematchInfo:
        """See :meth:`GameServiceClient.decline_rematch`."""
        reply: pb.DeclineRematchResponse = await self._call(
            self._stub.DeclineRematch,
            pb.DeclineRematchRequest(game_id=game_id),
            player_metadata(credential),
        )
        return _rematch(reply.rematch)
