"""What pairing needs to know about the rounds played so far, and its seeded random source.

Built once per ``pair_round`` call from the history: points, meetings between every pair,
byes, and how often each player had the early seats. Pure; deterministic.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from services.tournament.model import RoundRecord, ScoringRules
from services.tournament.standings import compute_standings

__all__ = ["PairingContext", "pair_key", "seeded_rng"]


def seeded_rng(seed: str, round_number: int, purpose: str) -> random.Random:
    """A private PRNG for one use in one round: ``Random(sha256(seed:round:purpose))``.

    Never the global ``random``; the same inputs always give the same sequence.
    """
    digest = hashlib.sha256(f"{seed}:{round_number}:{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The order-free key of a pair of players."""
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True)
class PairingContext:
    """Facts from the history that pairing uses.

    ``round`` is the round being paired (``len(history) + 1``); ``points`` are tournament
    points (late joiners absent, i.e. 0); ``meetings`` counts the tables each pair shared;
    ``byes`` counts byes; ``seat_advantage`` sums, per past table, 1 for the first seat down to
    0 for the last (seats in between evenly); ``ranking`` is every entrant by the standings
    (points, tie-breaks, registration order).
    """

    round: int
    points: dict[str, float]
    meetings: Counter[tuple[str, str]]
    byes: Counter[str]
    seat_advantage: dict[str, float]
    ranking: tuple[str, ...]

    @classmethod
    def build(
        cls, entrants: Sequence[str], history: Sequence[RoundRecord], scoring: ScoringRules
    ) -> PairingContext:
        """Fold ``history`` into the facts pairing needs for ``entrants``' next round."""
        meetings: Counter[tuple[str, str]] = Counter()
        byes: Counter[str] = Counter()
        advantage: dict[str, float] = {}
        for record in history:
            byes.update(record.pairing.byes)
            for table in record.pairing.tables:
                players = table.players
                last = max(len(players) - 1, 1)
                for i, player in enumerate(players):
                    advantage[player] = advantage.get(player, 0.0) + (last - i) / last
                    for other in players[i + 1 :]:
                        meetings[pair_key(player, other)] += 1
        active = set(entrants)
        rows = compute_standings(entrants, history, scoring)
        ranking = tuple(row.player for row in rows if row.player in active)
        return cls(
            round=len(history) + 1,
            points={row.player: row.points for row in rows},
            meetings=meetings,
            byes=byes,
            seat_advantage=advantage,
            ranking=ranking,
        )

    def met(self, a: str, b: str) -> int:
        """How many tables ``a`` and ``b`` have shared."""
        return self.meetings.get(pair_key(a, b), 0)
