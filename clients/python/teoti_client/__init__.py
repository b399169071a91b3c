"""Python client of the game service (``gameserver.v1.GameService``, and
``gameserver.v1.PlayerService`` for player accounts, ``gameserver.v1.RatingService`` for
ratings and leaderboards, ``gameserver.v1.LobbyService`` for lobby tables and matchmaking).

Depends only on grpcio and protobuf; its stubs (``teoti_client.proto``) are generated
when the distribution is built, with type stubs, so mypy checks every field name.
"""

from teoti_client.client import (
    ActionResult,
    CreatedGame,
    Event,
    GameServiceClient,
    GameView,
    LegalMove,
    MoveResult,
    Resigned,
    RulesetSummary,
    SeatClock,
    SeatInfo,
    SeatUpdate,
    SignedHead,
    SigningKey,
    TeotiClient,
    TimeControl,
    VerifyResult,
    canonical_json,
)
from teoti_client.errors import (
    GameNotFound,
    GameServiceError,
    InvalidArgument,
    LogCorrupted,
    NotAuthorized,
    RateLimited,
    RuleViolation,
    VersionConflict,
)
from teoti_client.lobby import LobbySeat, LobbyTableInfo, RematchInfo, SeekState, SeekTicket
from teoti_client.players import (
    PlayerCredentialInfo,
    PlayerNotice,
    PlayerProfile,
    PlayerWebhookInfo,
    RegisteredPlayer,
)
from teoti_client.ratings import (
    Leaderboard,
    PlayerRating,
    RatedPlayer,
    RatingHistoryEntry,
    RatingValue,
)
from teoti_client.webhooks import verify_webhook_signature

__all__ = [
    "ActionResult",
    "CreatedGame",
    "Event",
    "GameNotFound",
    "GameServiceClient",
    "GameServiceError",
    "GameView",
    "InvalidArgument",
    "Leaderboard",
    "LegalMove",
    "LobbySeat",
    "LobbyTableInfo",
    "LogCorrupted",
    "MoveResult",
    "NotAuthorized",
    "PlayerCredentialInfo",
    "PlayerNotice",
    "PlayerProfile",
    "PlayerRating",
    "PlayerWebhookInfo",
    "RateLimited",
    "RatedPlayer",
    "RatingHistoryEntry",
    "RatingValue",
    "RegisteredPlayer",
    "RematchInfo",
    "Resigned",
    "RuleViolation",
    "RulesetSummary",
    "SeatClock",
    "SeatInfo",
    "SeatUpdate",
    "SeekState",
    "SeekTicket",
    "SignedHead",
    "SigningKey",
    "TeotiClient",
    "TimeControl",
    "VerifyResult",
    "VersionConflict",
    "canonical_json",
    "verify_webhook_signature",
]
