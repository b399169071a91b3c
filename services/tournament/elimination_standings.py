"""Elimination standings: how far each player went, not Swiss tie-breaks.

In an elimination tournament (``services.tournament.pairing.elimination``) a player's
result is the round they reached and how they left it, the order every knockout event
reports (a Lichess knockout, BGA's elimination tournaments, a poker final table):

1. **Round reached.** A player who was seated (or had a bye) in a later round ranks
   above every player whose last round was earlier.
2. **Still in before out.** Among players who reached the same round, those still in
   (a table still playing, a bye, or among the top ``advance`` of a finished table of
   the last round) rank above those who went out in it. The final table (a round of
   one table and no byes, ``pair_elimination``'s last) puts nobody out: its players
   are ranked by their place at it.
3. **Place at the table.** Players who went out in the same round rank by their place
   at their table in it (effective place: forfeits last, ties share the best place,
   as ``standings.table_outcome``): 2nd at any table of round 1 beats 3rd at any table
   of round 1. Players still in are not told apart by place while the tournament runs;
   survivors of the last round of a tournament that ran out of rounds share the top.
4. Rows equal on all of these share a rank. Within a shared rank rows follow the
   seeding order (points, tie-breaks, registration: ``compute_standings``), which is
   also who goes on when a tie straddles the cut (as ``pairing.elimination.survivors``).

A player who withdrew is out in the last round they were in (their results stay).
Points, tie-break columns, rounds played and byes are those of ``compute_standings``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from services.tournament.model import RoundRecord, ScoringRules, StandingRow, TableSize
from services.tournament.standings import compute_standings, table_outcome

__all__ = [
    "EliminationOutcome",
    "default_advance",
    "elimination_outcomes",
    "elimination_standings",
]

_NO_PLACE = 1_000_000  # an out player without a place (withdrew after a bye) sorts last


@dataclass(frozen=True)
class EliminationOutcome:
    """How far one player went: the last round they were in, the round they went out in
    (0: still in, or at the final table) and their place at their table of that round
    (0: a bye or a table still playing)."""

    round_reached: int
    eliminated_in_round: int
    place_in_round: int


def default_advance(size: TableSize, advance: int | None) -> int:
    """Players per table who go on: ``advance``, else half the largest table (at least
    1), as ``pair_elimination``."""
    return advance if advance else max(1, size.max_seats // 2)


def elimination_outcomes(
    active: Sequence[str],
    withdrawn: Sequence[str],
    history: Sequence[RoundRecord],
    size: TableSize,
    scoring: ScoringRules,
    advance: int | None = None,
) -> dict[str, EliminationOutcome]:
    """The :class:`EliminationOutcome` of every player seated or given a bye in
    ``history`` (``active``: players still registered, in registration order;
    ``withdrawn``: those who withdrew). Players in neither the history nor the result
    reached no round. Raises ValueError for a malformed result (``table_outcome``)."""
    go_on = default_advance(size, advance)
    gone = set(withdrawn)
    seeding = [r.player for r in compute_standings(active, history, scoring) if r.player in active]
    position = {player: i for i, player in enumerate(seeding)}
    last = len(history)
    outcomes: dict[str, EliminationOutcome] = {}
    for record in history:
        number = record.pairing.round
        results = {result.table: result for result in record.results}
        final = _is_final(record)
        for player in record.pairing.byes:
            outcomes[player] = EliminationOutcome(number, 0, 0)
        for table in record.pairing.tables:
            result = results.get(table.number)
            if result is None:
                for player in table.players:
                    outcomes[player] = EliminationOutcome(number, 0, 0)
                continue
            places = table_outcome(table.players, result, scoring)
            order = sorted(
                range(len(table.players)),
                key=lambda i: (places[i][0], position.get(table.players[i], len(position)), i),
            )
            through = {table.players[i] for i in order[:go_on]}
            for i, player in enumerate(table.players):
                place = places[i][0]
                stays = final or (player in through and player not in gone)
                outcomes[player] = EliminationOutcome(number, 0 if stays else number, place)
    final_round = last if history and _is_final(history[-1]) else 0
    for player, outcome in outcomes.items():
        if outcome.eliminated_in_round or outcome.round_reached == final_round:
            continue
        # Not in the last round: did not go on from their own last round. Withdrawn:
        # will not go on from it.
        if outcome.round_reached < last or player in gone:
            outcomes[player] = replace(outcome, eliminated_in_round=outcome.round_reached)
    return outcomes


def _is_final(record: RoundRecord) -> bool:
    """A round of one table and no byes: ``pair_elimination``'s final table."""
    return len(record.pairing.tables) == 1 and not record.pairing.byes


def elimination_standings(
    entrants: Sequence[str],
    active: Sequence[str],
    history: Sequence[RoundRecord],
    size: TableSize,
    scoring: ScoringRules,
    advance: int | None = None,
) -> list[StandingRow]:
    """The standings of an elimination tournament in elimination's order (module
    docstring). ``entrants``: every registered player in registration order; ``active``:
    those who have not withdrawn; ``advance``: players per table who go on (None or 0:
    the format's default). Rows carry ``round_reached``, ``eliminated_in_round`` and
    ``place_in_round``.

    Raises:
        ValueError: as ``compute_standings``.
    """
    seeded = compute_standings(entrants, history, scoring)
    still = set(active)
    withdrawn = [p for p in entrants if p not in still]
    outcomes = elimination_outcomes(active, withdrawn, history, size, scoring, advance)
    final = bool(history) and _is_final(history[-1])

    def key(player: str) -> tuple[int, int, int]:
        outcome = outcomes.get(player, EliminationOutcome(0, 0, 0))
        out = outcome.eliminated_in_round > 0
        if out:
            place = outcome.place_in_round or _NO_PLACE
        elif final:
            place = outcome.place_in_round  # 0 for all while the final table plays
        else:
            place = 0  # survivors of a round are not told apart by place
        return (-outcome.round_reached, int(out), place)

    order = {row.player: i for i, row in enumerate(seeded)}
    ranked = sorted(seeded, key=lambda row: (key(row.player), order[row.player]))
    rows: list[StandingRow] = []
    for index, row in enumerate(ranked):
        tied = index > 0 and key(ranked[index - 1].player) == key(row.player)
        outcome = outcomes.get(row.player, EliminationOutcome(0, 0, 0))
        rows.append(
            replace(
                row,
                rank=rows[-1].rank if tied else index + 1,
                round_reached=outcome.round_reached,
                eliminated_in_round=outcome.eliminated_in_round,
                place_in_round=outcome.place_in_round,
            )
        )
    return rows
