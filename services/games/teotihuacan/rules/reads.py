"""The state classes' hot reads as compiled functions.

``state.py`` stays interpreted (docs/performance.md: ``frozen.replace`` copies its
``__dict__`` in one C call), so in the compiled build every call of one of its methods or
properties from a rules module enters the interpreter: ``Worker.in_play``,
``Player.amount``, ``Player.temple`` and ``Player.workers_in_play`` were about two such
calls per decision. The rules' hot paths
call these instead; each answers exactly what the method it stands for answers
(services/games/teotihuacan/tests/test_derived_tables.py holds them to the methods over every state
of seeded games).
"""

from __future__ import annotations

from .components import TEMPLES
from .state import NOT_IN_PLAY, Player, Worker


def in_play(worker: Worker) -> bool:
    """``worker.in_play``: False for the waiting 4th die."""
    return worker.board != NOT_IN_PLAY


def amount(player: Player, good: str) -> int:
    """``player.amount(good)``: amount of ``good`` (cocoa, wood, stone, gold or vp)."""
    value: int = getattr(player, good)
    return value


def temple_step(player: Player, temple: str) -> int:
    """``player.temple(temple)``: step on ``temple`` (blue, red, green).

    Raises:
        ValueError: ``temple`` is not a temple.
    """
    return player.temples[TEMPLES.index(temple)]


def workers_in_play(player: Player) -> list[Worker]:
    """The workers of ``player.workers_in_play()``, as a list (the rondel's, not the
    waiting 4th die)."""
    return [worker for worker in player.workers if worker.board != NOT_IN_PLAY]
