"""Player ratings per ruleset with openskill's Plackett-Luce model (2 to 5 seats, ties).

``Rating`` is our own frozen value (mu, sigma, games) so stored ratings do not depend on
openskill's classes; ``update_ratings`` rates one finished game from finishing places.
The display value is the conservative ``ordinal`` = mu - 3 sigma (openskill's default), so a
new player (mu 25, sigma 25/3) shows 0 and climbs as games make the estimate surer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

__all__ = ["DEFAULT_MU", "DEFAULT_SIGMA", "Rating", "leaderboard", "update_ratings"]

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0

_MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


@dataclass(frozen=True)
class Rating:
    """A player's rating in one ruleset: skill estimate ``mu`` ± ``sigma``, ``games`` rated."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """Conservative display value ``mu - 3 * sigma`` (0 for a new player)."""
        return self.mu - 3.0 * self.sigma


def update_ratings(
    ratings: Mapping[str, Rating], players: Sequence[str], places: Sequence[int]
) -> dict[str, Rating]:
    """New ratings of ``players`` after one game they finished in ``places``.

    ``places`` is 1-based per player (equal numbers are a tie; a forfeiter should be given
    the last place by the caller). Players missing from ``ratings`` start at the default.
    Returns a dict holding only the players of this game.

    Raises:
        ValueError: fewer than 2 players, a player listed twice, or ``places`` not matching.
    """
    if len(players) < 2:
        raise ValueError("a rated game needs at least 2 players")
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice in a rated game")
    if len(places) != len(players):
        raise ValueError(f"{len(places)} places for {len(players)} players")
    if any(place < 1 for place in places):
        raise ValueError(f"places start at 1, got {list(places)}")
    old = [ratings.get(player, Rating()) for player in players]
    teams = [
        [_MODEL.rating(mu=r.mu, sigma=r.sigma, name=p)] for p, r in zip(players, old, strict=True)
    ]
    rated = _MODEL.rate(teams, ranks=[float(place) for place in places])
    return {
        player: Rating(mu=team[0].mu, sigma=team[0].sigma, games=before.games + 1)
        for player, team, before in zip(players, rated, old, strict=True)
    }


def leaderboard(ratings: Mapping[str, Rating]) -> list[tuple[str, Rating]]:
    """Players best first: by ordinal, then mu, then more games, then player id (stable)."""
    return sorted(
        ratings.items(), key=lambda item: (-item[1].ordinal, -item[1].mu, -item[1].games, item[0])
    )
