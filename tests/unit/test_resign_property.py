"""Property (issue 32): any seat resigning at any point of a random game leaves a log
that audits and folds from a fresh reader, and whose result ranks that seat last; in
Nim (fast, with hidden values), the games' own properties are in their folders."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.leaving_checks import resign_and_finish


@settings(max_examples=40, deadline=None)
@given(seats=st.integers(2, 4), moves=st.integers(0, 12), lucky=st.booleans(), data=st.data())
def test_any_seat_resigning_at_any_point_ranks_last(
    seats: int, moves: int, lucky: bool, data: st.DataObject
) -> None:
    seat = data.draw(st.integers(0, seats - 1))
    options = {"max_take": 2, "lucky": lucky}
    final = asyncio.run(resign_and_finish("nim", seats, options, moves, seat))
    assert final.is_terminal()
