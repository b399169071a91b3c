"""Which seat is Teotibot, and the task of its turn (RULES.md §8).

Modelling decision: a solo game has TWO seats. Seat 0 is the human and plays first;
seat 1 is Teotibot and plays last (so its turn closes the round and advances the
calendar, §8 step 6). The client creates both seats, the second of kind BOT, so the
engine's turn requests reach the bot worker with no engine change.

On its turn the bot seat has exactly one legal action, ``{"type": "teotibot_turn"}``;
deciding it plays the whole Teotibot turn by the solo rules (:mod:`.turn`). The task's
rules set ``always_asks``, so the decision loop waits for the bot worker's command instead of
auto-applying the single option inside the human's command: every bot turn is then its
own command in the log (seat 1, the bot worker's command id).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..state import GameState
from ..tasks import Task, register_task

TEOTIBOT_SEAT = 1
HUMAN_SEAT = 0
SOLO_SEATS = 2
ACTION = {"type": "teotibot_turn"}

TEMPLE_WORSHIP_BOARDS = frozenset({2, 3, 4, 7})
"""Worship spaces the bot's locked worker visits: never the Palace (RULES.md §8)."""

ACTION_TILES: tuple[str, ...] = (
    "construction",
    "decorations",
    "alchemy",
    "nobles",
    "mastery",
    "worship",
    "mask_collection",
)
"""The seven Teotibot action tiles (RULES.md §8)."""


def is_teotibot(state: GameState, seat: int) -> bool:
    """True if ``seat`` is the solo bot of a solo game."""
    return state.options.solo and seat == TEOTIBOT_SEAT


@dataclass(frozen=True, slots=True)
class TeotibotTurn(Task):
    """Teotibot's whole turn: roll, act, shift its action pyramid, flip, cash cocoa."""


register_task(TeotibotTurn, "teotibot_turn")


def turn_task(state: GameState, seat: int) -> Task | None:
    """The task starting ``seat``'s turn in a solo game (None: an ordinary turn)."""
    return TeotibotTurn(seat=seat) if is_teotibot(state, seat) else None
