"""Tournament value types shared by pairing, standings, ratings and the tournament aggregate.

Pure data (frozen dataclasses, no I/O). Player ids are opaque strings; tables list them in
seat order. Rounds and table numbers are 1-based. See ``tournament-interface.md`` (issue 15).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "Format",
    "Pairing",
    "PairingError",
    "RoundRecord",
    "ScoringRules",
    "StandingRow",
    "Table",
    "TableResult",
    "TableSize",
    "default_points",
]


class Format(StrEnum):
    """How a tournament's rounds are paired."""

    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    ELIMINATION = "elimination"


class PairingError(ValueError):
    """A round cannot be paired as asked (e.g. too few players for the smallest table).

    Attributes:
        reason: short stable id for the ErrorInfo reason, e.g. ``"table_size_unsatisfiable"``.
        message: human explanation.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class TableSize:
    """Seats per table allowed by the tournament (and the ruleset's seat range).

    ``max_seats`` is the preferred size: pairing seats as many tables of ``max_seats`` as it
    can and spreads the remainder into smaller tables within ``[min_seats, max_seats]``.

    Raises:
        ValueError: if ``min_seats < 2`` or ``max_seats < min_seats``.
    """

    min_seats: int
    max_seats: int

    def __post_init__(self) -> None:
        if self.min_seats < 2 or self.max_seats < self.min_seats:
            raise ValueError(
                f"table size must satisfy 2 <= min <= max, got {self.min_seats}..{self.max_seats}"
            )


@dataclass(frozen=True)
class Table:
    """One table of a round: ``number`` is 1-based, ``players`` are in seat order (seat 0 first)."""

    number: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class Pairing:
    """A round's seating: its tables and the players sitting out (scored ``bye_points``)."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableResult:
    """How one table finished.

    ``places`` gives the finishing place per seat of table ``table`` (1 = first; equal
    numbers are a tie). ``forfeited`` players are ranked last at the table whatever their
    place says.
    """

    table: int
    places: tuple[int, ...]
    forfeited: tuple[str, ...] = ()


@dataclass(frozen=True)
class RoundRecord:
    """A paired round and the results of its finished tables (one per finished table)."""

    pairing: Pairing
    results: tuple[TableResult, ...] = ()


@dataclass(frozen=True)
class ScoringRules:
    """How finishing places become tournament points, and the tie-break order.

    ``points_by_place`` maps a table size to the points for places 1..size; ``bye_points``
    is what a bye scores; ``tiebreaks`` names the tie-break columns in order (see
    ``services.tournament.standings.TIEBREAKS``).
    """

    points_by_place: Mapping[int, tuple[float, ...]]
    bye_points: float = 0.0
    tiebreaks: tuple[str, ...] = ("buchholz", "sonneborn_berger", "wins")


@dataclass(frozen=True)
class StandingRow:
    """One player's line in the standings (``rank`` 1-based; fully equal rows share a rank).

    The last three are elimination's own columns (0 in other formats; see
    ``services.tournament.elimination_standings``): the last round the player was in
    (seated or a bye), the round they went out in (0: still in, or at the final table),
    and their place at their table of that round (0: a bye or a table still playing).
    """

    player: str
    rank: int
    points: float
    tiebreaks: Mapping[str, float] = field(default_factory=dict)
    rounds_played: int = 0
    byes: int = 0
    round_reached: int = 0
    eliminated_in_round: int = 0
    place_in_round: int = 0


def default_points(size: TableSize) -> dict[int, tuple[float, ...]]:
    """Points per place for every table size in ``size``, linear from first to last.

    A ``max_seats`` table scores ``max_seats - place`` (2 seats: (1, 0); 4 seats:
    (3, 2, 1, 0)); a smaller table spreads the same range evenly, first ``max_seats - 1``
    down to last 0, so a win is worth the same at every table of a mixed round (3..4
    seats: 3 seats score (3, 1.5, 0)).
    """
    top = float(size.max_seats - 1)
    return {
        n: tuple(top * (n - place) / (n - 1) for place in range(1, n + 1))
        for n in range(size.min_seats, size.max_seats + 1)
    }
