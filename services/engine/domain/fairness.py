"""Provably fair randomness: commit to a secret seed, derive every draw from it, reveal it.

At creation the engine draws a secret seed, keeps it in a per-game key only the engine
reads, and logs only ``seed_commitment = SHA-256(seed)`` (hex of the UTF-8 seed) in
GameCreated. The ruleset's rng at log version ``v`` (0 for setup) is
``random.Random(f"{seed}:{v}")`` (CPython's Mersenne Twister seeded with that string).
When the game ends the engine appends ``SeedRevealed {seed}``; anyone can then check
``SHA-256(seed) == seed_commitment`` and re-derive the rng every decision used.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any


def commit(seed: str) -> str:
    """The public commitment to ``seed``: SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


class DeferredRandom(random.Random):
    """``random.Random(seed_text)``, seeded when it is first drawn from.

    Seeding with a string (SHA-512 of it, then the Mersenne Twister's whole state) costs
    about 5 us, and most decisions draw nothing (issue 16). Every draw, ``getstate`` and
    pickling seed it first exactly as ``random.Random(seed_text)`` would, so it yields
    the same numbers; after that the instance holds the plain methods, so later draws
    cost what a ``random.Random``'s do. ``seed`` and ``setstate`` replace the deferred
    seed like they replace any state. Without ``seed_text`` it is seeded at once from
    the system, like ``random.Random()``.
    """

    _deferred: str | None

    def __init__(self, seed_text: str | None = None) -> None:
        if seed_text is None:
            self._deferred = None
            super().__init__()
            return
        # random.Random.__init__ would seed now; only its other effect is kept.
        self._deferred = seed_text
        self.gauss_next = None

    def _seed_deferred(self) -> None:
        text = self._deferred
        self._deferred = None
        if text is not None:
            random.Random.seed(self, text)
        # From now on the base class's own methods, found before this class's wrappers.
        vars(self).update(random=super().random, getrandbits=super().getrandbits)

    def random(self) -> float:
        """See random.Random.random."""
        self._seed_deferred()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        """See random.Random.getrandbits."""
        self._seed_deferred()
        return super().getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        """See random.Random.getstate."""
        if self._deferred is not None:
            self._seed_deferred()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        """See random.Random.setstate (the deferred seed is dropped)."""
        self._deferred = None
        super().setstate(state)

    def seed(self, a: Any = None, version: int = 2) -> None:
        """See random.Random.seed (the deferred seed is dropped)."""
        self._deferred = None
        super().seed(a, version)


def rng_for(seed: str, version: int) -> random.Random:
    """The rng a ruleset gets when deciding at ``version`` (0: setup): draws as
    ``random.Random(f"{seed}:{version}")`` does, seeded only if drawn from."""
    return DeferredRandom(f"{seed}:{version}")
