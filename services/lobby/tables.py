"""A lobby table: seats waiting for players before a game starts (Board Game Arena's
"tables waiting for players", boardgame.io's lobby match).

A host opens a table for one ruleset with its options, a seat count, a time control and
rated or not; players join its free seats and may leave before it starts. A table starts
when its last seat is taken, or earlier when its host starts it with bots in the empty
seats (never a rated table: a rating compares players, and a bot is none). Leaving is
free before the start; the host leaving closes the table (its guests are released, as
on Board Game Arena when a table's creator leaves).

This module is pure: :func:`join`, :func:`leave` and :func:`start` decide on a
:class:`LobbyTable` and return the next one, or raise :class:`LobbyRefused` naming the
rule. The Redis store (services.lobby.redis_tables) applies a decision atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

MAX_SEATS = 5
"""The widest table (the rulesets host 1 to 5 seats)."""
EMPTY = ""
"""A free seat's occupant."""


class TableStatus(StrEnum):
    """Where a table stands."""

    OPEN = "open"
    """Waiting for players."""
    STARTED = "started"
    """Its seats are final; ``game_id`` names its game once it is opened."""
    CLOSED = "closed"
    """Its host left before the start: no game."""
    FAILED = "failed"
    """It started but its game could not be created (``failure`` names the rule)."""


