"""Folding Archaeology's events into the state: one handler per event type.

Handlers never draw randomness and never validate: ``decide`` already did, and every
random outcome is written into the event (the service's D7). The event payloads are the
public contract documented in docs/events.md; card multisets travel as ``{kind: count}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from services.engine.domain.ruleset import SEALED_KEY, DomainEvent

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

T = TypeVar("T")


def changed(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj``, one of the state's frozen classes, with ``changes`` applied.

    What ``frozen.replace`` does, for the dict-backed classes of :mod:`.state` only (every
    one holds all its fields in ``__dict__``): the unknown-field check is the copy's size
    instead of a look-up of the class's field names, which was a third of the cost of the
    two or three copies nearly every fold makes (issue 16).

    Raises:
        TypeError: a name in ``changes`` is not a field of ``obj``'s class.
    """
    attributes = obj.__dict__
    copied = attributes.copy()
    copied.update(changes)
    if len(copied) != len(attributes):
        unknown = sorted(changes.keys() - attributes.keys())
        raise TypeError(f"{type(obj).__name__} has no field(s) {unknown}")
    new: T = object.__new__(type(obj))
    object.__setattr__(new, "__dict__", copied)  # the class is frozen
    return new


Handler = Callable[[Components, GameState, DomainEvent], GameState]
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
        return _set_up(comp, event)
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"unknown Archaeology event {event.type}")
    folded = handler(comp, state, event)
    if not event.sealed and SEALED_KEY not in event.payload:
        return folded  # most events: no secret to count (sealed_ids() would be empty)
    ids = event.sealed_ids()
    return changed(folded, secrets=folded.secrets + len(ids)) if ids else folded


def _cards(comp: Components, data: Mapping[str, int]) -> c.Cards:
    return c.from_json(data, comp.kinds)


def sealed_value(event: DomainEvent, secret: str) -> Any:
    """The sealed value ``secret`` of ``event`` if the folder knows it, else None."""
    part = event.sealed.get(secret)
    return None if part is None else part.value


def hand_id(seat: int) -> str:
    """Secret id of a seat's dealt hand in ``ExpeditionSetUp``."""
    return f"hand:{seat}"


ROOMS_ID, RESERVE_ID, DIG_SITE_ID = "rooms", "reserve", "dig_site"
"""Secret ids of the face-down rooms, the reserve and the dig site's contents at setup."""


def _set_up(comp: Components, event: DomainEvent) -> GameState:
    p = event.payload
    empty = c.empty(len(comp.kinds))
    hands = [sealed_value(event, hand_id(s)) for s in range(int(p["seats"]))]
    seats = tuple(
        SeatState(hand=empty if h is None else _cards(comp, h), tent_uses=p["tent_uses"])
        for h in hands
    )
    hidden_hands = tuple(n if h is None else 0 for h, n in zip(hands, p["hand_sizes"], strict=True))
    rooms = p.get("rooms") or sealed_value(event, ROOMS_ID)  # face up: public
    reserve = sealed_value(event, RESERVE_ID)
    dig_site = sealed_value(event, DIG_SITE_ID)
    treasures_dug = p["dig_site_size"] - p["dig_thieves"] - p["dig_sandstorms"]
    first = int(p["first_seat"])
    return GameState(
        options=Options(**p["options"]),
        seats=seats,
        dig_site=empty if dig_site is None else _cards(comp, dig_site),
        dig_thieves=p["dig_thieves"],
        dig_sandstorms=p["dig_sandstorms"],
        market=_cards(comp, p["market"]),
        rooms=tuple(empty for _ in p["room_sizes"])
        if rooms is None
        else tuple(_cards(comp, r) for r in rooms),
        reserve=empty if reserve is None else _cards(comp, reserve),
        discard=empty,
        removed=_cards(comp, p["removed"]),
        first_seat=first,
        turn=Turn(first, must_dig=True),
        known_rooms=((),) * len(seats),
        hidden_hands=hidden_hands,
        hidden_rooms=tuple(p["room_sizes"]) if rooms is None else (0,) * len(p["room_sizes"]),
        hidden_reserve=p["reserve_size"] if reserve is None else 0,
        hidden_dig=treasures_dug if dig_site is None else 0,
    )


def _split(known: c.Cards, hidden: int, leaving: c.Cards) -> tuple[c.Cards, int]:
    """``known`` and ``hidden`` after ``leaving`` goes: kinds the folder knows leave the
    known part, the rest were among the hidden cards (a public fold; the service knows
    every card, so for it ``leaving`` must be wholly known). Raises ValueError if not."""
    if len(known) != len(leaving):
        raise ValueError(f"{leaving} and {known} count different kinds")
    from_known = tuple(map(min, known, leaving))
    unseen = c.size(leaving) - c.size(from_known)
    if unseen > hidden:
        raise ValueError(f"{leaving} is not part of {known} and {hidden} hidden cards")
    return c.sub(known, from_known), hidden - unseen


