"""Tournaments (issue 15): pure pairing, standings and ratings, and their shared types.

This package is a generic layer: it knows no game. The pure modules (``model``,
``pairing``, ``standings``, ``ratings``) do no I/O.
"""

from __future__ import annotations

from services.tournament.model import (
    Format,
    Pairing,
    PairingError,
    RoundRecord,
    ScoringRules,
    StandingRow,
    Table,
    TableResult,
    TableSize,
    default_points,
)
from services.tournament.pairing import pair_round
from services.tournament.ratings import Rating, leaderboard, update_ratings
from services.tournament.standings import TIEBREAKS, compute_standings

__all__ = [
    "TIEBREAKS",
    "Format",
    "Pairing",
    "PairingError",
    "Rating",
    "RoundRecord",
    "ScoringRules",
    "StandingRow",
    "Table",
    "TableResult",
    "TableSize",
    "compute_standings",
    "default_points",
    "leaderboard",
    "pair_round",
    "update_ratings",
]
