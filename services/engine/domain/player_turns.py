"""Which player seats an append makes ones to act: the ``your_turn`` notices it publishes.

A seat bound to a player account (``SeatSpec.player``) and played by that person (not a
bot seat, not taken over, forfeited or resigned) gets one :class:`PlayerTurn` from the
append after which it is to act and was not before it: its turn came (a move, a
timeout, a resignation, the game's creation), it joined a game waiting on it, or its
player took it back from a bot. A seat that stays to act across appends (the rest of a
multi-step turn, others acting at the same time) is not told again, so a (game,
version, seat) gets at most one. A game none of whose seats is bound to a player makes
none, and costs one scan of its seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.engine.domain.game import GameSnapshot
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.leaving import SeatControl
from services.engine.domain.records import Deadline, PlayerTurn


def player_seats_to_act(
    snapshot: GameSnapshot,
    state: Any | None = None,
    control: SeatControl | None = None,
    seats: Sequence[SeatSpec] | None = None,
) -> frozenset[int]:
    """Seats to act in ``state`` (default: the snapshot's) that a player account holds
    and plays itself under ``control`` (default: the snapshot's), with ``seats`` (default:
    the snapshot's; a join binds one). Empty once a resignation ended the game."""
    held = snapshot.seats if seats is None else seats
    if not any(seat.player for seat in held):
        return frozenset()
    who = snapshot.control if control is None else control
    if who.ended:
        return frozenset()
    by_bot = who.bot_controlled()
    current = snapshot.state if state is None else state
    return frozenset(
        s
        for s in snapshot.ruleset.seats_to_act(current)
        if held[s].player and held[s].kind is not SeatKind.BOT and s not in by_bot
    )


def player_turns(
    before: GameSnapshot | None,
    after: GameSnapshot,
    version: int,
    deadline: Deadline | None = None,
    state: Any | None = None,
    control: SeatControl | None = None,
    seats: Sequence[SeatSpec] | None = None,
) -> list[PlayerTurn]:
    """The turns to publish with an append reaching ``version``: the player seats to
    act after it (``after`` with ``state``, ``control`` and ``seats`` as
    :func:`player_seats_to_act`) that were not in ``before`` (None: a new game), seat
    order. ``deadline``: the append's clock deadline, copied into each turn."""
    now = player_seats_to_act(after, state, control, seats)
    if not now:
        return []
    was = player_seats_to_act(before) if before is not None else frozenset()
    held = after.seats if seats is None else seats
    at_ms = deadline.at_ms if deadline is not None else None
    return [
        PlayerTurn(after.game_id, s, version, held[s].player, after.ruleset_name, at_ms)
        for s in sorted(now - was)
    ]
