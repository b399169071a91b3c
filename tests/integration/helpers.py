"""Shared helpers of the integration tests: play Nim games through an engine."""

from __future__ import annotations

from services.engine.engine import Engine
from services.engine.game import SeatKind, SeatSpec

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]


async def play_to_end(engine: Engine, game_id: str, take: int = 1) -> int:
    """Play seats in turn (taking ``take`` or what is left) until the game ends."""
    while True:
        snapshot = await engine.load(game_id)
        if snapshot.is_terminal():
            return snapshot.version
        (seat,) = snapshot.seats_to_act()
        pile = snapshot.state.pile
        await engine.submit_action(
            game_id, seat, {"take": min(take, pile)}, command_id=f"c{snapshot.version}"
        )
