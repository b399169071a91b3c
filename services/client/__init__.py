"""Python client library of the public GameService API, with the engine's types.

The data classes are ``teoti_client``'s; ``TeotiClient`` decodes events and refusals into
the engine's own types (see ``services.client.client``).
"""

from teoti_client.client import (
    ActionResult,
    CreatedGame,
    GameView,
    LegalMove,
    MoveResult,
    SeatClock,
    SeatInfo,
    TimeControl,
    VerifyResult,
)

from services.client.client import TeotiClient

__all__ = [
    "ActionResult",
    "CreatedGame",
    "GameView",
    "LegalMove",
    "MoveResult",
    "SeatClock",
    "SeatInfo",
    "TeotiClient",
    "TimeControl",
    "VerifyResult",
]
