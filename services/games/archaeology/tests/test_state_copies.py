"""The fold's state copies (``evolve.changed``) are ``frozen.replace``'s, for every state class.

``changed`` checks the changed names by the copy's size instead of the class's field
names; it must give the same object, leave the original alone, and refuse an unknown
field with the same TypeError.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.domain.rules_support.frozen import replace
from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.evolve import changed
from services.games.archaeology.rules.state import (
    MinePending,
    PeekPending,
    SandstormPending,
    ThiefPending,
    TombPending,
    TradePending,
)

from .builders import KINDS, new_game

GAME = new_game(4, seed=3)
EMPTY = c.empty(len(KINDS))
SAMPLES: list[Any] = [
    GAME,
    GAME.seats[0],
    GAME.turn,
    GAME.options,
    ThiefPending(1),
    SandstormPending(0, (1, 0, 2, 0), (2, 0), (2,), (), (0, 0, 0, 0)),
    TradePending(EMPTY, EMPTY),
    MinePending(1, EMPTY),
    TombPending(0),
    PeekPending(),
]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), sample=st.sampled_from(SAMPLES))
def test_changed_is_replace(data: st.DataObject, sample: Any) -> None:
    names = [f.name for f in fields(sample)]
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True) if names else st.just([]))
    changes = {name: data.draw(st.integers() | st.tuples(st.integers())) for name in chosen}
    before = dict(vars(sample))
    copy = changed(sample, **changes)
    assert type(copy) is type(sample)
    assert vars(copy) == vars(replace(sample, **changes))
    assert copy == replace(sample, **changes)
    assert vars(sample) == before  # the original is untouched


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: type(s).__name__)
def test_an_unknown_field_is_refused_like_replace(sample: Any) -> None:
    with pytest.raises(TypeError, match="no field"):
        replace(sample, nonsense=1)
    with pytest.raises(TypeError, match=r"no field\(s\) \['nonsense'\]"):
        changed(sample, nonsense=1, **{f.name: 0 for f in fields(sample)[:1]})