class LobbyRefused(ValueError):
    """A lobby request the rules refuse; ``rule`` is the reason a client sees."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


@dataclass(frozen=True, slots=True)
class LobbyTable:
    """One table.

    Attributes:
        table_id: the table's id (public).
        host: the player who opened it (a player id).
        ruleset: the game's ruleset name.
        options: the game's options as canonical JSON text ("{}" for none).
        seats: who sits in each seat (player ids; :data:`EMPTY` for a free seat).
        rated: whether the game counts for ratings.
        time_control: the time control's canonical JSON ("" for none).
        created_ms: when it was opened (ms since the epoch).
        status: :class:`TableStatus`.
        bots: seats a bot took at the start (indexes).
        game_id: the game it started ("" before).
        failure: why its game could not be created (the refusal's rule; "" unless
            ``status`` is FAILED).
    """

    table_id: str
    host: str
    ruleset: str
    options: str
    seats: tuple[str, ...]
    rated: bool
    time_control: str
    created_ms: int
    status: TableStatus = TableStatus.OPEN
    bots: tuple[int, ...] = ()
    game_id: str = ""
    failure: str = ""

    @property
    def free_seats(self) -> int:
        """Seats nobody has taken."""
        return sum(1 for occupant in self.seats if occupant == EMPTY)

    @property
    def players(self) -> tuple[str, ...]:
        """The players seated, in seat order."""
        return tuple(p for p in self.seats if p != EMPTY)

    def to_json(self) -> str:
        """Canonical JSON text of the table (what the store keeps and lists)."""
        return json.dumps(
            {
                "table_id": self.table_id,
                "host": self.host,
                "ruleset": self.ruleset,
                "options": self.options,
                "seats": list(self.seats),
                "rated": self.rated,
                "time_control": self.time_control,
                "created_ms": self.created_ms,
                "status": self.status.value,
                "bots": list(self.bots),
                "game_id": self.game_id,
                **({"failure": self.failure} if self.failure else {}),
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> LobbyTable:
        """Inverse of :meth:`to_json`."""
        data: dict[str, Any] = json.loads(text)
        return cls(
            table_id=str(data["table_id"]),
            host=str(data["host"]),
            ruleset=str(data["ruleset"]),
            options=str(data["options"]),
            seats=tuple(str(p) for p in data["seats"]),
            rated=bool(data["rated"]),
            time_control=str(data["time_control"]),
            created_ms=int(data["created_ms"]),
            status=TableStatus(data["status"]),
            bots=tuple(int(i) for i in data["bots"]),
            game_id=str(data["game_id"]),
            failure=str(data.get("failure", "")),
        )


def open_table(
    table_id: str,
    host: str,
    ruleset: str,
    seats: int,
    *,
    options: str = "{}",
    rated: bool = False,
    time_control: str = "",
    created_ms: int = 0,
    host_sits: bool = True,
) -> LobbyTable:
    """A new open table of ``seats`` seats (the host in seat 0 if ``host_sits``).
    The caller has checked the ruleset accepts ``seats`` and ``options``.
    Raises LobbyRefused ``table_seats`` (outside 1..MAX_SEATS) or ``rated_table_seats``
    (a rated table of one seat)."""
    if not 1 <= seats <= MAX_SEATS:
        raise LobbyRefused("table_seats", f"a table has 1 to {MAX_SEATS} seats, not {seats}")
    if rated and seats < 2:
        raise LobbyRefused("rated_table_seats", "a rated table needs at least 2 seats")
    occupants = [EMPTY] * seats
    if host_sits:
        occupants[0] = host
    return LobbyTable(
        table_id=table_id,
        host=host,
        ruleset=ruleset,
        options=options,
        seats=tuple(occupants),
        rated=rated,
        time_control=time_control,
        created_ms=created_ms,
    )


def _must_be_open(table: LobbyTable) -> None:
    if table.status is not TableStatus.OPEN:
        raise LobbyRefused("table_not_open", f"table {table.table_id} is {table.status.value}")


def join(table: LobbyTable, player: str, seat: int | None = None) -> LobbyTable:
    """``player`` takes ``seat`` (None: the first free one). Raises LobbyRefused
    ``table_not_open``, ``already_seated``, ``table_full``, ``seat_taken`` or
    ``no_such_seat``. The caller starts the table when this fills it (:func:`is_full`)."""
    _must_be_open(table)
    if player in table.seats:
        raise LobbyRefused("already_seated", f"you already sit at table {table.table_id}")
    if seat is None:
        if table.free_seats == 0:
            raise LobbyRefused("table_full", f"table {table.table_id} has no free seat")
        seat = table.seats.index(EMPTY)
    if not 0 <= seat < len(table.seats):
        raise LobbyRefused("no_such_seat", f"table {table.table_id} has no seat {seat}")
    if table.seats[seat] != EMPTY:
        raise LobbyRefused("seat_taken", f"seat {seat} of table {table.table_id} is taken")
    seats = list(table.seats)
    seats[seat] = player
    return replace(table, seats=tuple(seats))


def leave(table: LobbyTable, player: str) -> LobbyTable:
    """``player`` stands up before the start; the host leaving closes the table.
    Raises LobbyRefused ``table_not_open`` or ``not_seated``."""
    _must_be_open(table)
    if player == table.host:
        return replace(table, status=TableStatus.CLOSED)
    if player not in table.seats:
        raise LobbyRefused("not_seated", f"you do not sit at table {table.table_id}")
    seats = tuple(EMPTY if p == player else p for p in table.seats)
    return replace(table, seats=seats)


def is_full(table: LobbyTable) -> bool:
    """True if every seat is taken (an open full table starts)."""
    return table.free_seats == 0


def start(table: LobbyTable, by: str, fill_with_bots: bool = False) -> LobbyTable:
    """Start ``table``: its seats are final and its game is to be opened (by the table
    opener, which records the game with :func:`opened`). By anyone when it is full (the
    join that filled it), else only by its host and with ``fill_with_bots`` (bots take
    the empty seats). Raises LobbyRefused ``table_not_open``, ``not_the_host``,
    ``table_not_full``, ``rated_table_bots`` (a rated table starts with players only) or
    ``no_players`` (nobody sits: a table is for players)."""
    _must_be_open(table)
    bots: tuple[int, ...] = ()
    if not is_full(table):
        if by != table.host:
            raise LobbyRefused("not_the_host", "only the table's host may start it early")
        if not fill_with_bots:
            raise LobbyRefused(
                "table_not_full", f"table {table.table_id} has {table.free_seats} free seat(s)"
            )
        if table.rated:
            raise LobbyRefused("rated_table_bots", "a rated table starts with players only")
        if not table.players:
            raise LobbyRefused("no_players", "nobody sits at this table")
        bots = tuple(i for i, p in enumerate(table.seats) if p == EMPTY)
    return replace(table, status=TableStatus.STARTED, bots=bots)


def opened(table: LobbyTable, game_id: str) -> LobbyTable:
    """A started table whose game is ``game_id`` (the opener's record; idempotent for
    the same game). Raises LobbyRefused ``table_not_started`` or ``table_has_a_game``
    (another game was recorded)."""
    if table.status is not TableStatus.STARTED:
        raise LobbyRefused("table_not_started", f"table {table.table_id} has not started")
    if table.game_id and table.game_id != game_id:
        raise LobbyRefused("table_has_a_game", f"table {table.table_id} is game {table.game_id}")
    return replace(table, game_id=game_id)


def failed(table: LobbyTable, rule: str) -> LobbyTable:
    """A started table whose game could not be created: the engine refused it with
    ``rule`` (the opener's record; idempotent). Raises LobbyRefused ``table_not_started``
    (not started, or its game was already opened)."""
    if table.status is TableStatus.FAILED:
        return table
    if table.status is not TableStatus.STARTED or table.game_id:
        raise LobbyRefused("table_not_started", f"table {table.table_id} is not waiting for a game")
    return replace(table, status=TableStatus.FAILED, failure=rule)
