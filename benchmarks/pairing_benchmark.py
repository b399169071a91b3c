"""Swiss pairing benchmark: a large field at 4-seat tables, several rounds of random results.

Pairs ``--players`` players (default 1,000) at tables of ``--min-seats``..``--seats`` (default
3..4) for ``--rounds`` Swiss rounds (default 8); each table finishes in a random order (a
tie now and then, a forfeit now and then) and a few players withdraw or join late between
rounds. Times every ``pair_round`` call and checks its result (everyone seated or bye'd
exactly once, table sizes within range); an error is a raised exception or a broken check.
Prints per-round time and repeat meetings, then min/median/max. Target: every round < 1 s.
Run: ``python -m benchmarks.pairing_benchmark [--players N] [--rounds N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from itertools import combinations

from services.tournament import (
    Format,
    Pairing,
    RoundRecord,
    ScoringRules,
    TableResult,
    TableSize,
    default_points,
    pair_round,
)

TARGET_S = 1.0


def check(pairing: Pairing, entrants: list[str], size: TableSize) -> list[str]:
    """What is wrong with ``pairing`` (empty when nothing is)."""
    problems = []
    seated = [p for t in pairing.tables for p in t.players] + list(pairing.byes)
    if sorted(seated) != sorted(entrants):
        problems.append("not every entrant seated or bye'd exactly once")
    for table in pairing.tables:
        if not size.min_seats <= len(table.players) <= size.max_seats:
            problems.append(f"table {table.number} has {len(table.players)} seats")
    return problems


def random_result(number: int, seats: int, rng: random.Random) -> TableResult:
    """A random finishing order; 1 table in 10 has a tie, 1 in 50 a forfeit."""
    places = list(range(1, seats + 1))
    rng.shuffle(places)
    if rng.random() < 0.1:
        a, b = rng.sample(range(seats), 2)
        places[b] = places[a]
    return TableResult(table=number, places=tuple(places))


def repeats(pairing: Pairing, met: set[tuple[str, str]]) -> int:
    """Pairs seated together in ``pairing`` who had met before (and records the new pairs)."""
    count = 0
    for table in pairing.tables:
        for pair in combinations(sorted(table.players), 2):
            count += pair in met
            met.add(pair)
    return count


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--min-seats", type=int, default=3)
    parser.add_argument("--seed", default="benchmark")
    args = parser.parse_args()
    size = TableSize(args.min_seats, args.seats)
    scoring = ScoringRules(points_by_place=default_points(size), bye_points=1.0)
    rng = random.Random(args.seed)
    entrants = [f"player-{i:05d}" for i in range(args.players)]
    next_id = args.players
    history: list[RoundRecord] = []
    met: set[tuple[str, str]] = set()
    times: list[float] = []
    errors = 0
    print(f"players: {args.players}  seats: {args.min_seats}..{args.seats}  rounds: {args.rounds}")
    for round_number in range(1, args.rounds + 1):
        start = time.perf_counter()
        try:
            pairing = pair_round(Format.SWISS, entrants, history, size, scoring, args.seed)
        except Exception as exc:
            errors += 1
            print(f"round {round_number}: error {exc!r}")
            break
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        problems = check(pairing, entrants, size)
        errors += len(problems)
        for problem in problems:
            print(f"round {round_number}: {problem}")
        results = []
        for table in pairing.tables:
            result = random_result(table.number, len(table.players), rng)
            if rng.random() < 0.02:
                result = TableResult(result.table, result.places, (rng.choice(table.players),))
            results.append(result)
        history.append(RoundRecord(pairing=pairing, results=tuple(results)))
        print(
            f"round {round_number}: {elapsed * 1000:.0f} ms  tables {len(pairing.tables)}  "
            f"byes {len(pairing.byes)}  repeat pairs {repeats(pairing, met)}"
        )
        # Churn between rounds: a few withdraw, a few join late.
        for gone in rng.sample(entrants, k=min(3, len(entrants))):
            entrants.remove(gone)
        for _ in range(2):
            entrants.append(f"player-{next_id:05d}")
            next_id += 1
    if times:
        print(
            f"pair_round s: min {min(times):.3f}  median {statistics.median(times):.3f}  "
            f"max {max(times):.3f}  (target < {TARGET_S:.0f} s: "
            f"{'met' if max(times) < TARGET_S else 'MISSED'})"
        )
    print(f"errors: {errors}")


if __name__ == "__main__":
    main()
