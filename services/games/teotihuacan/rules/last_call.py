"""A one-entry memo keyed by the argument's identity, for lookups on immutable state parts.

The state's tuples (the pyramid's placed tiles, the decorations) are shared unchanged by
every state folded after them until an event replaces them, and the rules ask for the same
derived tables at many decisions in between. ``functools.lru_cache`` hashes its argument
on every call, which for a tuple of tuples costs as much as the lookup saves; comparing
identity with the last argument costs nothing, and the lru cache behind it still serves
arguments seen before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")


def remember_last(fn: Callable[[A], R]) -> Callable[[A], R]:
    """``fn`` that returns its last result again while called with the very same object.

    ``fn`` must be pure and its argument immutable (a tuple of the state), so the answer
    for an object never changes. The memo holds the argument, so its identity can't be
    reused by another object while it is remembered.
    """
    last: list[tuple[A, R]] = []

    def remembered(arg: A) -> R:
        if last and last[0][0] is arg:
            return last[0][1]
        value = fn(arg)
        last[:] = [(arg, value)]
        return value

    return remembered
