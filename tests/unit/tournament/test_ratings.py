"""Ratings: openskill Plackett-Luce per game, from finishing places with ties."""

from __future__ import annotations

import pytest

from services.tournament import Rating, leaderboard, update_ratings
from services.tournament.ratings import DEFAULT_MU, DEFAULT_SIGMA


def test_new_player_shows_zero() -> None:
    rating = Rating()
    assert (rating.mu, rating.sigma, rating.games) == (DEFAULT_MU, DEFAULT_SIGMA, 0)
    assert rating.ordinal == pytest.approx(0.0)


def test_winner_rises_loser_falls_and_uncertainty_shrinks() -> None:
    new = update_ratings({}, ["a", "b", "c", "d"], [1, 2, 3, 4])
    mus = [new[p].mu for p in "abcd"]
    assert mus == sorted(mus, reverse=True)
    assert new["a"].mu > DEFAULT_MU > new["d"].mu
    assert all(new[p].sigma < DEFAULT_SIGMA and new[p].games == 1 for p in "abcd")


def test_ties_with_equal_ratings_move_equally() -> None:
    new = update_ratings({}, ["a", "b", "c"], [1, 2, 2])
    assert new["b"] == new["c"]
    assert new["a"].mu > new["b"].mu


def test_existing_ratings_are_used_and_games_counted() -> None:
    strong = Rating(mu=35.0, sigma=2.0, games=40)
    upset = update_ratings({"a": strong}, ["a", "b"], [2, 1])
    expected = update_ratings({}, ["a", "b"], [2, 1])
    assert upset["a"].games == 41 and upset["b"].games == 1
    assert upset["a"].mu < 35.0
    # Beating a strong, sure player gains more than beating a new one.
    assert upset["b"].mu - DEFAULT_MU > expected["b"].mu - DEFAULT_MU


def test_five_seats_and_deterministic() -> None:
    players = ["a", "b", "c", "d", "e"]
    assert update_ratings({}, players, [3, 1, 5, 2, 4]) == update_ratings(
        {}, players, [3, 1, 5, 2, 4]
    )


def test_leaderboard_orders_by_ordinal() -> None:
    ratings = {
        "sure": Rating(mu=30.0, sigma=1.0, games=50),  # ordinal 27
        "lucky": Rating(mu=40.0, sigma=6.0, games=2),  # ordinal 22
        "new": Rating(),
        "also-new": Rating(),
    }
    assert [p for p, _ in leaderboard(ratings)] == ["sure", "lucky", "also-new", "new"]


@pytest.mark.parametrize(
    ("players", "places"),
    [(["a"], [1]), (["a", "a"], [1, 2]), (["a", "b"], [1]), (["a", "b"], [0, 1])],
)
def test_bad_games_are_refused(players: list[str], places: list[int]) -> None:
    with pytest.raises(ValueError):
        update_ratings({}, players, places)
