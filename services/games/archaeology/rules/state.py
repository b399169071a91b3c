"""Archaeology's game state: frozen dataclasses folded from events (RULES.md A2-A5).

Every card multiset is a :data:`~.cards.Cards` tuple of counts per treasure kind. Special
cards (thieves, sandstorms) are counted separately; tents lie in front of the seats.
The state holds hidden information (hands, the dig site, face-down rooms): the per-seat
view (:mod:`.view`) decides what each reader may see.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .cards import Cards


@dataclass(frozen=True)
class Options:
    """Game options (RULES.md A2.4, A7).

    Attributes:
        ruin: the ruin tile in play (drawn at random at setup when not given).
        long_expedition / sand_hell / lucky_beginner: the variants of A7.
    """

    ruin: str
    long_expedition: bool = False
    sand_hell: bool = False
    lucky_beginner: bool = False


@dataclass(frozen=True)
class SeatState:
    """One seat.

    Attributes:
        hand: its secret hand.
        tent_uses: tent uses left (0: no usable tent; the tent has left the game).
        sets: sets sold to the museum, in order: ``(kind, count)`` (public, E13).
        points: museum points of the sold sets (counted at the end, A4).
    """

    hand: Cards
    tent_uses: int
    sets: tuple[tuple[int, int], ...] = ()
    points: int = 0

    @property
    def cards_sold(self) -> int:
        """Cards sold to the museum (the tie-break, A4)."""
        return sum(count for _, count in self.sets)


@dataclass(frozen=True)
class Turn:
    """Bookkeeping of the seat whose turn it is (RULES.md A3).

    Attributes:
        seat: whose turn.
        must_dig: the compulsory dig (or a dig again after a sandstorm) is still owed.
        acted: the seat dug or completed an action this turn (else ending it is a pass, A4).
        explored: an exploration was attempted this turn (one per turn, A3.2).
        sold: treasure kinds sold this turn (one set per kind per turn, E9).
    """

    seat: int
    must_dig: bool
    acted: bool = False
    explored: bool = False
    sold: tuple[int, ...] = ()


@dataclass(frozen=True)
class ThiefPending:
    """A thief was dug: the drawer names its victim (A3.1, E2)."""

    drawer: int


@dataclass(frozen=True)
class SandstormPending:
    """A sandstorm being resolved (A3.1, E3, E11).

    Attributes:
        drawer: who dug it.
        losses: cards each seat is to lose (floor of half its hand when it was drawn).
        order: seats that would lose at least one card, from the drawer's left round to it.
        to_declare: seats of ``order`` with a usable tent that have not declared yet.
        sheltered: seats that used their tent.
        lost: cards each seat has put into the market so far.
    """

    drawer: int
    losses: tuple[int, ...]
    order: tuple[int, ...]
    to_declare: tuple[int, ...]
    sheltered: tuple[int, ...] = ()
    lost: tuple[int, ...] = ()

    def next_loser(self) -> int | None:
        """The seat that must choose a card to lose next, once every tent is declared."""
        if self.to_declare:
            return None
        for seat in self.order:
            if seat not in self.sheltered and self.lost[seat] < self.losses[seat]:
                return seat
        return None


@dataclass(frozen=True)
class TradePending:
    """A market trade being put together (A3.2, E8): cards offered and chosen so far."""

    give: Cards
    take: Cards


@dataclass(frozen=True)
class MinePending:
    """A mine exploration: the cards revealed so far lie face up (A6.4)."""

    room: int
    revealed: Cards


@dataclass(frozen=True)
class TombPending:
    """A tomb exploration: the seat looked into ``room`` and chooses what to take (A6.3)."""

    room: int


@dataclass(frozen=True)
class PeekPending:
    """The temple's peek offered right after a museum sale (A6.2)."""


Pending = ThiefPending | SandstormPending | TradePending | MinePending | TombPending | PeekPending


