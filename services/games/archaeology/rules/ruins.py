"""Exploring the ruin (RULES.md A3.2, A6, E4, E5, E10): maps, rooms and each tile's rule.

Which rule a ruin follows is its ``special`` in the components: take a whole room
(pyramid, temple, buried ruins), look and take two (tomb), push your luck (mine), name two
kinds (sphinx).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from . import cards as c
from .components import Ruin
from .dig import kind_of
from .play import Play, refuse
from .state import GameState, MinePending, TombPending

TOMB = "look_and_take_two"
MINE = "push_your_luck_trade_over_5_busts"
SPHINX = "name_two_kinds_reveal_five"


def ruin_of(play: Play) -> Ruin:
    """The ruin tile in play."""
    return play.comp.ruins[play.state.options.ruin]


def explorable_rooms(state: GameState, ruin: Ruin, seat: int, map_kind: int) -> tuple[int, ...]:
    """Rooms ``seat`` may explore now: none after this turn's attempt or without enough
    maps; else every room holding a card (A3.2, E5)."""
    if state.turn.explored or state.seats[seat].hand[map_kind] < ruin.maps:
        return ()
    return tuple(r for r, room in enumerate(state.rooms) if c.size(room) > 0)


def sphinx_namings(kinds: int) -> list[tuple[int, int]]:
    """Every pair of two different kinds that may be named at the sphinx (E10)."""
    return list(combinations(range(kinds), 2))


def explore(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Spend the ruin's maps on a room and follow the ruin's rule.

    Raises RuleViolation ``already_explored``, ``not_enough_maps``, ``empty_room`` /
    ``no_such_room``, or ``bad_sphinx_kinds`` (A8).
    """
    state, ruin = play.state, ruin_of(play)
    if state.turn.explored:
        raise refuse("already_explored", "RULES.md A3.2: one exploration attempt per turn")
    if state.seats[seat].hand[play.comp.map_kind] < ruin.maps:
        raise refuse(
            "not_enough_maps",
            f"RULES.md A3.2, A6: exploring the {ruin.name} costs {ruin.maps} maps",
        )
    room = action.get("room")
    if not isinstance(room, int) or isinstance(room, bool) or not 0 <= room < len(state.rooms):
        raise refuse(
            "no_such_room", f"RULES.md A6: the {ruin.name} has rooms 0..{len(state.rooms) - 1}"
        )
    if c.size(state.rooms[room]) == 0:
        raise refuse("empty_room", "RULES.md A8, E5: choose a room that holds at least one card")
    named: list[int] = []
    if ruin.special == SPHINX:
        named = _sphinx_kinds(play, action, ruin)
    payload: dict[str, Any] = {"seat": seat, "room": room, "maps": ruin.maps}
    if named:
        payload["named"] = [play.kind_name(k) for k in named]
    play.emit("RuinExplored", **payload)
    if ruin.special == TOMB:
        _search_tomb(play, seat, room, ruin)
    elif ruin.special == MINE:
        reveal_mine_card(play, seat)
    elif ruin.special == SPHINX:
        _reveal_sphinx(play, seat, room, named, ruin)
    else:
        take_cards(play, seat, room, play.state.rooms[room])


def take_cards(play: Play, seat: int, room: int, cards: c.Cards) -> None:
    """``seat`` takes ``cards`` from ``room``; which ones is public only at a face-up ruin
    (A5), how many always."""
    shown = c.to_json(cards, play.comp.kinds)
    if ruin_of(play).face_up:
        play.emit(
            "RoomCardsTaken", seat=seat, room=room, count=c.size(cards), face_up=True, cards=shown
        )
    else:
        play.emit_sealed(
            "RoomCardsTaken",
            "taken",
            {"cards": shown},
            (seat,),
            seat=seat,
            room=room,
            count=c.size(cards),
            face_up=False,
        )


