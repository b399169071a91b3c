"""The rng a decision gets draws exactly what ``random.Random(f"{seed}:{v}")`` draws,
whether or not it was seeded before it was first drawn from."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from services.engine.domain.fairness import DeferredRandom, rng_for


def draws(rng: random.Random) -> list[Any]:
    """Every kind of draw a ruleset makes (and a few it might)."""
    pile = list(range(30))
    rng.shuffle(pile)
    return [
        rng.randrange(10),
        rng.random(),
        rng.getrandbits(70),
        rng.choice("abcdefg"),
        pile,
        rng.sample(range(100), 5),
        rng.randint(1, 6),
        rng.uniform(0, 1),
        rng.gauss(0, 1),
        rng.gauss(0, 1),
        rng.randbytes(5),
        rng.choices("abc", k=4),
        rng.getstate(),
    ]


@pytest.mark.parametrize("version", [0, 1, 2, 17, 400])
def test_rng_for_draws_what_a_seeded_random_draws(version: int) -> None:
    text = f"0123456789abcdef0123456789abcdef:{version}"
    assert draws(rng_for("0123456789abcdef0123456789abcdef", version)) == draws(random.Random(text))


def test_state_is_the_seeded_state_before_any_draw() -> None:
    assert DeferredRandom("s:3").getstate() == random.Random("s:3").getstate()


def test_seed_and_setstate_replace_the_deferred_seed() -> None:
    reseeded = DeferredRandom("s:3")
    reseeded.seed(5)
    assert draws(reseeded) == draws(random.Random(5))
    restored = DeferredRandom("s:3")
    restored.setstate(random.Random(7).getstate())
    assert draws(restored) == draws(random.Random(7))


def test_copies_and_pickles_draw_the_same() -> None:
    assert draws(copy.deepcopy(DeferredRandom("s:4"))) == draws(random.Random("s:4"))
    assert draws(pickle.loads(pickle.dumps(DeferredRandom("s:4")))) == draws(random.Random("s:4"))
    started, expected = DeferredRandom("s:4"), random.Random("s:4")
    started.random(), expected.random()
    assert draws(copy.copy(started)) == draws(expected)


def test_without_a_seed_text_it_is_seeded_at_once() -> None:
    first, second = DeferredRandom(), DeferredRandom()
    assert first.getstate() != second.getstate()
