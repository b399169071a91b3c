"""What a finished game says for ratings, read from its fold alone (pure).

The same function serves the service (which rates a game when it ends) and an auditor
(who recomputes ratings from exported public logs), so both read a game's outcome the
same way: places from the game's result (resigned and forfeited seats last, the first to
leave lowest: ``GameSnapshot.result``), players from the seats' public ``player`` ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.engine.domain.game import GameSnapshot
from services.engine.domain.records import StoredEvent
from services.tournament.ratings_book import account_identity

__all__ = ["GameOutcome", "finished_at", "outcome_of", "replay_key"]


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game's outcome for its players.

    Attributes:
        game_id / ruleset: the game.
        seats: ``(seat, player id)`` of every seat bound to a player, in seat order.
        places: each seat's finishing place (1 = first), indexed by seat.
        rated: the game counts for ratings (created rated, and every seat a distinct
            player's: the rule services.engine.domain.rated enforces).
        at: when it ended (``recorded_at`` of its log's last event, ISO 8601 UTC).
    """

    game_id: str
    ruleset: str
    seats: tuple[tuple[int, str], ...]
    places: tuple[int, ...]
    rated: bool
    at: str

    @property
    def identities(self) -> list[str]:
        """The rated players' rating identities (``player:<id>``), in seat order."""
        return [account_identity(player) for _seat, player in self.seats]

    @property
    def player_places(self) -> list[int]:
        """The places of :attr:`identities`, in the same order."""
        return [self.places[seat] for seat, _player in self.seats]


def finished_at(events: Sequence[StoredEvent]) -> str:
    """When a finished game ended: the ``recorded_at`` of its log's last event (the
    append that ends a game is its last; "" for no events)."""
    return events[-1].metadata.recorded_at if events else ""


def outcome_of(snapshot: GameSnapshot, at: str) -> GameOutcome | None:
    """The outcome of ``snapshot`` (None while it runs, or if no seat is a player's).

    ``at`` is :func:`finished_at` of its log. A game created rated whose seats are not
    all distinct players (which the engine refuses) is read as unrated rather than
    rated wrongly.
    """
    if not snapshot.is_terminal():
        return None
    result = snapshot.result()
    if result is None:
        return None
    seats = tuple((i, seat.player) for i, seat in enumerate(snapshot.seats) if seat.player)
    if not seats:
        return None
    places = [0] * len(snapshot.seats)
    for position, seat in enumerate(result.ranking):
        if 0 <= seat < len(places):
            places[seat] = position + 1
    players = [player for _seat, player in seats]
    rated = (
        snapshot.rated
        and len(seats) == len(snapshot.seats)
        and len(seats) >= 2
        and len(set(players)) == len(players)
    )
    return GameOutcome(snapshot.game_id, snapshot.ruleset_name, seats, tuple(places), rated, at)


def replay_key(outcome: GameOutcome) -> tuple[str, str]:
    """The order rated games are applied in: by the time they ended, then game id
    (docs/ratings.md "Recomputing a rating")."""
    return outcome.at, outcome.game_id
