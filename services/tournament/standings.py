"""Tournament standings: points by finishing place, byes, tie-break columns, ranks.

Definitions (issue 15; worked examples in tests/unit/tournament/test_standings.py):

* **Table points.** A table of ``n`` seats scores ``ScoringRules.points_by_place[n]``. Players
  who tie share the *average* of the points of the places they occupy (two players tied for
  2nd at a 4-seat table scoring (3, 2, 1, 0) get (2 + 1) / 2 = 1.5 each, and the next player is
  4th). Forfeiting players are ranked last at their table whatever ``places`` says; several
  forfeiters tie for the last places among themselves.
* **Byes** score ``ScoringRules.bye_points`` and count in ``StandingRow.byes``, not in
  ``rounds_played``; a bye has no tablemates, so it adds nothing to Buchholz or
  Sonneborn-Berger.
* **buchholz**: the sum, over every finished table a player sat at, of the final points of each
  of their tablemates (at a 2-seat table this is the classical sum of opponents' scores).
* **sonneborn_berger**: the sum, over every tablemate at every finished table, of the
  tablemate's final points times the player's share against that tablemate: 1 if the player
  finished ahead of them, 1/2 if tied, 0 if behind. At 2-seat tables this is the classical
  Sonneborn-Berger score (full score of beaten opponents plus half of drawn ones).
* **wins**: the number of tables the player finished first at alone (a shared first, e.g. a
  2-seat draw, is not a win; a forfeiter never wins).
* **table_points**: points earned at tables, byes excluded.
* **Final tie-break**: rows equal in points and every configured column share a rank; within
  a shared rank rows are listed in registration order (``entrants`` order), so the output is
  deterministic.

Results of tables that have not finished (absent from ``RoundRecord.results``) count for
nothing. Players who withdrew keep their past results: pass them after the active entrants or
let them be found in the history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from services.tournament.model import RoundRecord, ScoringRules, StandingRow, TableResult

__all__ = [
    "TIEBREAKS",
    "SeatOutcome",
    "compute_standings",
    "player_points",
    "seat_outcomes",
    "table_outcome",
]

TIEBREAKS = ("buchholz", "sonneborn_berger", "wins", "table_points")
"""Tie-break column names ``compute_standings`` knows, in no particular order."""

_DIGITS = 9  # comparisons round away float noise (e.g. thirds from three-way ties)


@dataclass(frozen=True)
class SeatOutcome:
    """One player's result at one finished table.

    ``place`` is the effective place (forfeits moved last, ties share the best tied place),
    ``points`` the table points it scored, ``mates`` each tablemate with the player's share
    against them (1 ahead, 0.5 tied, 0 behind).
    """

    player: str
    round: int
    table: int
    place: int
    points: float
    forfeited: bool
    mates: tuple[tuple[str, float], ...]


def table_outcome(
    players: Sequence[str], result: TableResult, scoring: ScoringRules
) -> list[tuple[int, float]]:
    """Effective place and table points per seat of one finished table.

    Returns ``[(place, points), ...]`` in seat order. Ties share the average of the points
    of the places they cover; forfeiters are ranked after every other player.

    Raises:
        ValueError: if ``places`` does not match the seats, a place is < 1, a forfeiter is
            not at the table, or ``points_by_place`` has no entry for this table size.
    """
    n = len(players)
    if len(result.places) != n:
        raise ValueError(f"table {result.table}: {len(result.places)} places for {n} seats")
    if any(p < 1 for p in result.places):
        raise ValueError(f"table {result.table}: places start at 1, got {result.places}")
    strange = set(result.forfeited) - set(players)
    if strange:
        raise ValueError(f"table {result.table}: forfeiters {sorted(strange)} are not seated")
    table = scoring.points_by_place.get(n)
    if table is None or len(table) != n:
        raise ValueError(f"no points_by_place entry of {n} values for a {n}-seat table")
    forfeited = set(result.forfeited)
    # Order key: forfeiters after everyone and tied among themselves, others by place.
    keys = [(1, 0) if players[i] in forfeited else (0, result.places[i]) for i in range(n)]
    out: list[tuple[int, float]] = []
    for key in keys:
        ahead = sum(1 for other in keys if other < key)
        tied = sum(1 for other in keys if other == key)
        place = ahead + 1
        points = sum(table[place - 1 : place - 1 + tied]) / tied
        out.append((place, points))
    return out


def seat_outcomes(history: Sequence[RoundRecord], scoring: ScoringRules) -> Iterator[SeatOutcome]:
    """Every player's outcome at every finished table of ``history``, round by round.

    Raises:
        ValueError: as ``table_outcome``, or for a result naming a table the round lacks.
    """
    for record in history:
        tables = {t.number: t for t in record.pairing.tables}
        for result in record.results:
            table = tables.get(result.table)
            if table is None:
                raise ValueError(
                    f"round {record.pairing.round}: result for unknown table {result.table}"
                )
            scored = table_outcome(table.players, result, scoring)
            for i, player in enumerate(table.players):
                place, points = scored[i]
                mates = tuple(
                    (other, _share(place, scored[j][0]))
                    for j, other in enumerate(table.players)
                    if j != i
                )
                yield SeatOutcome(
                    player=player,
                    round=record.pairing.round,
                    table=table.number,
                    place=place,
                    points=points,
                    forfeited=player in result.forfeited,
                    mates=mates,
                )


def _share(mine: int, theirs: int) -> float:
    """1 if place ``mine`` beats ``theirs``, 0.5 on a tie, 0 if behind."""
    if mine < theirs:
        return 1.0
    return 0.5 if mine == theirs else 0.0


@dataclass
class _Tally:
    """Everything the standings sum up, from one pass over the history."""

    order: dict[str, int]
    totals: dict[str, float]
    byes: dict[str, int]
    played: dict[str, int]
    columns: dict[str, dict[str, float]]

    @classmethod
    def build(
        cls, entrants: Sequence[str], history: Sequence[RoundRecord], scoring: ScoringRules
    ) -> _Tally:
        order: dict[str, int] = {}
        for player in entrants:
            order.setdefault(player, len(order))
        totals: dict[str, float] = defaultdict(float)
        byes: dict[str, int] = defaultdict(int)
        for record in history:
            for table in record.pairing.tables:
                for player in table.players:
                    order.setdefault(player, len(order))
            for player in record.pairing.byes:
                order.setdefault(player, len(order))
                byes[player] += 1
                totals[player] += scoring.bye_points
        seats = list(seat_outcomes(history, scoring))
        for seat in seats:
            totals[seat.player] += seat.points
        columns: dict[str, dict[str, float]] = {name: defaultdict(float) for name in TIEBREAKS}
        played: dict[str, int] = defaultdict(int)
        for seat in seats:
            played[seat.player] += 1
            columns["table_points"][seat.player] += seat.points
            if seat.place == 1 and not seat.forfeited and all(s == 1.0 for _, s in seat.mates):
                columns["wins"][seat.player] += 1
            buchholz = sonneborn_berger = 0.0
            for mate, share in seat.mates:
                mate_points = totals.get(mate, 0.0)
                buchholz += mate_points
                sonneborn_berger += mate_points * share
            columns["buchholz"][seat.player] += buchholz
            columns["sonneborn_berger"][seat.player] += sonneborn_berger
        return cls(order, dict(totals), byes, played, columns)


def player_points(history: Sequence[RoundRecord], scoring: ScoringRules) -> dict[str, float]:
    """Total tournament points (tables + byes) per player who scored in ``history``."""
    return _Tally.build((), history, scoring).totals


def compute_standings(
    entrants: Sequence[str], history: Sequence[RoundRecord], scoring: ScoringRules
) -> list[StandingRow]:
    """Standings of ``entrants`` (plus anyone else found in ``history``) after ``history``.

    Rows are sorted by points, then each column of ``scoring.tiebreaks`` in order (higher
    is better for all of them), then registration order (``entrants`` first, then players
    found only in the history by first appearance). Rows equal in points and every column
    share a rank (1, 2, 2, 4 ...). ``StandingRow.tiebreaks`` holds the configured columns.

    Raises:
        ValueError: for an unknown tie-break name or a malformed result (see
            ``table_outcome``).
    """
    unknown = [name for name in scoring.tiebreaks if name not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tie-breaks {unknown}; known: {list(TIEBREAKS)}")
    tally = _Tally.build(entrants, history, scoring)
    order, totals, byes, played, columns = (
        tally.order,
        tally.totals,
        tally.byes,
        tally.played,
        tally.columns,
    )

    def key(player: str) -> tuple[float, ...]:
        values = [totals.get(player, 0.0)]
        values += [columns[name][player] for name in scoring.tiebreaks]
        return tuple(-round(v, _DIGITS) for v in values)

    ranked = sorted(order, key=lambda p: (key(p), order[p]))
    rows: list[StandingRow] = []
    for index, player in enumerate(ranked):
        tied = index > 0 and key(ranked[index - 1]) == key(player)
        rank = rows[-1].rank if tied else index + 1
        rows.append(
            StandingRow(
                player=player,
                rank=rank,
                points=totals.get(player, 0.0),
                tiebreaks={name: columns[name][player] for name in scoring.tiebreaks},
                rounds_played=played[player],
                byes=byes[player],
            )
        )
    return rows
