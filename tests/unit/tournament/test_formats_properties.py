"""Round robin and elimination keep the seating invariants for any field (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournament import Format, PairingError, RoundRecord, TableSize, pair_round

from .helpers import random_results, scoring_for

sizes = st.integers(2, 5).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 5)))


@settings(max_examples=40, deadline=None)
@given(
    fmt=st.sampled_from([Format.ROUND_ROBIN, Format.ELIMINATION]),
    bounds=sizes,
    players=st.integers(2, 30),
    rng_seed=st.integers(0, 2**32),
    advance=st.one_of(st.none(), st.integers(1, 4)),
)
def test_seating_invariants(fmt, bounds, players, rng_seed, advance) -> None:
    size = TableSize(*bounds)
    scoring = scoring_for(size)
    rng = random.Random(rng_seed)
    entrants = [f"p{i:02d}" for i in range(players)]
    history: list[RoundRecord] = []
    for _ in range(4):
        try:
            pairing = pair_round(fmt, entrants, history, size, scoring, "f", advance=advance)
        except PairingError as error:
            allowed = {"too_few_players", "elimination_complete", "elimination_stalled"}
            assert error.reason in allowed
            return
        seated = [p for t in pairing.tables for p in t.players]
        assert len(seated) == len(set(seated))
        assert not set(seated) & set(pairing.byes)
        assert set(seated) | set(pairing.byes) <= set(entrants)
        if fmt is Format.ROUND_ROBIN:
            assert sorted(seated + list(pairing.byes)) == sorted(entrants)
        assert all(size.min_seats <= len(t.players) <= size.max_seats for t in pairing.tables)
        again = pair_round(fmt, entrants, history, size, scoring, "f", advance=advance)
        assert again == pairing
        history.append(random_results(pairing, rng))
