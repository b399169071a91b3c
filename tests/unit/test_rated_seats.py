"""The rated-game seat rule (services.engine.domain.rated, docs/ratings.md), as a
property over every small seat list: a rated game is accepted exactly when it has at
least 2 seats, no bot seat, every seat bound to a player or open, and no player twice;
a refusal names ``rated_game_seats``. JoinGame on a rated game needs a player who has
no seat there yet."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rated import (
    RATED_JOIN_RULE,
    RATED_SEATS_RULE,
    RatedSeatsInvalid,
    check_rated_join,
    check_rated_seats,
)
from services.engine.domain.ruleset import RuleViolation

PLAYERS = ["p1", "p2", "p3"]


@st.composite
def seats(draw: st.DrawFn) -> SeatSpec:
    """A bot seat, an open seat, a seat held by a token alone, or a player's seat."""
    kind = draw(st.sampled_from(["bot", "open", "token", "player"]))
    if kind == "bot":
        return SeatSpec(SeatKind.BOT, "b")
    if kind == "open":
        return SeatSpec(SeatKind.HUMAN, "")
    if kind == "token":
        return SeatSpec(SeatKind.HUMAN, "t", "a" * 64)
    return SeatSpec(SeatKind.HUMAN, "p", player=draw(st.sampled_from(PLAYERS)))


def acceptable(table: list[SeatSpec]) -> bool:
    players = [s.player for s in table if s.player]
    return (
        len(table) >= 2
        and all(s.kind is SeatKind.HUMAN for s in table)
        and all(s.is_open or s.player for s in table)
        and len(set(players)) == len(players)
    )


@given(st.lists(seats(), min_size=1, max_size=5))
def test_a_rated_game_is_accepted_exactly_when_every_seat_is_a_distinct_player_s(
    table: list[SeatSpec],
) -> None:
    if acceptable(table):
        check_rated_seats(table)
        return
    with pytest.raises(RatedSeatsInvalid) as refused:
        check_rated_seats(table)
    assert refused.value.rule == RATED_SEATS_RULE and RATED_SEATS_RULE in str(refused.value)


@given(st.lists(seats(), min_size=2, max_size=5), st.sampled_from(["", *PLAYERS]), st.booleans())
def test_a_rated_game_s_seat_is_joined_by_a_player_without_one(
    table: list[SeatSpec], player: str, rated: bool
) -> None:
    seated = any(s.player == player for s in table)
    if not rated or (player and not seated):
        check_rated_join(rated, player, table)
        return
    with pytest.raises(RuleViolation) as refused:
        check_rated_join(rated, player, table)
    assert refused.value.rule == RATED_JOIN_RULE
