"""Selling sets to the museum (RULES.md A3.2, E9, E13) and the temple's peek (A6.2)."""

from __future__ import annotations

from typing import Any

from . import cards as c
from .dig import kind_of
from .play import Play, refuse
from .state import GameState


def sellable(
    state: GameState, seat: int, sale: tuple[tuple[int, ...], ...]
) -> list[tuple[int, int]]:
    """Every sale ``(kind, count)`` the seat may make now: a kind it holds and has not sold
    this turn, 1 up to the sale table's length (A3.2, E9)."""
    hand = state.seats[seat].hand
    return [
        (kind, count)
        for kind, held in enumerate(hand)
        if held and kind not in state.turn.sold
        for count in range(1, min(held, len(sale[kind])) + 1)
    ]


def sell(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Sell ``count`` cards of one kind as one set, scoring the sale table's entry.

    Raises RuleViolation ``kind_sold_this_turn``, ``bad_set_size`` or ``card_not_in_hand``
    (A8).
    """
    kind = kind_of(play, action)
    count = action.get("count")
    table = play.comp.sale[kind]
    name = play.kind_name(kind)
    if kind in play.state.turn.sold:
        raise refuse("kind_sold_this_turn", f"RULES.md A3.2, E9: {name} was already sold this turn")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= len(table):
        raise refuse("bad_set_size", f"RULES.md A3.2: a set of {name} has 1 to {len(table)} cards")
    if play.state.seats[seat].hand[kind] < count:
        raise refuse("card_not_in_hand", f"RULES.md A3.2: you hold fewer than {count} {name}")
    play.emit("SetSold", seat=seat, kind=name, count=count, points=table[count - 1])


def peek(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Look at every card of one room, privately (the temple, A6.2).

    Raises RuleViolation ``no_such_room`` / ``empty_room``.
    """
    room = action.get("room")
    rooms = play.state.rooms
    if not isinstance(room, int) or isinstance(room, bool) or not 0 <= room < len(rooms):
        raise refuse("no_such_room", f"RULES.md A6.2: the temple has rooms 0..{len(rooms) - 1}")
    if c.size(rooms[room]) == 0:
        raise refuse("empty_room", "RULES.md A6.2: that room is empty")
    play.emit_sealed(
        "RoomPeeked",
        "seen",
        {"cards": c.to_json(rooms[room], play.comp.kinds)},
        (seat,),
        seat=seat,
        room=room,
        count=c.size(rooms[room]),
    )


def decline_peek(play: Play, seat: int) -> None:
    """Let the temple's peek go."""
    play.emit("PeekDeclined", seat=seat)
