"""Seat order at a table: players who had the late seats get the early ones.

The first seat often moves first (an advantage in most games), so each table is seated by
``PairingContext.seat_advantage`` ascending; equal advantages are ordered by the seeded PRNG.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from services.tournament.model import Table
from services.tournament.pairing.context import PairingContext

__all__ = ["seat_tables"]


def seat_tables(
    groups: Sequence[Sequence[str]], context: PairingContext, rng: random.Random
) -> tuple[Table, ...]:
    """Number the groups 1.. as tables and order each one's seats (see module docstring)."""
    tables = []
    for number, group in enumerate(groups, start=1):
        draws = {player: rng.random() for player in sorted(group)}
        order = sorted(group, key=lambda p: (context.seat_advantage.get(p, 0.0), draws[p], p))
        tables.append(Table(number=number, players=tuple(order)))
    return tuple(tables)
