"""Card multisets refuse to mix multisets of different kinds (the check zip's strict=True
made, written out in ``add``, ``sub`` and ``value``)."""

from __future__ import annotations

import pytest

from services.games.archaeology.rules import cards as c


def test_add_sub_and_value_refuse_different_kinds() -> None:
    with pytest.raises(ValueError, match="different kinds"):
        c.add((1, 2), (1, 2, 3))
    with pytest.raises(ValueError, match="different kinds"):
        c.sub((1, 2, 3), (1, 2))
    with pytest.raises(ValueError, match="different kinds"):
        c.value((1, 2), (5, 5, 5))


def test_add_sub_and_value_of_the_same_kinds() -> None:
    assert c.add((1, 0, 2), (0, 3, 1)) == (1, 3, 3)
    assert c.sub((1, 3, 3), (0, 3, 1)) == (1, 0, 2)
    assert c.value((1, 0, 2), (5, 7, 2)) == 9
    with pytest.raises(ValueError, match="is not part of"):
        c.sub((1, 0), (0, 1))