# The hand helpers take the event's other ``changes`` of the state, so that a fold copies
# the state once: the copies were most of the cost of folding (issue 16).


def hand_out(state: GameState, seat: int, leaving: c.Cards, **changes: Any) -> GameState:
    """``state`` with ``leaving`` gone from ``seat``'s hand and ``changes`` applied."""
    hand, hidden = _split(state.seats[seat].hand, state.hidden_hands[seat], leaving)
    if hidden != state.hidden_hands[seat]:  # never for the service, which knows every card
        changes["hidden_hands"] = _set(state.hidden_hands, seat, hidden)
    return _with_hand(state, seat, hand, **changes)


def hand_in(
    state: GameState, seat: int, cards: c.Cards | None, count: int, **changes: Any
) -> GameState:
    """``state`` with ``count`` cards added to ``seat``'s hand, ``cards`` if known, and
    ``changes`` applied."""
    if cards is not None:
        return _with_hand(state, seat, c.add(state.seats[seat].hand, cards), **changes)
    hidden = _set(state.hidden_hands, seat, state.hidden_hands[seat] + count)
    return changed(state, hidden_hands=hidden, **changes)


def room_out(state: GameState, room: int, leaving: c.Cards) -> GameState:
    """``state`` with ``leaving`` gone from ``room``."""
    cards, hidden = _split(state.rooms[room], state.hidden_rooms[room], leaving)
    return changed(
        state,
        rooms=_set(state.rooms, room, cards),
        hidden_rooms=_set(state.hidden_rooms, room, hidden),
    )


def unseen_out_of_hand(state: GameState, seat: int, count: int) -> GameState:
    """A public fold: ``count`` cards the reader can't see leave ``seat``'s hand. Which of
    its cards they were is unknown, so the cards the reader knew of turn unknown too."""
    hidden = state.hand_size(seat) - count
    state = _with_hand(state, seat, c.empty(len(state.seats[seat].hand)))
    return changed(state, hidden_hands=_set(state.hidden_hands, seat, hidden))


def unseen_out_of_room(state: GameState, room: int, count: int) -> GameState:
    """A public fold: ``count`` unseen cards leave ``room`` (see :func:`unseen_out_of_hand`)."""
    hidden = state.room_size(room) - count
    rooms = _set(state.rooms, room, c.empty(len(state.rooms[room])))
    return changed(state, rooms=rooms, hidden_rooms=_set(state.hidden_rooms, room, hidden))


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _with_hand(state: GameState, seat: int, hand: c.Cards, **changes: Any) -> GameState:
    seats = list(state.seats)
    seats[seat] = changed(seats[seat], hand=hand)
    return changed(state, seats=tuple(seats), **changes)


def _acted(state: GameState, **changes: Any) -> Turn:
    return changed(state.turn, acted=True, **changes)


