"""Table counts and sizes for a field (services/tournament/pairing/tables.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.tournament import PairingError, TableSize
from services.tournament.pairing.tables import split_field, table_sizes


@pytest.mark.parametrize(
    ("players", "low", "high", "sizes", "byes"),
    [
        (10, 3, 4, ([4, 3, 3]), 0),
        (9, 3, 4, [3, 3, 3], 0),
        (12, 3, 4, [4, 4, 4], 0),
        (11, 3, 5, [5, 3, 3], 0),
        (13, 4, 5, [5, 4, 4], 0),
        (14, 2, 5, [5, 5, 4], 0),
        (5, 4, 4, [4], 1),
        (7, 2, 2, [2, 2, 2], 1),
        (11, 4, 4, [4, 4], 3),
        (2, 2, 5, [2], 0),
    ],
)
def test_worked_examples(players: int, low: int, high: int, sizes: list[int], byes: int) -> None:
    assert split_field(players, TableSize(low, high)) == (sizes, byes)


def test_too_few_players() -> None:
    with pytest.raises(PairingError) as caught:
        split_field(2, TableSize(3, 4))
    assert caught.value.reason == "too_few_players"


def test_bad_table_size() -> None:
    with pytest.raises(ValueError):
        TableSize(1, 4)
    with pytest.raises(ValueError):
        TableSize(4, 3)


def _splittable(players: int, size: TableSize) -> bool:
    """Brute force: can ``players`` be written as a sum of sizes in range?"""
    ok = [True] + [False] * players
    for n in range(1, players + 1):
        ok[n] = any(n >= s and ok[n - s] for s in range(size.min_seats, size.max_seats + 1))
    return ok[players]


@given(
    st.integers(2, 5).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 5))),
    st.integers(0, 200),
)
def test_split_is_valid_and_byes_minimal(bounds: tuple[int, int], players: int) -> None:
    size = TableSize(*bounds)
    if players < size.min_seats:
        with pytest.raises(PairingError):
            split_field(players, size)
        return
    sizes, byes = split_field(players, size)
    assert sum(sizes) + byes == players
    assert all(size.min_seats <= s <= size.max_seats for s in sizes)
    assert not any(_splittable(players - fewer, size) for fewer in range(byes))
    if byes == 0:
        # As many max-size tables as any split allows.
        best = max(
            k
            for k in range(players // size.max_seats + 1)
            if _splittable(players - k * size.max_seats, size)
        )
        assert sizes.count(size.max_seats) == best
        assert table_sizes(players, size) == sizes
