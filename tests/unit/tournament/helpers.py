"""Shared helpers for the tournament tests: play rounds with random results, count repeats."""

from __future__ import annotations

import random
from collections import Counter
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


def scoring_for(size: TableSize, bye_points: float = 1.0) -> ScoringRules:
    """Default points for ``size``, the usual tie-breaks."""
    return ScoringRules(default_points(size), bye_points, ("buchholz", "sonneborn_berger"))


def random_results(pairing: Pairing, rng: random.Random) -> RoundRecord:
    """``pairing`` with a random finishing order at each table (ties and forfeits now and then)."""
    results = []
    for table in pairing.tables:
        places = list(range(1, len(table.players) + 1))
        rng.shuffle(places)
        if rng.random() < 0.2:
            a, b = rng.sample(range(len(places)), 2)
            places[b] = places[a]
        forfeited = (rng.choice(table.players),) if rng.random() < 0.1 else ()
        results.append(TableResult(table.number, tuple(places), forfeited))
    return RoundRecord(pairing, tuple(results))


def meetings(history: list[RoundRecord]) -> Counter[tuple[str, str]]:
    """How many tables each pair shared."""
    met: Counter[tuple[str, str]] = Counter()
    for record in history:
        for table in record.pairing.tables:
            met.update(combinations(sorted(table.players), 2))
    return met


def repeat_pairs(pairing: Pairing, history: list[RoundRecord]) -> int:
    """Pairs seated together in ``pairing`` who met in ``history``."""
    met = meetings(history)
    return sum(
        1
        for table in pairing.tables
        for pair in combinations(sorted(table.players), 2)
        if met[pair]
    )


def play(
    fmt: Format,
    players: int,
    size: TableSize,
    rounds: int,
    seed: str = "s",
    rng_seed: int = 0,
    advance: int | None = None,
) -> list[RoundRecord]:
    """Play ``rounds`` rounds of ``fmt`` with random results; returns the history."""
    rng = random.Random(rng_seed)
    entrants = [f"p{i:02d}" for i in range(players)]
    scoring = scoring_for(size)
    history: list[RoundRecord] = []
    for _ in range(rounds):
        pairing = pair_round(fmt, entrants, history, size, scoring, seed, advance=advance)
        history.append(random_results(pairing, rng))
    return history
