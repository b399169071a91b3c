"""Round robin for small fields.

* **2 seats**: the circle method. The roster (every player of the history plus the entrants)
  is put in a seed-fixed order (by ``sha256(seed:player)``, so adding a player only inserts
  it); one player stays put and the others rotate one place per round, so in ``n - 1``
  rounds (``n`` rounded up to even) everyone meets everyone once; later rounds repeat the
  cycle. A player paired with the odd-field filler or with a withdrawn player has a bye.
  The schedule is computed from the roster each round: a late joiner changes it.
* **3-5 seats**: no exact schedule exists for most field sizes, so each round seats the field
  (tables from ``TableSize``, byes to the fewest-byes players) to minimise the sum over
  tablemates of the square of their past meetings: pairs who met least are seated
  together, which spreads meetings evenly. Search from a seeded shuffle.

Seat order is balanced by ``seats.seat_tables`` in both cases.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from services.tournament.model import Pairing, RoundRecord, ScoringRules, TableSize
from services.tournament.pairing.context import PairingContext, seeded_rng
from services.tournament.pairing.optimizer import REPEAT_WEIGHT, improve
from services.tournament.pairing.seats import seat_tables
from services.tournament.pairing.swiss import choose_byes
from services.tournament.pairing.tables import split_field

__all__ = ["circle_round", "pair_round_robin"]


def circle_round(roster: Sequence[str | None], index: int) -> list[tuple[str | None, str | None]]:
    """Round ``index`` (0-based, taken modulo the cycle) of the circle method over ``roster``.

    ``roster`` must have an even length (pad with None). Returns ``len(roster) // 2`` pairs.
    """
    n = len(roster)
    if n % 2:
        raise ValueError("the circle method needs an even roster; pad it with None")
    k = index % (n - 1)
    rotating = list(roster[1:])
    rotating = rotating[-k:] + rotating[:-k] if k else rotating
    circle = [roster[0], *rotating]
    return [(circle[i], circle[n - 1 - i]) for i in range(n // 2)]


def _roster(entrants: Sequence[str], history: Sequence[RoundRecord], seed: str) -> list[str]:
    players = set(entrants)
    for record in history:
        players.update(record.pairing.byes)
        for table in record.pairing.tables:
            players.update(table.players)
    return sorted(players, key=lambda p: (hashlib.sha256(f"{seed}:{p}".encode()).digest(), p))


def pair_round_robin(
    entrants: Sequence[str],
    history: Sequence[RoundRecord],
    size: TableSize,
    scoring: ScoringRules,
    seed: str,
) -> Pairing:
    """Pair the next round-robin round (see module docstring).

    Raises:
        PairingError: ``"too_few_players"`` if the field cannot fill one table.
    """
    context = PairingContext.build(entrants, history, scoring)
    rng = seeded_rng(seed, context.round, "seats")
    if size.max_seats == 2:
        split_field(len(entrants), size)  # raises when fewer than 2 players are left
        roster: list[str | None] = list(_roster(entrants, history, seed))
        if len(roster) % 2:
            roster.append(None)
        active = set(entrants)
        groups: list[list[str]] = []
        byes: list[str] = []
        for a, b in circle_round(roster, context.round - 1):
            present = [p for p in (a, b) if p is not None and p in active]
            if len(present) == 2:
                groups.append(present)
            else:
                byes.extend(present)
        return Pairing(
            round=context.round, tables=seat_tables(groups, context, rng), byes=tuple(byes)
        )

    sizes, bye_count = split_field(len(context.ranking), size)
    bye_set = set(choose_byes(context.ranking, bye_count, context))
    shuffled = [p for p in context.ranking if p not in bye_set]
    seeded_rng(seed, context.round, "round-robin").shuffle(shuffled)
    groups = []
    at = 0
    for table_size in sizes:
        groups.append(shuffled[at : at + table_size])
        at += table_size

    def cost(a: str, b: str) -> float:
        met = context.met(a, b)
        return REPEAT_WEIGHT * met * met  # squares: a third meeting costs more than two seconds

    groups = improve(groups, cost, seeded_rng(seed, context.round, "round-robin-restarts"))
    byes = [p for p in context.ranking if p in bye_set]
    return Pairing(round=context.round, tables=seat_tables(groups, context, rng), byes=tuple(byes))
