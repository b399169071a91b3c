"""Python client library of the public GameService API."""

from services.client.client import (
    ActionResult,
    CreatedGame,
    GameView,
    LegalMove,
    MoveResult,
    SeatInfo,
    TeotiClient,
    VerifyResult,
)

__all__ = [
    "ActionResult",
    "CreatedGame",
    "GameView",
    "LegalMove",
    "MoveResult",
    "SeatInfo",
    "TeotiClient",
    "VerifyResult",
]