def _sphinx_kinds(play: Play, action: dict[str, Any], ruin: Ruin) -> list[int]:
    named = action.get("named")
    count = ruin.params.get("name_kinds", 2)
    if not isinstance(named, list) or len(named) != count:
        raise refuse("bad_sphinx_kinds", f"RULES.md A6.5: name {count} kinds of treasure")
    kinds = [kind_of(play, {"kind": name}) for name in named]
    if len(set(kinds)) != len(kinds):
        raise refuse("bad_sphinx_kinds", "RULES.md A6.5, E10: the named kinds must differ")
    return sorted(kinds)


def _reveal_sphinx(play: Play, seat: int, room: int, named: list[int], ruin: Ruin) -> None:
    revealed = c.draw_many(play.state.rooms[room], ruin.params.get("reveal", 5), play.rng)
    taken = tuple(n if k in named else 0 for k, n in enumerate(revealed))
    kinds = play.comp.kinds
    play.emit(
        "SphinxRevealed",
        seat=seat,
        room=room,
        revealed=c.to_json(revealed, kinds),
        taken=c.to_json(taken, kinds),
    )


def _search_tomb(play: Play, seat: int, room: int, ruin: Ruin) -> None:
    seen = play.state.rooms[room]
    play.emit_sealed(
        "TombSearched",
        "seen",
        {"cards": c.to_json(seen, play.comp.kinds)},
        (seat,),
        seat=seat,
        room=room,
        count=c.size(seen),
    )
    options = tomb_choices(seen, ruin.params.get("take", 2))
    if len(options) == 1:  # the room holds no more than the seat takes: nothing to choose
        take_cards(play, seat, room, options[0])


def tomb_choices(seen: c.Cards, take: int) -> list[c.Cards]:
    """Every choice of ``take`` cards (or all, if fewer) from a tomb room (A6.3)."""
    return list(c.sub_multisets(seen, min(take, c.size(seen))))


def take_from_tomb(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Take the chosen cards; the rest go back face down (A6.3).

    Raises RuleViolation ``bad_tomb_choice`` unless exactly the ruin's number of cards (all
    if fewer) from the room are named as ``{"cards": {kind: count}}``.
    """
    tomb = play.state.pending
    assert isinstance(tomb, TombPending)
    room_cards = play.state.rooms[tomb.room]
    take = ruin_of(play).params.get("take", 2)
    try:
        chosen = c.from_json(action.get("cards") or {}, play.comp.kinds)
    except (KeyError, ValueError, AttributeError, TypeError):
        chosen = ()
    if chosen not in tomb_choices(room_cards, take):
        raise refuse(
            "bad_tomb_choice",
            f"RULES.md A6.3: take exactly {min(take, c.size(room_cards))} cards of the room",
        )
    take_cards(play, seat, tomb.room, chosen)


def reveal_mine_card(play: Play, seat: int) -> None:
    """Reveal the mine room's next card (drawn at random: the room was shuffled, A6.4);
    bust above the trade total, take everything when the room runs out."""
    pending = play.state.pending
    room = pending.room if isinstance(pending, MinePending) else _explored_room(play)
    kind = c.draw(play.state.rooms[room], play.rng)
    play.emit("MineCardRevealed", seat=seat, room=room, kind=play.kind_name(kind))
    mine = play.state.pending
    assert isinstance(mine, MinePending)
    limit = ruin_of(play).params.get("bust_over_trade_total", 5)
    if c.value(mine.revealed, play.comp.trade) > limit:
        play.emit("MineBusted", seat=seat, room=room)
    elif c.size(play.state.rooms[room]) == 0:
        play.emit(
            "MineCardsTaken", seat=seat, room=room, cards=c.to_json(mine.revealed, play.comp.kinds)
        )


def _explored_room(play: Play) -> int:
    last = play.events[-1]
    assert last.type == "RuinExplored"
    return int(last.payload["room"])


def stop_mine(play: Play, seat: int) -> None:
    """Stop and take every revealed card (A6.4)."""
    mine = play.state.pending
    assert isinstance(mine, MinePending)
    play.emit(
        "MineCardsTaken", seat=seat, room=mine.room, cards=c.to_json(mine.revealed, play.comp.kinds)
    )
