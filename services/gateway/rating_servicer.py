"""RatingService over gRPC: proto <-> services.ratings.queries, errors mapped in
services.engine.transport.status_mapping (refusals carry the rule as ErrorInfo reason).
Every call spends one unit of the caller's rate limit (per address); the replies are
bounded (MAX_PAGE rows or history entries)."""

from __future__ import annotations

from typing import Any

from teoti_client.proto import rating_service_pb2 as pb
from teoti_client.proto import rating_service_pb2_grpc as pb_grpc

from services.engine.transport.status_mapping import unary_errors
from services.ratings.queries import RatingQueries
from services.rpc.limits import ClientRateLimiter
from services.tournament.ratings import Rating
from services.tournament.ratings_book import HistoryEntry

RATING_SERVICE = "gameserver.v1.RatingService"

Context = Any  # grpc.aio.ServicerContext; grpc ships no type stubs


def rating_to_proto(rating: Rating) -> pb.RatingValue:
    """A rating as shown (the conservative ordinal rounded) and its estimate."""
    return pb.RatingValue(
        rating=round(rating.ordinal), mu=rating.mu, sigma=rating.sigma, games=rating.games
    )


def history_to_proto(entry: HistoryEntry) -> pb.RatingHistoryEntry:
    """One rated game of a player's history."""
    return pb.RatingHistoryEntry(
        game_id=entry.game_id,
        ruleset=entry.ruleset,
        before=rating_to_proto(entry.before),
        after=rating_to_proto(entry.after),
        place=entry.place,
        finished_at=entry.at,
    )


class RatingServicer(pb_grpc.RatingServiceServicer):  # type: ignore[misc]
    """gRPC handlers of RatingService (see proto/gameserver/v1/rating_service.proto).

    Args:
        queries: the rating book's reads.
        limiter: the gateway's rate limit per client (shared with its other services).
    """

    def __init__(self, queries: RatingQueries, limiter: ClientRateLimiter | None = None) -> None:
        self._queries = queries
        self._limiter = limiter or ClientRateLimiter()

    @unary_errors
    async def GetRatingLeaderboard(
        self, request: pb.GetRatingLeaderboardRequest, context: Context
    ) -> pb.GetRatingLeaderboardResponse:
        """See the proto."""
        self._limiter.admit(str(context.peer()))
        page = await self._queries.leaderboard(
            request.ruleset, request.page_size, request.page_token
        )
        return pb.GetRatingLeaderboardResponse(
            players=[
                pb.RatedPlayer(
                    rank=row.rank,
                    player_id=row.player_id,
                    name=row.name,
                    bot=row.bot,
                    rating=rating_to_proto(row.rating),
                )
                for row in page.rows
            ],
            next_page_token=page.next_token,
            total=page.total,
        )

    @unary_errors
    async def GetPlayerRating(
        self, request: pb.GetPlayerRatingRequest, context: Context
    ) -> pb.GetPlayerRatingResponse:
        """See the proto."""
        self._limiter.admit(str(context.peer()))
        found = await self._queries.player_rating(
            request.player_id, request.ruleset, request.page_size, request.page_token
        )
        return pb.GetPlayerRatingResponse(
            name=found.name,
            bot=found.bot,
            rating=rating_to_proto(found.rating),
            history=[history_to_proto(e) for e in found.history],
            next_page_token=found.next_token,
        )
