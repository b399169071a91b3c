"""Swiss pairing: properties (hypothesis) and small constructed cases."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournament import Format, PairingError, RoundRecord, TableSize, pair_round
from services.tournament.pairing.context import seeded_rng
from services.tournament.pairing.tables import split_field

from .helpers import meetings, random_results, repeat_pairs, scoring_for

sizes = st.integers(2, 5).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 5)))


def check_round(pairing, entrants, size, history) -> None:
    """The invariants every round must keep."""
    seated = [p for t in pairing.tables for p in t.players]
    assert len(seated) == len(set(seated)), "someone seated twice"
    assert sorted(seated + list(pairing.byes)) == sorted(entrants), "seated or bye'd once"
    assert not set(seated) & set(pairing.byes)
    assert all(size.min_seats <= len(t.players) <= size.max_seats for t in pairing.tables)
    assert [t.number for t in pairing.tables] == list(range(1, len(pairing.tables) + 1))
    assert len(pairing.byes) == split_field(len(entrants), size)[1], "byes not minimal"
    assert pairing.round == len(history) + 1
    # Bye exploits closed: no second bye while an active player has none.
    byes = Counter(p for record in history for p in record.pairing.byes)
    if pairing.byes:
        got = max(byes[p] for p in pairing.byes)
        others = [byes[p] for p in entrants if p not in pairing.byes]
        assert not others or got <= min(others)


@settings(max_examples=60, deadline=None)
@given(
    bounds=sizes,
    players=st.integers(2, 40),
    rounds=st.integers(1, 5),
    rng_seed=st.integers(0, 2**32),
    seed=st.text(max_size=8),
    churn=st.booleans(),
)
def test_swiss_invariants(bounds, players, rounds, rng_seed, seed, churn) -> None:
    size = TableSize(*bounds)
    scoring = scoring_for(size)
    rng = random.Random(rng_seed)
    entrants = [f"p{i:02d}" for i in range(players)]
    history: list[RoundRecord] = []
    joined = players
    for _ in range(rounds):
        if len(entrants) < size.min_seats:
            with pytest.raises(PairingError):
                pair_round(Format.SWISS, entrants, history, size, scoring, seed)
            return
        pairing = pair_round(Format.SWISS, entrants, history, size, scoring, seed)
        check_round(pairing, entrants, size, history)
        again = pair_round(Format.SWISS, list(entrants), list(history), size, scoring, seed)
        assert again == pairing, "not deterministic"
        history.append(random_results(pairing, rng))
        if churn:  # one withdraws, one joins late
            entrants.remove(rng.choice(entrants))
            entrants.append(f"p{joined:02d}")
            joined += 1


@settings(max_examples=40, deadline=None)
@given(rng_seed=st.integers(0, 2**32), seed=st.text(max_size=4))
def test_four_players_two_seats_never_repeat_in_three_rounds(rng_seed, seed) -> None:
    # A 3-round round robin of 4 always exists, and each round leaves a repeat-free one.
    size = TableSize(2, 2)
    rng = random.Random(rng_seed)
    entrants = ["a", "b", "c", "d"]
    history: list[RoundRecord] = []
    for _ in range(3):
        pairing = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), seed)
        assert repeat_pairs(pairing, history) == 0
        history.append(random_results(pairing, rng))


@settings(max_examples=30, deadline=None)
@given(
    case=st.sampled_from([(16, 4), (9, 3), (25, 5), (8, 2), (12, 3)]),
    rng_seed=st.integers(0, 2**32),
)
def test_round_two_is_repeat_free_when_one_exists(case, rng_seed) -> None:
    # k tables of k seats (or n pairs): after any first round, taking one player from each
    # first-round table gives a repeat-free second round, so pairing must find one.
    players, seats = case
    size = TableSize(seats, seats)
    rng = random.Random(rng_seed)
    entrants = [f"p{i:02d}" for i in range(players)]
    first = pair_round(Format.SWISS, entrants, [], size, scoring_for(size), "x")
    history = [random_results(first, rng)]
    second = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), "x")
    assert repeat_pairs(second, history) == 0


def random_pairing_repeats(pairing, history, rng) -> int:
    """Repeat pairs of a random seating of ``pairing``'s seated players at its table sizes."""
    shuffled = [p for t in pairing.tables for p in t.players]
    rng.shuffle(shuffled)
    table_sizes = [len(t.players) for t in pairing.tables]
    met = meetings(history)
    total = 0
    at = 0
    for table_size in table_sizes:
        table = sorted(shuffled[at : at + table_size])
        at += table_size
        total += sum(1 for i, a in enumerate(table) for b in table[i + 1 :] if met[a, b])
    return total


