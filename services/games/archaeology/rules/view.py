"""What each reader may see of the state (RULES.md A5); the events carry hidden values
only as sealed parts (commitments in the log, see :mod:`.setup`, :mod:`.play`).

Hidden: each hand (known to its owner), the dig site's contents and order, face-down room
cards and the reserve, what a seat saw in a room, and which card a thief took (known to
thief and victim). Everything else is public: the market, trades, sandstorm losses, the
discard pile, counts of every pile, face-up rooms, mine and sphinx reveals, tents, the
thief's victim, sold sets and hand sizes.

The view also carries the box's price list (``treasures``: each kind's trade value and
sale table, A1/E1) and a trade's running values, so a client draws the market and a trade
in progress from the view alone (issue 33: a player gave away 5 cards for 2 without
seeing the values add up).
"""

from __future__ import annotations

from services.engine.domain.ruleset import JsonDict

from . import cards as c
from .components import Components
from .state import (
    GameState,
    MinePending,
    PeekPending,
    SandstormPending,
    ThiefPending,
    TombPending,
    TradePending,
)
from .turn import result_of


def view(comp: Components, state: GameState, seat: int | None) -> JsonDict:
    """JSON projection of ``state`` for ``seat`` (None: a watcher), RULES.md A5.

    Card multisets are ``{kind: count}``; ``treasures`` lists every kind in the box's
    order as ``{"kind", "trade": market value of one card, "sale": points for a set of
    1, 2, ... cards}``; a trade in progress is ``pending`` ``{"kind": "trade", "give",
    "take", "give_value", "take_value"}`` (values in trade points, E8).
    """
    kinds = comp.kinds
    ruin = comp.ruins[state.options.ruin]
    seats: list[JsonDict] = []
    for index, s in enumerate(state.seats):
        entry: JsonDict = {
            "hand_size": state.hand_size(index),
            "tent_uses": s.tent_uses,
            "sets": [{"kind": kinds[k], "count": n} for k, n in s.sets],
            "points": s.points,
            "cards_sold": s.cards_sold,
        }
        if index == seat:
            entry["hand"] = c.to_json(s.hand, kinds)
            entry["known_rooms"] = {
                str(room): c.to_json(cards, kinds) for room, cards in state.known_rooms[index]
            }
        seats.append(entry)
    result = result_of(state) if state.ended else None
    return {
        "ruin": ruin.name,
        "options": {
            "long_expedition": state.options.long_expedition,
            "sand_hell": state.options.sand_hell,
            "lucky_beginner": state.options.lucky_beginner,
        },
        "maps_to_explore": ruin.maps,
        "turn": {
            "seat": state.turn.seat,
            "must_dig": state.turn.must_dig,
            "acted": state.turn.acted,
            "explored": state.turn.explored,
            "sold": [kinds[k] for k in state.turn.sold],
        },
        "pending": _pending(comp, state),
        "treasures": [
            {"kind": kind, "trade": comp.trade[k], "sale": list(comp.sale[k])}
            for k, kind in enumerate(kinds)
        ],
        "market": c.to_json(state.market, kinds),
        "dig_site_size": state.dig_site_size,
        "dig_site_thieves": state.dig_thieves,
        "dig_site_sandstorms": state.dig_sandstorms,
        "rooms": [
            {
                "size": state.room_size(r),
                **({"cards": c.to_json(room, kinds)} if ruin.face_up else {}),
            }
            for r, room in enumerate(state.rooms)
        ],
        "reserve_size": state.reserve_size,
        "discard": {
            "treasures": c.to_json(state.discard, kinds),
            "thieves": state.discard_thieves,
            "sandstorms": state.discard_sandstorms,
        },
        "removed": c.to_json(state.removed, kinds),
        "seats": seats,
        "first_seat": state.first_seat,
        "passes": state.passes,
        "compulsory_selling": state.compulsory,
        "ended": state.ended,
        "result": None
        if result is None
        else {"scores": list(result.scores), "ranking": list(result.ranking)},
    }


def _pending(comp: Components, state: GameState) -> JsonDict | None:
    kinds = comp.kinds
    p = state.pending
    if p is None:
        return None
    if isinstance(p, ThiefPending):
        return {"kind": "thief", "drawer": p.drawer}
    if isinstance(p, SandstormPending):
        return {
            "kind": "sandstorm",
            "drawer": p.drawer,
            "losses": list(p.losses),
            "order": list(p.order),
            "to_declare": list(p.to_declare),
            "sheltered": list(p.sheltered),
            "lost": list(p.lost),
        }
    if isinstance(p, TradePending):
        return {
            "kind": "trade",
            "give": c.to_json(p.give, kinds),
            "take": c.to_json(p.take, kinds),
            "give_value": c.value(p.give, comp.trade),
            "take_value": c.value(p.take, comp.trade),
        }
    if isinstance(p, MinePending):
        return {"kind": "mine", "room": p.room, "revealed": c.to_json(p.revealed, kinds)}
    if isinstance(p, TombPending):
        return {"kind": "tomb", "room": p.room}
    assert isinstance(p, PeekPending)
    return {"kind": "peek"}
