"""How a bot picks an action. Teotibot and a greedy policy will be further Policy classes."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

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
