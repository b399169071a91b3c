"""How a bot picks an action: the Policy protocol, random play, and the worker's default
(Teotibot's turn in solo games, greedy play for other bot seats)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from services.bot.greedy import GreedyPolicy
from services.bot.teotibot import TEOTIBOT_ACTION, is_teotibot_turn
from services.engine.ruleset import JsonDict, Ruleset


class Policy(Protocol):
    """Chooses one of ``legal_actions`` (never empty) for ``seat`` in ``state``."""

    name: str

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """Return one element of ``legal_actions``."""
        ...


class RandomPolicy:
    """Uniformly random legal action (seeded per request, so redeliveries pick the same)."""

    name = "random"

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """See Policy.choose."""
        return legal_actions[rng.randrange(len(legal_actions))]


class SeatPolicy:
    """The bot worker's default: Teotibot's turn when that is the seat's decision
    (solo games, RULES.md §8), otherwise the ``other`` policy (greedy by default)."""

    name = "seat"

    def __init__(self, other: Policy | None = None) -> None:
        self.other: Policy = other or GreedyPolicy()

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """See Policy.choose."""
        if is_teotibot_turn(legal_actions):
            return dict(TEOTIBOT_ACTION)
        return self.other.choose(ruleset, state, seat, legal_actions, rng)
