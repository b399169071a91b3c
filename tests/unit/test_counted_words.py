"""Counted words (services.safe_text.count): a person reads "1 card" and "2 cards",
never the developer's "card(s)"."""

from __future__ import annotations

import pytest

from services.safe_text import count, plural


@pytest.mark.parametrize(
    ("n", "words"), [(0, "0 cards"), (1, "1 card"), (2, "2 cards"), (11, "11 cards")]
)
def test_a_count_of_one_is_singular_and_any_other_plural(n: int, words: str) -> None:
    assert count(n, "card") == words


def test_an_irregular_plural_is_given() -> None:
    assert count(1, "person", "people") == "1 person"
    assert count(3, "person", "people") == "3 people"
    assert plural(1, "worker") == "worker" and plural(2, "worker") == "workers"
    assert plural(2, "power-up") == "power-ups" and plural(0, "mouse", "mice") == "mice"
