"""Swiss pairing for tables of 2 to 5 seats.

1. Rank the active players by the standings (points, tie-breaks, registration order; late
   joiners start at 0 points, withdrawn players are simply absent from ``entrants``).
2. Byes, only if the field cannot be split into tables within ``TableSize``: to the players
   with the fewest byes so far, lowest-ranked first (nobody gets a second bye while an active
   player has none).
3. Fill the tables (``max_seats`` ones first, then the smaller ones) with consecutive players
   of the ranking, so a table holds one score group where possible.
4. Swap players between tables to minimise the number of pairs who met before, then the
   meetings beyond a pair's first, then the squared point differences at each table (see
   ``optimizer``).
5. Order each table's seats (``seats``).
"""

from __future__ import annotations

from collections.abc import Sequence

from services.tournament.model import Pairing, RoundRecord, ScoringRules, TableSize
from services.tournament.pairing.context import PairingContext, seeded_rng
from services.tournament.pairing.optimizer import improve, repeat_cost
from services.tournament.pairing.seats import seat_tables
from services.tournament.pairing.tables import split_field

__all__ = ["choose_byes", "pair_swiss"]


def choose_byes(ranking: Sequence[str], count: int, context: PairingContext) -> list[str]:
    """The ``count`` players who sit out: fewest byes so far, then lowest-ranked."""
    position = {player: i for i, player in enumerate(ranking)}
    order = sorted(ranking, key=lambda p: (context.byes.get(p, 0), -position[p]))
    return order[:count]


def pair_swiss(
    entrants: Sequence[str],
    history: Sequence[RoundRecord],
    size: TableSize,
    scoring: ScoringRules,
    seed: str,
) -> Pairing:
    """Pair the next Swiss round (see module docstring).

    Raises:
        PairingError: ``"too_few_players"`` if the field cannot fill one table.
    """
    context = PairingContext.build(entrants, history, scoring)
    sizes, bye_count = split_field(len(context.ranking), size)
    byes = choose_byes(context.ranking, bye_count, context)
    sitting_out = set(byes)
    ranked = [p for p in context.ranking if p not in sitting_out]
    groups: list[list[str]] = []
    at = 0
    for table_size in sizes:
        groups.append(ranked[at : at + table_size])
        at += table_size

    points = context.points

    def cost(a: str, b: str) -> float:
        diff = points.get(a, 0.0) - points.get(b, 0.0)
        return repeat_cost(context.met(a, b)) + diff * diff

    groups = improve(groups, cost, seeded_rng(seed, context.round, "swiss-restarts"))
    tables = seat_tables(groups, context, seeded_rng(seed, context.round, "seats"))
    bye_order = [p for p in context.ranking if p in sitting_out]
    return Pairing(round=context.round, tables=tables, byes=tuple(bye_order))
