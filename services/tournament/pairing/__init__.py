"""Pairing: who sits at which table in a tournament's next round.

``pair_round`` dispatches on the tournament's ``Format``; every format is pure and
deterministic from ``(entrants, history, size, scoring, seed)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.tournament.model import (
    Format,
    Pairing,
    PairingError,
    RoundRecord,
    ScoringRules,
    TableSize,
)
from services.tournament.pairing.elimination import pair_elimination
from services.tournament.pairing.round_robin import pair_round_robin
from services.tournament.pairing.swiss import pair_swiss

__all__ = ["pair_round"]


def pair_round(
    fmt: Format,
    entrants: Sequence[str],
    history: Sequence[RoundRecord],
    size: TableSize,
    scoring: ScoringRules,
    seed: str,
    *,
    advance: int | None = None,
) -> Pairing:
    """Pair round ``len(history) + 1`` of a tournament.

    Args:
        fmt: the tournament's format.
        entrants: active (not withdrawn) player ids in registration order.
        history: the rounds played so far, in order, with their results.
        size: the seats per table allowed.
        scoring: points by place, bye points and tie-break order (used to rank players).
        seed: the tournament's committed seed; with the other inputs it fixes the pairing.
        advance: elimination only: players going on from each table.

    Raises:
        PairingError: (a ValueError) with a ``reason`` when the round cannot be paired:
            ``"duplicate_entrant"``, ``"too_few_players"``, and the format's own reasons.
    """
    if len(set(entrants)) != len(entrants):
        raise PairingError("duplicate_entrant", "a player is listed twice among the entrants")
    if fmt is Format.SWISS:
        return pair_swiss(entrants, history, size, scoring, seed)
    if fmt is Format.ROUND_ROBIN:
        return pair_round_robin(entrants, history, size, scoring, seed)
    if fmt is Format.ELIMINATION:
        return pair_elimination(entrants, history, size, scoring, seed, advance)
    raise PairingError("unknown_format", f"unknown tournament format {fmt!r}")