@dataclass(frozen=True)
class GameState:
    """The whole game.

    Attributes:
        options: the game options.
        seats: one :class:`SeatState` per seat.
        dig_site / dig_thieves / dig_sandstorms: the face-down dig site (order is drawn
            when a card is dug).
        market: the face-up market.
        rooms: each room's cards (face down except at the buried ruins).
        reserve: the buried ruins' face-down reserve pile (E6).
        discard / discard_thieves / discard_sandstorms: the face-up discard pile (spent
            maps, thieves, sandstorms; E4).
        removed: treasure cards out of the game (A2.1).
        first_seat: the seat that started (A2.6, A7).
        turn: the current turn's bookkeeping.
        pending: a decision being resolved, if any.
        passes: consecutive passes (A4).
        compulsory: compulsory selling has begun (A4, E14).
        ended: the game is over.
        known_rooms: per seat, what it saw in each room when it last looked (temple peek,
            tomb): private knowledge, shown only in that seat's view (A5).
        hidden_hands / hidden_rooms / hidden_reserve / hidden_dig: cards whose kind the
            folder does not know. Always 0 for the service, which folds with every sealed
            value; a reader folding the public log alone counts the sealed cards here,
            so every public size and view is the same as the service's.
        secrets: sealed values written so far (numbers each secret's id).
    """

    options: Options
    seats: tuple[SeatState, ...]
    dig_site: Cards
    dig_thieves: int
    dig_sandstorms: int
    market: Cards
    rooms: tuple[Cards, ...]
    reserve: Cards
    discard: Cards
    removed: Cards
    first_seat: int
    turn: Turn
    discard_thieves: int = 0
    discard_sandstorms: int = 0
    pending: Pending | None = None
    passes: int = 0
    compulsory: bool = False
    ended: bool = False
    known_rooms: tuple[tuple[tuple[int, Cards], ...], ...] = field(default=())
    hidden_hands: tuple[int, ...] = ()
    hidden_rooms: tuple[int, ...] = ()
    hidden_reserve: int = 0
    hidden_dig: int = 0
    secrets: int = 0

    @property
    def seat_count(self) -> int:
        """Number of seats."""
        return len(self.seats)

    @property
    def dig_site_size(self) -> int:
        """Cards left in the dig site (public, A5)."""
        return sum(self.dig_site) + self.hidden_dig + self.dig_thieves + self.dig_sandstorms

    def hand_size(self, seat: int) -> int:
        """Cards in ``seat``'s hand (public, A5)."""
        return sum(self.seats[seat].hand) + self.hidden_hands[seat]

    def room_size(self, room: int) -> int:
        """Cards in ``room`` (public, A5)."""
        return sum(self.rooms[room]) + self.hidden_rooms[room]

    @property
    def reserve_size(self) -> int:
        """Cards in the buried ruins' reserve (public, A5)."""
        return sum(self.reserve) + self.hidden_reserve


_PENDING_KINDS: dict[str, type[Any]] = {
    "thief": ThiefPending,
    "sandstorm": SandstormPending,
    "trade": TradePending,
    "mine": MinePending,
    "tomb": TombPending,
    "peek": PeekPending,
}
_PENDING_NAMES = {cls: name for name, cls in _PENDING_KINDS.items()}


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The whole state as JSON-safe data (snapshots; hidden parts included)."""
    data = asdict(state)
    pending = state.pending
    data["pending"] = (
        None if pending is None else {"kind": _PENDING_NAMES[type(pending)], **asdict(pending)}
    )
    return data


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def state_from_dict(data: dict[str, Any]) -> GameState:
    """Inverse of :func:`state_to_dict`. Raises KeyError / TypeError on malformed data."""
    pending_data = data.get("pending")
    pending: Pending | None = None
    if pending_data is not None:
        fields = {k: _tuples(v) for k, v in pending_data.items() if k != "kind"}
        pending = _PENDING_KINDS[pending_data["kind"]](**fields)
    seats = tuple(
        SeatState(
            hand=tuple(s["hand"]),
            tent_uses=s["tent_uses"],
            sets=tuple((int(k), int(n)) for k, n in s["sets"]),
            points=s["points"],
        )
        for s in data["seats"]
    )
    turn = data["turn"]
    return GameState(
        options=Options(**data["options"]),
        seats=seats,
        dig_site=tuple(data["dig_site"]),
        dig_thieves=data["dig_thieves"],
        dig_sandstorms=data["dig_sandstorms"],
        market=tuple(data["market"]),
        rooms=tuple(tuple(r) for r in data["rooms"]),
        reserve=tuple(data["reserve"]),
        discard=tuple(data["discard"]),
        removed=tuple(data["removed"]),
        first_seat=data["first_seat"],
        turn=Turn(
            seat=turn["seat"],
            must_dig=turn["must_dig"],
            acted=turn["acted"],
            explored=turn["explored"],
            sold=tuple(turn["sold"]),
        ),
        discard_thieves=data["discard_thieves"],
        discard_sandstorms=data["discard_sandstorms"],
        pending=pending,
        passes=data["passes"],
        compulsory=data["compulsory"],
        ended=data["ended"],
        known_rooms=_tuples(data["known_rooms"]),
        hidden_hands=tuple(data["hidden_hands"]),
        hidden_rooms=tuple(data["hidden_rooms"]),
        hidden_reserve=data["hidden_reserve"],
        hidden_dig=data["hidden_dig"],
        secrets=data["secrets"],
    )
