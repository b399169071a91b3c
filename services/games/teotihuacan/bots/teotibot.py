"""Teotibot's side of the bot worker (RULES.md §8): pick the bot seat's one action.

Why so thin: the solo rules are part of the game's rules, so the whole Teotibot turn
(dice roll, tile action and fallbacks, pyramid shift, direction flip, cocoa, calendar) is
decided by pure rules code in ``services/games/teotihuacan/rules/solo/`` with the engine's
rng, and recorded as events (D7). That keeps every bot decision replayable and checked by
the same engine path as a human's command. In a solo game the ruleset offers the bot
seat exactly one legal action, ``{"type": "teotibot_turn"}``; this policy submits it
through the engine's command path like any other bot action.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.engine.domain.ruleset import BotPolicy, JsonDict, Ruleset

from .greedy import GreedyPolicy

TEOTIBOT_ACTION: JsonDict = {"type": "teotibot_turn"}


def is_teotibot_turn(legal_actions: Sequence[JsonDict]) -> bool:
    """True when the legal actions are Teotibot's turn."""
    return TEOTIBOT_ACTION in legal_actions


class TeotibotPolicy:
    """Plays Teotibot's turn; refuses to guess anything else (ValueError)."""

    name = "teotibot"

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """See Policy.choose. Raises ValueError if this is not Teotibot's turn."""
        if not is_teotibot_turn(legal_actions):
            raise ValueError("not Teotibot's turn: no 'teotibot_turn' among the legal actions")
        return dict(TEOTIBOT_ACTION)


class TeotihuacanBot:
    """The ruleset's bot (``TeotihuacanRuleset.bot_policy``): Teotibot's turn when that is
    the seat's decision (solo games, RULES.md §8), otherwise ``other`` (greedy play)."""

    name = "teotihuacan"

    def __init__(self, other: BotPolicy | None = None) -> None:
        self.other: BotPolicy = other or GreedyPolicy()

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """See BotPolicy.choose."""
        if is_teotibot_turn(legal_actions):
            return dict(TEOTIBOT_ACTION)
        return self.other.choose(ruleset, state, seat, legal_actions, rng)
