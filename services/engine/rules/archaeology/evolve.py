"""Folding Archaeology's events into the state: one handler per event type.

Handlers never draw randomness and never validate: ``decide`` already did, and every
random outcome is written into the event (the service's D7). The event payloads are the
public contract documented in docs/events.md; card multisets travel as ``{kind: count}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from services.engine.rules.frozen import replace
from services.engine.ruleset import DomainEvent

from . import cards as c
from .components import Components
from .state import (
    GameState,
    MinePending,
    Options,
    PeekPending,
    SandstormPending,
    SeatState,
    ThiefPending,
    TombPending,
    TradePending,
    Turn,
)

Handler = Callable[[Components, GameState, Mapping[str, Any]], GameState]
_HANDLERS: dict[str, Handler] = {}

PEEK_SPECIAL = "peek_room_on_museum_sale"


def handles(event_type: str) -> Callable[[Handler], Handler]:
    """Register the fold of ``event_type``."""

    def register(handler: Handler) -> Handler:
        _HANDLERS[event_type] = handler
        return handler

    return register


def event_types() -> frozenset[str]:
    """Every event type this ruleset writes."""
    return frozenset(_HANDLERS) | {"ExpeditionSetUp"}


def evolve(comp: Components, state: GameState | None, event: DomainEvent) -> GameState:
    """Fold ``event`` into ``state`` (None only before ``ExpeditionSetUp``).

    Raises ValueError for an unknown event type or a first event other than the setup.
    """
    if state is None:
        if event.type != "ExpeditionSetUp":
            raise ValueError(f"the first event must be ExpeditionSetUp, not {event.type}")
        return _set_up(comp, event.payload)
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"unknown Archaeology event {event.type}")
    return handler(comp, state, event.payload)


def _cards(comp: Components, data: Mapping[str, int]) -> c.Cards:
    return c.from_json(data, comp.kinds)


def _set_up(comp: Components, p: Mapping[str, Any]) -> GameState:
    options = Options(**p["options"])
    seats = tuple(SeatState(hand=_cards(comp, h), tent_uses=p["tent_uses"]) for h in p["hands"])
    first = int(p["first_seat"])
    dig_site = _cards(comp, p["dig_site"])
    return GameState(
        options=options,
        seats=seats,
        dig_site=dig_site,
        dig_thieves=p["dig_thieves"],
        dig_sandstorms=p["dig_sandstorms"],
        market=_cards(comp, p["market"]),
        rooms=tuple(_cards(comp, r) for r in p["rooms"]),
        reserve=_cards(comp, p["reserve"]),
        discard=c.empty(len(comp.kinds)),
        removed=_cards(comp, p["removed"]),
        first_seat=first,
        turn=Turn(first, must_dig=True),
        known_rooms=((),) * len(seats),
    )


def _with_hand(state: GameState, seat: int, hand: c.Cards) -> GameState:
    seats = list(state.seats)
    seats[seat] = replace(seats[seat], hand=hand)
    return replace(state, seats=tuple(seats))


def _acted(state: GameState, **changes: Any) -> Turn:
    return replace(state.turn, acted=True, **changes)


@handles("CardDug")
def _dug(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, card = int(p["seat"]), str(p["card"])
    turn = _acted(state, must_dig=False)
    if card == "thief":
        return replace(
            state, dig_thieves=state.dig_thieves - 1, turn=turn, pending=ThiefPending(seat)
        )
    if card == "sandstorm":  # resolved by SandstormBegan, written right after
        return replace(state, dig_sandstorms=state.dig_sandstorms - 1, turn=turn)
    kind = c.one(len(comp.kinds), comp.kind_index(str(p["kind"])))
    state = _with_hand(state, seat, c.add(state.seats[seat].hand, kind))
    return replace(state, dig_site=c.sub(state.dig_site, kind), turn=turn)


@handles("ThiefVoided")
def _thief_voided(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    return replace(state, pending=None, discard_thieves=state.discard_thieves + 1)


@handles("CardStolen")
def _stolen(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, victim = int(p["seat"]), int(p["victim"])
    kind = c.one(len(comp.kinds), comp.kind_index(str(p["kind"])))
    state = _with_hand(state, victim, c.sub(state.seats[victim].hand, kind))
    state = _with_hand(state, seat, c.add(state.seats[seat].hand, kind))
    return replace(state, pending=None, discard_thieves=state.discard_thieves + 1)


@handles("SandstormBegan")
def _sandstorm(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    drawer = int(p["seat"])
    losses = tuple(int(n) for n in p["losses"])
    rooms, reserve = list(state.rooms), state.reserve
    for room, kind in enumerate(p["reserve_added"]):
        if kind is not None:
            card = c.one(len(comp.kinds), comp.kind_index(str(kind)))
            rooms[room] = c.add(rooms[room], card)
            reserve = c.sub(reserve, card)
    n = state.seat_count
    order = tuple(s % n for s in range(drawer + 1, drawer + 1 + n) if losses[s % n] > 0)
    to_declare = tuple(s for s in order if state.seats[s].tent_uses > 0)
    pending = SandstormPending(drawer, losses, order, to_declare, (), (0,) * n)
    return replace(state, rooms=tuple(rooms), reserve=reserve, pending=pending)


@handles("TentDeclared")
def _tent(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, used = int(p["seat"]), bool(p["used"])
    storm = state.pending
    assert isinstance(storm, SandstormPending)
    to_declare = tuple(s for s in storm.to_declare if s != seat)
    sheltered = (*storm.sheltered, seat) if used else storm.sheltered
    if used:
        seats = list(state.seats)
        seats[seat] = replace(seats[seat], tent_uses=seats[seat].tent_uses - 1)
        state = replace(state, seats=tuple(seats))
    return replace(state, pending=replace(storm, to_declare=to_declare, sheltered=sheltered))


@handles("CardLost")
def _lost(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat = int(p["seat"])
    kind = c.one(len(comp.kinds), comp.kind_index(str(p["kind"])))
    storm = state.pending
    assert isinstance(storm, SandstormPending)
    lost = list(storm.lost)
    lost[seat] += 1
    state = _with_hand(state, seat, c.sub(state.seats[seat].hand, kind))
    return replace(
        state, market=c.add(state.market, kind), pending=replace(storm, lost=tuple(lost))
    )


@handles("SandstormEnded")
def _sandstorm_ended(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    # E11: the drawer digs again only while the dig site has cards.
    turn = replace(state.turn, must_dig=state.dig_site_size > 0)
    return replace(state, pending=None, discard_sandstorms=state.discard_sandstorms + 1, turn=turn)


@handles("TradeCardOffered")
def _offered(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    kind = c.one(len(comp.kinds), comp.kind_index(str(p["kind"])))
    trade = state.pending
    if not isinstance(trade, TradePending):
        trade = TradePending(c.empty(len(comp.kinds)), c.empty(len(comp.kinds)))
    return replace(state, pending=replace(trade, give=c.add(trade.give, kind)))


@handles("TradeCardChosen")
def _chosen(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    kind = c.one(len(comp.kinds), comp.kind_index(str(p["kind"])))
    trade = state.pending
    assert isinstance(trade, TradePending)
    return replace(state, pending=replace(trade, take=c.add(trade.take, kind)))


@handles("TradeCancelled")
def _cancelled(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    return replace(state, pending=None)


@handles("TradeMade")
def _traded(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat = int(p["seat"])
    given, taken = _cards(comp, p["given"]), _cards(comp, p["taken"])
    hand = c.add(c.sub(state.seats[seat].hand, given), taken)
    state = _with_hand(state, seat, hand)
    market = c.sub(c.add(state.market, given), taken)
    return replace(state, market=market, pending=None, turn=_acted(state))


@handles("RuinExplored")
def _explored(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, maps = int(p["seat"]), int(p["maps"])
    spent = c.one(len(comp.kinds), comp.map_kind, maps)
    state = _with_hand(state, seat, c.sub(state.seats[seat].hand, spent))
    return replace(state, discard=c.add(state.discard, spent), turn=_acted(state, explored=True))


def _forget_room(state: GameState, room: int, keep: int | None = None) -> GameState:
    """Drop every seat's knowledge of ``room`` but ``keep``'s (the room changed unseen)."""
    known = tuple(
        entries if seat == keep else tuple(e for e in entries if e[0] != room)
        for seat, entries in enumerate(state.known_rooms)
    )
    return replace(state, known_rooms=known)


def _learn_room(state: GameState, seat: int, room: int, seen: c.Cards) -> GameState:
    entries = tuple(e for e in state.known_rooms[seat] if e[0] != room)
    if c.size(seen):
        entries = tuple(sorted((*entries, (room, seen))))
    known = list(state.known_rooms)
    known[seat] = entries
    return replace(state, known_rooms=tuple(known))


@handles("RoomCardsTaken")
def _room_taken(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, room = int(p["seat"]), int(p["room"])
    taken = _cards(comp, p["cards"])
    rooms = list(state.rooms)
    rooms[room] = c.sub(rooms[room], taken)
    state = _with_hand(state, seat, c.add(state.seats[seat].hand, taken))
    state = replace(state, rooms=tuple(rooms), pending=None)
    state = _forget_room(state, room, keep=seat)
    return _learn_room(state, seat, room, rooms[room]) if _knows(state, seat, room) else state


def _knows(state: GameState, seat: int, room: int) -> bool:
    return any(entry[0] == room for entry in state.known_rooms[seat])


@handles("TombSearched")
def _tomb(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, room = int(p["seat"]), int(p["room"])
    state = _learn_room(state, seat, room, _cards(comp, p["cards"]))
    return replace(state, pending=TombPending(room))


@handles("RoomPeeked")
def _peeked(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, room = int(p["seat"]), int(p["room"])
    state = _learn_room(state, seat, room, _cards(comp, p["cards"]))
    return replace(state, pending=None)


@handles("PeekDeclined")
def _peek_declined(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    return replace(state, pending=None)


@handles("MineCardRevealed")
def _mine_revealed(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    room = int(p["room"])
    card = c.one(len(comp.kinds), comp.kind_index(str(p["kind"])))
    rooms = list(state.rooms)
    rooms[room] = c.sub(rooms[room], card)
    mine = state.pending
    revealed = mine.revealed if isinstance(mine, MinePending) else c.empty(len(comp.kinds))
    state = _forget_room(state, room)
    return replace(state, rooms=tuple(rooms), pending=MinePending(room, c.add(revealed, card)))


@handles("MineBusted")
def _mine_busted(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    mine = state.pending
    assert isinstance(mine, MinePending)
    rooms = list(state.rooms)
    rooms[mine.room] = c.add(rooms[mine.room], mine.revealed)  # E10: back into the room
    return replace(state, rooms=tuple(rooms), pending=None)


@handles("MineCardsTaken")
def _mine_taken(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat = int(p["seat"])
    mine = state.pending
    assert isinstance(mine, MinePending)
    state = _with_hand(state, seat, c.add(state.seats[seat].hand, mine.revealed))
    return replace(state, pending=None)


@handles("SphinxRevealed")
def _sphinx(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, room = int(p["seat"]), int(p["room"])
    taken = _cards(comp, p["taken"])
    rooms = list(state.rooms)
    rooms[room] = c.sub(rooms[room], taken)
    state = _with_hand(state, seat, c.add(state.seats[seat].hand, taken))
    return _forget_room(replace(state, rooms=tuple(rooms)), room)


@handles("SetSold")
def _sold(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, count, points = int(p["seat"]), int(p["count"]), int(p["points"])
    kind = comp.kind_index(str(p["kind"]))
    seats = list(state.seats)
    mine = seats[seat]
    seats[seat] = replace(
        mine,
        hand=c.sub(mine.hand, c.one(len(comp.kinds), kind, count)),
        sets=(*mine.sets, (kind, count)),
        points=mine.points + points,
    )
    turn = _acted(state, sold=(*state.turn.sold, kind))
    ruin = comp.ruins[state.options.ruin]
    peek = ruin.special == PEEK_SPECIAL and any(c.size(r) for r in state.rooms)
    return replace(state, seats=tuple(seats), turn=turn, pending=PeekPending() if peek else None)


@handles("TurnEnded")
def _turn_ended(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    seat, passed = int(p["seat"]), bool(p["passed"])
    following = (seat + 1) % state.seat_count
    return replace(
        state,
        passes=state.passes + 1 if passed else 0,
        turn=Turn(following, must_dig=state.dig_site_size > 0),
    )


@handles("CompulsorySellingBegan")
def _compulsory(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    return replace(state, compulsory=True)


@handles("ExpeditionEnded")
def _ended(comp: Components, state: GameState, p: Mapping[str, Any]) -> GameState:
    return replace(state, ended=True, pending=None)
