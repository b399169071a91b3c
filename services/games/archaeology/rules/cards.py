"""Card multisets: a tuple of counts, one per treasure kind (in the components' order).

Order never matters in a hand, the market, a room or a pile (piles are drawn at random
when the card is needed, from the engine's rng: RULES.md D7 of the service, A2), so a
multiset is all the state needs.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from operator import add as _plus
from operator import mul as _times
from operator import sub as _minus

Cards = tuple[int, ...]


def empty(kinds: int) -> Cards:
    """No cards, for ``kinds`` treasure kinds."""
    return (0,) * kinds


def one(kinds: int, kind: int, count: int = 1) -> Cards:
    """``count`` cards of kind ``kind``."""
    cards = [0] * kinds
    cards[kind] = count
    return tuple(cards)


def _same_kinds(a: Sequence[int], b: Sequence[int]) -> None:
    """Raise ValueError unless ``a`` and ``b`` count the same kinds (equal lengths)."""
    if len(a) != len(b):
        raise ValueError(f"{a} and {b} count different kinds")


# The multiset operations run at nearly every fold: map over operator functions instead
# of zip generators (several times faster in CPython), with the length check zip's
# strict=True made (written out: a call to _same_kinds cost as much as the check).


def add(a: Cards, b: Cards) -> Cards:
    """Union of two multisets. Raises ValueError for different kinds."""
    if len(a) != len(b):
        _same_kinds(a, b)
    return tuple(map(_plus, a, b))


def sub(a: Cards, b: Cards) -> Cards:
    """``a`` without ``b``. Raises ValueError if ``b`` is not contained in ``a``."""
    if len(a) != len(b):
        _same_kinds(a, b)
    result = tuple(map(_minus, a, b))
    if result and min(result) < 0:
        raise ValueError(f"{b} is not part of {a}")
    return result


def contains(a: Cards, b: Cards) -> bool:
    """True if every card of ``b`` is in ``a``."""
    return all(x >= y for x, y in zip(a, b, strict=True))


def size(cards: Cards) -> int:
    """Number of cards."""
    return sum(cards)


def value(cards: Cards, trade: Sequence[int]) -> int:
    """Total trade value (RULES.md A3.2, market trade). Raises ValueError for different
    kinds."""
    if len(cards) != len(trade):
        _same_kinds(cards, trade)
    return sum(map(_times, cards, trade))


def draw(cards: Cards, rng: random.Random) -> int:
    """Kind of one card drawn uniformly at random from ``cards`` (which must not be empty)."""
    pick = rng.randrange(size(cards))
    for kind, count in enumerate(cards):
        if pick < count:
            return kind
        pick -= count
    raise ValueError("draw from an empty pile")


def draw_many(cards: Cards, count: int, rng: random.Random) -> Cards:
    """``count`` cards drawn at random without replacement (all if fewer are left)."""
    drawn = empty(len(cards))
    left = cards
    for _ in range(min(count, size(cards))):
        kind = draw(left, rng)
        left = sub(left, one(len(cards), kind))
        drawn = add(drawn, one(len(cards), kind))
    return drawn


def to_json(cards: Cards, kinds: Sequence[str]) -> dict[str, int]:
    """``{kind: count}`` of the kinds present, in the components' order."""
    return {kinds[i]: n for i, n in enumerate(cards) if n}


def from_json(data: Mapping[str, int], kinds: Sequence[str]) -> Cards:
    """Inverse of :func:`to_json`. Raises KeyError for an unknown kind, ValueError for a
    negative or non-integer count."""
    index = {kind: i for i, kind in enumerate(kinds)}
    counts = [0] * len(kinds)
    for kind, count in data.items():
        if kind not in index:
            raise KeyError(kind)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"bad count {count!r} for {kind!r}")
        counts[index[kind]] += count
    return tuple(counts)


def sub_multisets(cards: Cards, count: int) -> Iterator[Cards]:
    """Every multiset of exactly ``count`` cards taken from ``cards``, in a fixed order."""

    def walk(index: int, left: int) -> Iterator[tuple[int, ...]]:
        if index == len(cards):
            if left == 0:
                yield ()
            return
        rest = sum(cards[index + 1 :])
        for n in range(min(cards[index], left), -1, -1):
            if left - n <= rest:
                for tail in walk(index + 1, left - n):
                    yield (n, *tail)

    yield from walk(0, count)
