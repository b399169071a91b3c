"""Typed access to ``gameserver.v1.RatingService``: leaderboards per ruleset and a
player's rating and history (ratings outside tournaments, issue 32).

A rating is shown as people read it: ``rating`` is the conservative ``mu - 3 sigma``
rounded (0 for a new player); ``mu``, ``sigma`` are the estimate behind it.
:class:`~teoti_client.client.GameServiceClient` exposes these calls as its own methods
(``rating_leaderboard``, ``player_rating``), on its one channel.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from teoti_client.proto import rating_service_pb2 as pb
from teoti_client.proto import rating_service_pb2_grpc as pb_grpc


@dataclass(frozen=True, slots=True)
class RatingValue:
    """A rating: ``rating`` as shown (mu - 3 sigma, rounded), ``mu``, ``sigma`` and the
    ``games`` rated."""

    rating: int
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True, slots=True)
class RatedPlayer:
    """A leaderboard row: ``rank`` (1 = best), ``player_id`` ("" for a tournament name),
    display ``name``, ``bot``, ``rating``."""

    rank: int
    player_id: str
    name: str
    bot: bool
    rating: RatingValue


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A page of a ruleset's leaderboard: ``players`` best first, ``next_page_token``
    ("" on the last page) and the ``total`` rated players."""

    players: tuple[RatedPlayer, ...]
    next_page_token: str
    total: int


@dataclass(frozen=True, slots=True)
class RatingHistoryEntry:
    """A rated game: ``game_id``, ``ruleset``, the rating ``before`` and ``after`` it,
    the player's ``place`` (1 = first) and ``finished_at`` (ISO 8601 UTC)."""

    game_id: str
    ruleset: str
    before: RatingValue
    after: RatingValue
    place: int
    finished_at: str


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's ``rating`` in a ruleset (games 0 if never rated), display ``name``,
    ``bot``, a page of ``history`` (newest first) and its ``next_page_token``."""

    name: str
    bot: bool
    rating: RatingValue
    history: tuple[RatingHistoryEntry, ...]
    next_page_token: str


Caller = Callable[[Any, Any, tuple[tuple[str, str], ...]], Awaitable[Any]]
"""Makes one unary call (method, request, metadata), decoding refusals."""


def _value(message: pb.RatingValue) -> RatingValue:
    return RatingValue(message.rating, message.mu, message.sigma, message.games)


class RatingCalls:
    """Every RatingService call, made through ``call`` on ``channel``'s stub."""

    def __init__(self, channel: grpc.aio.Channel, call: Caller) -> None:
        self._stub = pb_grpc.RatingServiceStub(channel)
        self._call = call

    async def leaderboard(
        self, ruleset: str, page_size: int = 0, page_token: str = ""
    ) -> Leaderboard:
        """See :meth:`GameServiceClient.rating_leaderboard`."""
        request = pb.GetRatingLeaderboardRequest(
            ruleset=ruleset, page_size=page_size, page_token=page_token
        )
        reply: pb.GetRatingLeaderboardResponse = await self._call(
            self._stub.GetRatingLeaderboard, request, ()
        )
        return Leaderboard(
            tuple(
                RatedPlayer(p.rank, p.player_id, p.name, p.bot, _value(p.rating))
                for p in reply.players
            ),
            reply.next_page_token,
            reply.total,
        )

    async def player_rating(
        self, player_id: str, ruleset: str, page_size: int = 0, page_token: str = ""
    ) -> PlayerRating:
        """See :meth:`GameServiceClient.player_rating`."""
        request = pb.GetPlayerRatingRequest(
            player_id=player_id, ruleset=ruleset, page_size=page_size, page_token=page_token
        )
        reply: pb.GetPlayerRatingResponse = await self._call(
            self._stub.GetPlayerRating, request, ()
        )
        return PlayerRating(
            reply.name,
            reply.bot,
            _value(reply.rating),
            tuple(
                RatingHistoryEntry(
                    e.game_id, e.ruleset, _value(e.before), _value(e.after), e.place, e.finished_at
                )
                for e in reply.history
            ),
            reply.next_page_token,
        )
