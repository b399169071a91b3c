"""The derived lookup tables of :class:`Components` give what the long way gives.

``indices`` and ``units`` are built from the data file's treasure kinds at parse time so
that the folds and actions skip ``kinds.index`` and ``cards.one`` at every step; they must
follow the data (A10: the file may change), whatever the order of the kinds.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.components import Components, load_data, parse_components

DATA = load_data()


def _assert_tables_follow_kinds(comp: Components) -> None:
    assert list(comp.indices) == list(comp.kinds)
    for kind in comp.kinds:
        assert comp.indices[kind] == comp.kinds.index(kind)
        assert comp.kind_index(kind) == comp.kinds.index(kind)
    assert comp.units == tuple(c.one(len(comp.kinds), k) for k in range(len(comp.kinds)))


def test_tables_of_the_package_data() -> None:
    _assert_tables_follow_kinds(parse_components(DATA))


@settings(max_examples=50, deadline=None)
@given(order=st.permutations(range(len(DATA["treasures"]))))
def test_tables_follow_any_order_of_the_kinds(order: list[int]) -> None:
    data: dict[str, Any] = copy.deepcopy(DATA)
    data["treasures"] = [data["treasures"][i] for i in order]
    comp = parse_components(data)
    assert comp.kinds == tuple(DATA["treasures"][i]["kind"] for i in order)
    _assert_tables_follow_kinds(comp)


def test_unknown_kind_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        parse_components(DATA).kind_index("unobtainium")
