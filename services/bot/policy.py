"""How a bot picks an action: the Policy protocol, random play, and the worker's default,
which asks each game's ruleset for its own bot (the worker knows no game)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.engine.domain.ruleset import BotPolicy, JsonDict, Ruleset, bot_policy_of

Policy = BotPolicy
"""Chooses one of ``legal_actions`` (never empty) for ``seat`` in ``state``."""


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


class RulesetPolicy:
    """The bot worker's default: each ruleset's own bot (its ``bot_policy()``: a game's
    folder holds it in ``bots/``), else random play."""

    name = "ruleset"

    def __init__(self, fallback: Policy | None = None) -> None:
        self._fallback: Policy = fallback or RandomPolicy()
        self._by_ruleset: dict[str, Policy] = {}

    def policy_for(self, ruleset: Ruleset[Any]) -> Policy:
        """The policy playing ``ruleset``'s bot seats (built once per ruleset)."""
        policy = self._by_ruleset.get(ruleset.name)
        if policy is None:
            policy = bot_policy_of(ruleset) or self._fallback
            self._by_ruleset[ruleset.name] = policy
        return policy

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """See Policy.choose."""
        return self.policy_for(ruleset).choose(ruleset, state, seat, legal_actions, rng)
