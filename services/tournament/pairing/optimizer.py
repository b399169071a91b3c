"""Swap search that seats players so that few pairs meet again.

Tables are lists of players with fixed sizes; the cost of a table is the sum of a pair cost
over its pairs. ``repeat_cost`` gives the part for past meetings: ``REPEAT_WEIGHT`` for a pair
who met before (so the search first minimises the number of such pairs), plus a smaller
weight for each meeting beyond the first (so, second, it avoids a third meeting before a
second); callers add their own much smaller terms (e.g. score differences). Two players of
different tables swap when that lowers the total cost. Deterministic: the search order is
fixed and random restarts use the caller's seeded PRNG.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

__all__ = ["REPEAT_WEIGHT", "Seating", "improve", "repeat_cost"]

REPEAT_WEIGHT = 1e9
"""Cost of seating a pair who met before; dominates every other cost."""

_EXTRA_MEETING_WEIGHT = 1e6  # each meeting past the first: below a repeat, above callers' terms


def repeat_cost(met: int) -> float:
    """The cost of seating together a pair who shared ``met`` tables before."""
    if met <= 0:
        return 0.0
    return REPEAT_WEIGHT + _EXTRA_MEETING_WEIGHT * (met * met - 1)


PairCost = Callable[[str, str], float]
Seating = list[list[str]]

_SMALL_FIELD = 48  # players: at most this many get the full search and restarts
_RESTARTS = 16  # random restarts for small fields that still have repeats
_SWAPS_PER_TABLE = 4  # per repair pass in large fields
_WINDOW = 8  # tables on each side searched first for a swap in large fields
_EPS = 1e-3  # costs reach ~1e11 (float error ~1e-5) and real differences are >= ~0.1


def table_cost(players: list[str], cost: PairCost) -> float:
    """The sum of ``cost`` over every pair of ``players``."""
    return sum(cost(a, b) for a, b in itertools.combinations(players, 2))


def total_cost(tables: Seating, cost: PairCost) -> float:
    """The cost of a whole seating."""
    return sum(table_cost(t, cost) for t in tables)


def improve(tables: Seating, pair_cost: PairCost, rng: random.Random) -> Seating:
    """Lower the cost of ``tables`` by swapping players between tables; returns new tables.

    Small fields get steepest descent over every swap, then random restarts (from ``rng``)
    while a repeat remains, keeping the cheapest seating. Large fields repair only the
    tables holding a repeat, swapping with nearby tables first (tables are in rank order,
    so near tables hold players of similar scores). Table sizes never change.
    """
    seating = [list(t) for t in tables]
    players = sum(len(t) for t in seating)
    known: dict[tuple[str, str], float] = {}

    def cached(a: str, b: str) -> float:
        # A pair's cost is fixed during one search and each is asked for many times.
        key = (a, b) if a < b else (b, a)
        value = known.get(key)
        if value is None:
            value = known[key] = pair_cost(a, b)
        return value

    cost = cached
    if players <= _SMALL_FIELD:
        return _small_field(seating, cost, rng)
    return _repair(seating, cost)


def _small_field(seating: Seating, cost: PairCost, rng: random.Random) -> Seating:
    best = _descend(seating, cost)
    best_cost = total_cost(best, cost)
    sizes = [len(t) for t in seating]
    flat = [p for t in seating for p in t]
    for _ in range(_RESTARTS):
        if best_cost < REPEAT_WEIGHT:
            break  # no repeat left: restarts could only trade score balance
        rng.shuffle(flat)
        start: Seating = []
        at = 0
        for size in sizes:
            start.append(flat[at : at + size])
            at += size
        candidate = _descend(start, cost)
        candidate_cost = total_cost(candidate, cost)
        if candidate_cost < best_cost - _EPS:
            best, best_cost = candidate, candidate_cost
    return best


def _descend(seating: Seating, cost: PairCost) -> Seating:
    """Steepest descent: apply the best improving swap until none is left."""
    seating = [list(t) for t in seating]
    costs = [table_cost(t, cost) for t in seating]
    # Best swap per table pair; a swap only changes the pairs holding one of its tables.
    best_of: dict[tuple[int, int], tuple[float, int, int] | None] = {}
    while True:
        best: tuple[float, int, int, int, int] | None = None
        for i, j in itertools.combinations(range(len(seating)), 2):
            if (i, j) not in best_of:
                pair_best = None
                for delta, x, y in _swaps(seating, costs, i, j, cost):
                    if delta < -_EPS and (pair_best is None or delta < pair_best[0] - _EPS):
                        pair_best = (delta, x, y)
                best_of[i, j] = pair_best
            found = best_of[i, j]
            if found is not None and (best is None or found[0] < best[0] - _EPS):
                best = (found[0], i, found[1], j, found[2])
        if best is None:
            return seating
        _, i, x, j, y = best
        _apply(seating, costs, i, x, j, y, cost)
        for key in [k for k in best_of if i in k or j in k]:
            del best_of[key]


def _repair(seating: Seating, cost: PairCost) -> Seating:
    """Fix the tables holding a repeat with the best swap found nearest to them."""
    costs = [table_cost(t, cost) for t in seating]
    for _ in range(4):  # passes; each fixes what it can, later passes retry the rest
        changed = False
        for i in range(len(seating)):
            # A bounded number of swaps per table and pass: where repeats cannot all go
            # (a small field late in a long event) each swap still gains only a little.
            for _ in range(_SWAPS_PER_TABLE):
                if costs[i] < REPEAT_WEIGHT or not _repair_one(seating, costs, i, cost):
                    break
                changed = True
        if not changed:
            break
    return seating


def _repair_one(seating: Seating, costs: list[float], i: int, cost: PairCost) -> bool:
    """Apply the best improving swap between table ``i`` and a near table, widening the
    search to the whole field if no near table helps; False if no swap helps."""
    n = len(seating)
    for low, high in ((1, _WINDOW), (_WINDOW + 1, n)):
        best: tuple[float, int, int, int] | None = None
        for distance in range(low, high + 1):
            for j in (i - distance, i + distance):
                if not 0 <= j < n:
                    continue
                for delta, x, y in _swaps(seating, costs, i, j, cost):
                    if delta < -_EPS and (best is None or delta < best[0] - _EPS):
                        best = (delta, x, j, y)
        if best is not None:
            _, x, j, y = best
            _apply(seating, costs, i, x, j, y, cost)
            return True
    return False


def _swaps(
    seating: Seating, costs: list[float], i: int, j: int, cost: PairCost
) -> list[tuple[float, int, int]]:
    """Every swap between tables ``i`` and ``j`` as ``(cost change, index in i, index in j)``.

    Uses the cross costs once (``cross[x][y]`` = cost of ``i``'s x-th with ``j``'s y-th):
    after a swap, ``b`` meets ``i``'s others and ``a`` meets ``j``'s others.
    """
    a_table, b_table = seating[i], seating[j]
    cross = [[cost(a, b) for b in b_table] for a in a_table]
    a_inner = [_inner(a_table, x, cost) for x in range(len(a_table))]
    b_inner = [_inner(b_table, y, cost) for y in range(len(b_table))]
    b_to_i = [sum(cross[x][y] for x in range(len(a_table))) for y in range(len(b_table))]
    a_to_j = [sum(row) for row in cross]
    out = []
    for x in range(len(a_table)):
        for y in range(len(b_table)):
            here = cross[x][y]
            a_in = b_to_i[y] - here  # b joins i's players other than a
            b_in = a_to_j[x] - here  # a joins j's players other than b
            out.append((a_in + b_in - a_inner[x] - b_inner[y], x, y))
    return out


def _inner(table: list[str], x: int, cost: PairCost) -> float:
    """The cost between ``table[x]`` and the rest of its table."""
    return sum(cost(table[x], p) for k, p in enumerate(table) if k != x)


def _apply(
    seating: Seating, costs: list[float], i: int, x: int, j: int, y: int, cost: PairCost
) -> None:
    seating[i][x], seating[j][y] = seating[j][y], seating[i][x]
    costs[i] = table_cost(seating[i], cost)
    costs[j] = table_cost(seating[j], cost)