@settings(max_examples=25, deadline=None)
@given(
    bounds=sizes,
    players=st.integers(6, 24),
    rng_seed=st.integers(0, 2**32),
)
def test_repeats_never_worse_than_the_best_of_random_pairings(bounds, players, rng_seed) -> None:
    size = TableSize(*bounds)
    rng = random.Random(rng_seed)
    entrants = [f"p{i:02d}" for i in range(players)]
    history: list[RoundRecord] = []
    for _ in range(5):
        pairing = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), "r")
        ours = repeat_pairs(pairing, history)
        best_random = min(random_pairing_repeats(pairing, history, rng) for _ in range(10))
        assert ours <= best_random
        history.append(random_results(pairing, rng))


def test_large_field_repairs_repeats() -> None:
    # 120 players, 4 seats, 6 rounds: the large-field path; repeats stay rare.
    size = TableSize(3, 4)
    rng = random.Random(7)
    entrants = [f"p{i:03d}" for i in range(120)]
    history: list[RoundRecord] = []
    for _ in range(6):
        pairing = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), "big")
        check_round(pairing, entrants, size, history)
        assert repeat_pairs(pairing, history) == 0
        history.append(random_results(pairing, rng))


def test_byes_rotate_to_the_lowest_ranked_without_one() -> None:
    # 5 players at 4-seat tables: one bye a round, five rounds, everyone gets exactly one.
    size = TableSize(4, 4)
    rng = random.Random(3)
    entrants = ["a", "b", "c", "d", "e"]
    history: list[RoundRecord] = []
    for _ in range(5):
        pairing = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), "b")
        check_round(pairing, entrants, size, history)
        history.append(random_results(pairing, rng))
    assert Counter(p for r in history for p in r.pairing.byes) == Counter(entrants)


def test_first_bye_goes_to_the_last_in_the_standings() -> None:
    size = TableSize(2, 2)
    scoring = scoring_for(size, bye_points=1.0)
    first = pair_round(Format.SWISS, ["a", "b", "c", "d"], [], size, scoring, "x")
    results = []
    for table in first.tables:
        results.append(random_results(first, random.Random(0)).results[table.number - 1])
    history = [RoundRecord(first, tuple(results))]
    # "e" joins late at 0 points; ranking puts 0-point players in registration order,
    # so the lowest-ranked player is the last 0-point player, "e".
    pairing = pair_round(Format.SWISS, ["a", "b", "c", "d", "e"], history, size, scoring, "x")
    assert pairing.byes == ("e",)


def test_score_groups_sit_together() -> None:
    # 16 players, 4 seats, a result with no ties: round 2 seats the four winners together.
    size = TableSize(4, 4)
    entrants = [f"p{i:02d}" for i in range(16)]
    first = pair_round(Format.SWISS, entrants, [], size, scoring_for(size), "g")
    from services.tournament import TableResult

    history = [RoundRecord(first, tuple(TableResult(t.number, (1, 2, 3, 4)) for t in first.tables))]
    second = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), "g")
    winners = {t.players[0] for t in first.tables}
    assert set(second.tables[0].players) == winners
    assert repeat_pairs(second, history) == 0


def test_seed_changes_the_seating_but_not_the_invariants() -> None:
    size = TableSize(2, 2)
    entrants = [f"p{i}" for i in range(8)]
    one = pair_round(Format.SWISS, entrants, [], size, scoring_for(size), "one")
    seatings = {
        tuple(
            t.players
            for t in pair_round(Format.SWISS, entrants, [], size, scoring_for(size), f"s{i}").tables
        )
        for i in range(8)
    }
    assert len(seatings) > 1
    check_round(one, entrants, size, [])


def test_seat_order_is_balanced_over_a_round_robin_of_swiss_rounds() -> None:
    size = TableSize(2, 2)
    rng = random.Random(1)
    entrants = [f"p{i}" for i in range(8)]
    history: list[RoundRecord] = []
    for _ in range(6):
        pairing = pair_round(Format.SWISS, entrants, history, size, scoring_for(size), "seat")
        history.append(random_results(pairing, rng))
    first = Counter(t.players[0] for r in history for t in r.pairing.tables)
    assert all(2 <= first[p] <= 4 for p in entrants), first


def test_duplicate_entrant_is_refused() -> None:
    size = TableSize(2, 2)
    with pytest.raises(PairingError) as caught:
        pair_round(Format.SWISS, ["a", "a", "b"], [], size, scoring_for(size), "x")
    assert caught.value.reason == "duplicate_entrant"


def test_seeded_rng_depends_on_seed_round_and_purpose() -> None:
    draws = {seeded_rng(s, r, p).random() for s in "ab" for r in (1, 2) for p in ("x", "y")}
    assert len(draws) == 8
    assert seeded_rng("a", 1, "x").random() == seeded_rng("a", 1, "x").random()
