"""Rated games: who may sit at one (pure; issue 32, docs/ratings.md).

A rated game compares players, so every seat must be a player's: at least
``MIN_RATED_SEATS`` human seats, each bound to a player account (or open, to be joined by
one), and no engine bot seat (an engine bot is not a player and has no rating). A bot
*account* (a player with the bot flag, services.players) sits in a human seat bound to
its player id and is rated like anyone, as on Lichess. Refusals are INVALID_ARGUMENT /
FAILED_PRECONDITION naming the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.engine.domain.errors import InvalidArgument
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.ruleset import RuleViolation

__all__ = [
    "MIN_RATED_SEATS",
    "RATED_JOIN_RULE",
    "RATED_SEATS_RULE",
    "RatedSeatsInvalid",
    "check_rated_join",
    "check_rated_seats",
]

MIN_RATED_SEATS = 2
RATED_SEATS_RULE = "rated_game_seats"
RATED_JOIN_RULE = "rated_seat_needs_player"


class RatedSeatsInvalid(InvalidArgument):
    """CreateGame asked for a rated game whose seats are not all players' (reason
    ``rated_game_seats``)."""

    rule = RATED_SEATS_RULE


def check_rated_seats(seats: Sequence[SeatSpec]) -> None:
    """Refuse the seats of a rated game unless they are ``MIN_RATED_SEATS`` or more human
    seats, each bound to a player or open, and no bot seat.

    Raises:
        RatedSeatsInvalid: a bot seat, fewer than 2 seats, or a human seat claimed by a
            seat token alone (no player to rate).
    """
    if any(seat.kind is SeatKind.BOT for seat in seats):
        raise RatedSeatsInvalid(
            f"{RATED_SEATS_RULE}: a rated game has no bot seats (an engine bot is not a "
            "player; a bot account joins as a player)"
        )
    if len(seats) < MIN_RATED_SEATS:
        raise RatedSeatsInvalid(
            f"{RATED_SEATS_RULE}: a rated game needs at least {MIN_RATED_SEATS} seats"
        )
    unbound = [i for i, seat in enumerate(seats) if not seat.is_open and not seat.player]
    if unbound:
        raise RatedSeatsInvalid(
            f"{RATED_SEATS_RULE}: every seat of a rated game is a player's (bind it to the "
            f"caller or leave it open); seats {unbound} are bound to no player"
        )
    players = [seat.player for seat in seats if seat.player]
    if len(set(players)) != len(players):
        raise RatedSeatsInvalid(
            f"{RATED_SEATS_RULE}: a player sits at most once in a rated game (a rating "
            "compares different players)"
        )


def check_rated_join(rated: bool, player: str, seats: Sequence[SeatSpec]) -> None:
    """Refuse a JoinGame on a rated game (``seats``: the game's seats now) that would seat
    no player, or a player already seated there (reason ``rated_seat_needs_player``).

    Raises:
        RuleViolation: ``rated`` and no ``player``, or ``player`` holds another seat.
    """
    if not rated:
        return
    if not player:
        raise RuleViolation(
            RATED_JOIN_RULE,
            "a rated game's seat is joined by a player (authorization: Player <credential>)",
        )
    if any(seat.player == player for seat in seats):
        raise RuleViolation(
            RATED_JOIN_RULE, "a player sits at most once in a rated game (it already has a seat)"
        )
