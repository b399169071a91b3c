"""The heuristic Archaeology bot plays only legal actions and clearly beats random play."""

from __future__ import annotations

import random

from services.bot.policy import RandomPolicy
from services.engine.domain.ruleset import SetupRequest
from services.games.archaeology.bots.policy import ArchaeologyBot
from services.games.archaeology.rules.state import GameState

from .builders import COMP, RULES

GAMES = 100


def _play(seed: int) -> tuple[bool, int]:
    """One game: the bot in a random seat, random play elsewhere. (bot won, seats)."""
    rng = random.Random(seed)
    seats = rng.randint(COMP.min_seats, COMP.max_seats)
    bot_seat = rng.randrange(seats)
    bot, other = ArchaeologyBot(), RandomPolicy()
    game: GameState | None = None
    for event in RULES.setup(SetupRequest(seats, {}), random.Random(seed)):
        game = RULES.evolve(game, event)
    assert game is not None
    while not RULES.is_terminal(game):
        (seat,) = RULES.seats_to_act(game)
        legal = list(RULES.legal_actions(game, seat))
        policy = bot if seat == bot_seat else other
        action = policy.choose(RULES, game, seat, legal, rng)
        assert action in legal
        for event in RULES.decide(game, seat, action, random.Random(rng.random())):
            game = RULES.evolve(game, event)
    result = RULES.result(game)
    assert result is not None
    return result.ranking[0] == bot_seat, seats


def test_the_bot_wins_far_more_often_than_a_random_seat_would() -> None:
    outcomes = [_play(seed) for seed in range(GAMES)]
    wins = sum(won for won, _ in outcomes)
    fair_share = sum(1 / seats for _, seats in outcomes)  # a random seat's expected wins
    assert wins >= 1.5 * fair_share, (wins, fair_share)
