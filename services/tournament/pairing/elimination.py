"""Multiplayer elimination: tables of N, the top ``advance`` of each table go on.

* Round 1 seats every entrant; later rounds seat the previous round's survivors: the top
  ``advance`` finishers of each table (by effective place, forfeiters last; a tie at the
  cut-off is broken by the standings) plus the players who had a bye. Withdrawn players are
  dropped.
* Seeding is by the standings (points, tie-breaks, registration order). When the field fits
  one table (at most ``max_seats``) it is the final table. Otherwise the tables come from
  ``TableSize``; any byes go to the top seeds (they go on without playing), and the others
  are dealt to the tables in snake order (1, 2, ..., k, k, ..., 2, 1, ...) so every table gets
  a fair share of strong seeds.
* ``advance`` defaults to half the largest table (at least 1).
"""

from __future__ import annotations

from collections.abc import Sequence

from services.tournament.model import (
    Pairing,
    PairingError,
    RoundRecord,
    ScoringRules,
    TableSize,
)
from services.tournament.pairing.context import PairingContext, seeded_rng
from services.tournament.pairing.seats import seat_tables
from services.tournament.pairing.tables import split_field
from services.tournament.standings import table_outcome

__all__ = ["pair_elimination", "survivors"]


def survivors(
    record: RoundRecord, advance: int, ranking: Sequence[str], scoring: ScoringRules
) -> set[str]:
    """Who goes on from a finished round: each table's top ``advance`` and the byes.

    Raises:
        PairingError: ``"round_unfinished"`` if a table of the round has no result.
    """
    position = {player: i for i, player in enumerate(ranking)}
    results = {result.table: result for result in record.results}
    out = set(record.pairing.byes)
    for table in record.pairing.tables:
        result = results.get(table.number)
        if result is None:
            raise PairingError(
                "round_unfinished",
                f"round {record.pairing.round} table {table.number} has no result yet",
            )
        places = table_outcome(table.players, result, scoring)
        order = sorted(
            range(len(table.players)),
            key=lambda i: (places[i][0], position.get(table.players[i], len(position)), i),
        )
        out.update(table.players[i] for i in order[:advance])
    return out


def pair_elimination(
    entrants: Sequence[str],
    history: Sequence[RoundRecord],
    size: TableSize,
    scoring: ScoringRules,
    seed: str,
    advance: int | None = None,
) -> Pairing:
    """Pair the next elimination round (see module docstring).

    Raises:
        PairingError: ``"bad_advance"`` (advance < 1), ``"round_unfinished"``,
            ``"elimination_complete"`` (the final table was played, or too few players are
            left for one: the standings are final), ``"elimination_stalled"`` (nobody would be
            eliminated: ``advance`` is not below the table sizes), ``"too_few_players"``.
    """
    go_on = max(1, size.max_seats // 2) if advance is None else advance
    if go_on < 1:
        raise PairingError("bad_advance", f"advance must be at least 1, got {go_on}")
    context = PairingContext.build(entrants, history, scoring)
    field = list(context.ranking)
    if history and len(history[-1].pairing.tables) == 1 and not history[-1].pairing.byes:
        raise PairingError("elimination_complete", "the final table has been played")
    if history:
        alive = survivors(history[-1], go_on, context.ranking, scoring)
        field = [p for p in field if p in alive]
    if len(field) < size.min_seats:
        if history:
            raise PairingError(
                "elimination_complete",
                f"{len(field)} player(s) left, fewer than a table of {size.min_seats}",
            )
        split_field(len(field), size)  # raises too_few_players
    rng = seeded_rng(seed, context.round, "seats")
    if len(field) <= size.max_seats:
        return Pairing(round=context.round, tables=seat_tables([field], context, rng), byes=())
    sizes, bye_count = split_field(len(field), size)
    byes, seeded = field[:bye_count], field[bye_count:]
    going_on = bye_count + sum(min(go_on, s) for s in sizes)
    if going_on >= len(field):
        raise PairingError(
            "elimination_stalled",
            f"advance {go_on} eliminates nobody at tables of {sorted(set(sizes))} seats",
        )
    groups: list[list[str]] = [[] for _ in sizes]
    order = _snake(len(sizes))
    at = 0
    for player in seeded:
        while len(groups[order[at % len(order)]]) >= sizes[order[at % len(order)]]:
            at += 1
        groups[order[at % len(order)]].append(player)
        at += 1
    return Pairing(round=context.round, tables=seat_tables(groups, context, rng), byes=tuple(byes))


def _snake(tables: int) -> list[int]:
    """Table indices in snake order: 0..k-1 then k-1..0."""
    forward = list(range(tables))
    return forward + forward[::-1]
