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


def commit(seed: str) -> str:
    """The public commitment to ``seed``: SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def rng_for(seed: str, version: int) -> random.Random:
    """The rng a ruleset gets when deciding at ``version`` (0: setup)."""
    return random.Random(f"{seed}:{version}")