@handles("CardDug")
def _dug(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, card = int(p["seat"]), str(p["card"])
    turn = _acted(state, must_dig=False)
    if card == "thief":
        return changed(
            state, dig_thieves=state.dig_thieves - 1, turn=turn, pending=ThiefPending(seat)
        )
    if card == "sandstorm":  # resolved by SandstormBegan, written right after
        return changed(state, dig_sandstorms=state.dig_sandstorms - 1, turn=turn)
    secret = sealed_value(event, secret_id(event))
    if secret is None:  # a public fold: one unseen card moves from the dig site to the hand
        return hand_in(state, seat, None, 1, hidden_dig=state.hidden_dig - 1, turn=turn)
    kind = comp.units[comp.indices[str(secret["kind"])]]
    return hand_in(state, seat, kind, 1, dig_site=c.sub(state.dig_site, kind), turn=turn)


def secret_id(event: DomainEvent) -> str:
    """The id of the one secret of a ``CardDug``, ``CardStolen``, ``RoomCardsTaken``,
    ``TombSearched`` or ``RoomPeeked`` ("" when it has none)."""
    return next(iter(event.sealed_ids()), "")


@handles("ThiefVoided")
def _thief_voided(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    return changed(state, pending=None, discard_thieves=state.discard_thieves + 1)


@handles("CardStolen")
def _stolen(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, victim = int(p["seat"]), int(p["victim"])
    secret = sealed_value(event, secret_id(event))
    discarded = state.discard_thieves + 1
    if secret is None:  # a public fold: one unseen card changes hands
        state = unseen_out_of_hand(state, victim, 1)
        return hand_in(state, seat, None, 1, pending=None, discard_thieves=discarded)
    kind = comp.units[comp.indices[str(secret["kind"])]]
    state = hand_out(state, victim, kind)
    return hand_in(state, seat, kind, 1, pending=None, discard_thieves=discarded)


@handles("SandstormBegan")
def _sandstorm(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    drawer = int(p["seat"])
    losses = tuple(int(n) for n in p["losses"])
    rooms, reserve, hidden = list(state.rooms), state.reserve, state.hidden_reserve
    for room, kind in enumerate(p["reserve_added"]):
        if kind is not None:  # reserve cards go face up into the rooms: public (A6.6)
            card = comp.units[comp.indices[str(kind)]]
            rooms[room] = c.add(rooms[room], card)
            reserve, hidden = _split(reserve, hidden, card)
    n = state.seat_count
    order = tuple(s % n for s in range(drawer + 1, drawer + 1 + n) if losses[s % n] > 0)
    to_declare = tuple(s for s in order if state.seats[s].tent_uses > 0)
    pending = SandstormPending(drawer, losses, order, to_declare, (), (0,) * n)
    return changed(
        state, rooms=tuple(rooms), reserve=reserve, hidden_reserve=hidden, pending=pending
    )


@handles("TentDeclared")
def _tent(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, used = int(p["seat"]), bool(p["used"])
    storm = state.pending
    assert isinstance(storm, SandstormPending)
    to_declare = tuple(s for s in storm.to_declare if s != seat)
    sheltered = (*storm.sheltered, seat) if used else storm.sheltered
    if used:
        seats = list(state.seats)
        seats[seat] = changed(seats[seat], tent_uses=seats[seat].tent_uses - 1)
        state = changed(state, seats=tuple(seats))
    return changed(state, pending=changed(storm, to_declare=to_declare, sheltered=sheltered))


@handles("CardLost")
def _lost(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat = int(p["seat"])
    kind = comp.units[comp.indices[str(p["kind"])]]
    storm = state.pending
    assert isinstance(storm, SandstormPending)
    lost = list(storm.lost)
    lost[seat] += 1
    pending = changed(storm, lost=tuple(lost))
    return hand_out(state, seat, kind, market=c.add(state.market, kind), pending=pending)


@handles("SandstormEnded")
def _sandstorm_ended(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    # E11: the drawer digs again only while the dig site has cards.
    turn = changed(state.turn, must_dig=state.dig_site_size > 0)
    return changed(state, pending=None, discard_sandstorms=state.discard_sandstorms + 1, turn=turn)


@handles("TradeCardOffered")
def _offered(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    kind = comp.units[comp.indices[str(p["kind"])]]
    trade = state.pending
    if not isinstance(trade, TradePending):
        trade = TradePending(c.empty(len(comp.kinds)), c.empty(len(comp.kinds)))
    return changed(state, pending=changed(trade, give=c.add(trade.give, kind)))


@handles("TradeCardChosen")
def _chosen(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    kind = comp.units[comp.indices[str(p["kind"])]]
    trade = state.pending
    assert isinstance(trade, TradePending)
    return changed(state, pending=changed(trade, take=c.add(trade.take, kind)))


@handles("TradeCancelled")
def _cancelled(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    return changed(state, pending=None)


@handles("TradeMade")
def _traded(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat = int(p["seat"])
    given, taken = _cards(comp, p["given"]), _cards(comp, p["taken"])
    market = c.sub(c.add(state.market, given), taken)
    state = hand_out(state, seat, given)
    return hand_in(
        state, seat, taken, c.size(taken), market=market, pending=None, turn=_acted(state)
    )


@handles("RuinExplored")
def _explored(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, maps = int(p["seat"]), int(p["maps"])
    spent = c.one(len(comp.kinds), comp.map_kind, maps)
    discard = c.add(state.discard, spent)
    return hand_out(state, seat, spent, discard=discard, turn=_acted(state, explored=True))


def _forget_room(state: GameState, room: int, keep: int | None = None) -> GameState:
    """Drop every seat's knowledge of ``room`` but ``keep``'s (the room changed unseen)."""
    known = tuple(
        entries if seat == keep else tuple(e for e in entries if e[0] != room)
        for seat, entries in enumerate(state.known_rooms)
    )
    return changed(state, known_rooms=known)


def _learn_room(state: GameState, seat: int, room: int, seen: c.Cards) -> GameState:
    entries = tuple(e for e in state.known_rooms[seat] if e[0] != room)
    if c.size(seen):
        entries = tuple(sorted((*entries, (room, seen))))
    known = list(state.known_rooms)
    known[seat] = entries
    return changed(state, known_rooms=tuple(known))


@handles("RoomCardsTaken")
def _room_taken(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, room, count = int(p["seat"]), int(p["room"]), int(p["count"])
    if p["face_up"]:
        shown = p["cards"]
    else:
        secret = sealed_value(event, secret_id(event))
        shown = None if secret is None else secret["cards"]
    state = changed(state, pending=None)
    if shown is None:  # a public fold: unseen cards move from the room to the hand
        state = hand_in(unseen_out_of_room(state, room, count), seat, None, count)
        return _forget_room(state, room, keep=seat)
    taken = _cards(comp, shown)
    state = hand_in(room_out(state, room, taken), seat, taken, count)
    state = _forget_room(state, room, keep=seat)
    if _knows(state, seat, room):
        return _learn_room(state, seat, room, state.rooms[room])
    return state


def _knows(state: GameState, seat: int, room: int) -> bool:
    return any(entry[0] == room for entry in state.known_rooms[seat])


@handles("TombSearched")
def _tomb(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, room = int(p["seat"]), int(p["room"])
    seen = sealed_value(event, secret_id(event))
    if seen is not None:
        state = _learn_room(state, seat, room, _cards(comp, seen["cards"]))
    return changed(state, pending=TombPending(room))


@handles("RoomPeeked")
def _peeked(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, room = int(p["seat"]), int(p["room"])
    seen = sealed_value(event, secret_id(event))
    if seen is not None:
        state = _learn_room(state, seat, room, _cards(comp, seen["cards"]))
    return changed(state, pending=None)


@handles("PeekDeclined")
def _peek_declined(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    return changed(state, pending=None)


@handles("MineCardRevealed")
def _mine_revealed(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    room = int(p["room"])
    card = comp.units[comp.indices[str(p["kind"])]]
    mine = state.pending
    revealed = mine.revealed if isinstance(mine, MinePending) else c.empty(len(comp.kinds))
    state = _forget_room(room_out(state, room, card), room)
    return changed(state, pending=MinePending(room, c.add(revealed, card)))


@handles("MineBusted")
def _mine_busted(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    mine = state.pending
    assert isinstance(mine, MinePending)
    rooms = list(state.rooms)
    rooms[mine.room] = c.add(rooms[mine.room], mine.revealed)  # E10: back into the room
    return changed(state, rooms=tuple(rooms), pending=None)


@handles("MineCardsTaken")
def _mine_taken(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat = int(p["seat"])
    mine = state.pending
    assert isinstance(mine, MinePending)
    state = hand_in(state, seat, mine.revealed, c.size(mine.revealed))
    return changed(state, pending=None)


@handles("SphinxRevealed")
def _sphinx(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, room = int(p["seat"]), int(p["room"])
    revealed, taken = _cards(comp, p["revealed"]), _cards(comp, p["taken"])
    # The revealed cards are public now: those not taken go back face up to the folder.
    state = room_out(state, room, revealed)
    rooms = _set(state.rooms, room, c.add(state.rooms[room], c.sub(revealed, taken)))
    state = hand_in(changed(state, rooms=rooms), seat, taken, c.size(taken))
    return _forget_room(state, room)


@handles("SetSold")
def _sold(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, count, points = int(p["seat"]), int(p["count"]), int(p["points"])
    kind = comp.indices[str(p["kind"])]
    seats = list(state.seats)
    mine = seats[seat]
    hand, hidden = _split(mine.hand, state.hidden_hands[seat], c.one(len(comp.kinds), kind, count))
    sets = (*mine.sets, (kind, count))
    seats[seat] = changed(mine, hand=hand, sets=sets, points=mine.points + points)
    turn = _acted(state, sold=(*state.turn.sold, kind))
    ruin = comp.ruins[state.options.ruin]
    peek = ruin.special == PEEK_SPECIAL and any(state.room_size(r) for r in range(len(state.rooms)))
    changes: dict[str, Any] = {}
    if hidden != state.hidden_hands[seat]:  # as in hand_out
        changes["hidden_hands"] = _set(state.hidden_hands, seat, hidden)
    return changed(
        state, seats=tuple(seats), turn=turn, pending=PeekPending() if peek else None, **changes
    )


@handles("TurnEnded")
def _turn_ended(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    p = event.payload
    seat, passed = int(p["seat"]), bool(p["passed"])
    following = (seat + 1) % state.seat_count
    return changed(
        state,
        passes=state.passes + 1 if passed else 0,
        turn=Turn(following, must_dig=state.dig_site_size > 0),
    )


@handles("CompulsorySellingBegan")
def _compulsory(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    return changed(state, compulsory=True)


@handles("ExpeditionEnded")
def _ended(comp: Components, state: GameState, event: DomainEvent) -> GameState:
    return changed(state, ended=True, pending=None)
