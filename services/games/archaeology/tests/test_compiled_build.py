"""The mypyc build compiles Archaeology's rules too, exactly when CI says it tests them.

``scripts/compile_rules.sh`` runs the unit tests inside a copy of the checkout whose rules
modules are C extensions (setup.py ``compiled_rules_modules``). With
``TEOTI_EXPECT_COMPILED_RULES=1`` this test fails if Python imported Archaeology's plain
``.py`` rules instead; without it, that a development checkout runs the sources it shows.
The modules setup.py leaves interpreted stay ``.py`` in both builds.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

from services.games.archaeology.bots import policy
from services.games.archaeology.rules import (
    cards,
    decide,
    dig,
    evolve,
    market,
    options,
    play,
    ruleset,
    state,
)


def _compiled(module: ModuleType) -> bool:
    return Path(str(module.__file__)).suffix == ".so"


def test_rules_modules_are_compiled_exactly_when_expected() -> None:
    expected = os.environ.get("TEOTI_EXPECT_COMPILED_RULES") == "1"
    for module in (cards, decide, dig, evolve, market, play, ruleset):
        assert _compiled(module) == expected, f"{module.__name__} loaded from {module.__file__}"


def test_options_state_and_bot_policy_stay_interpreted() -> None:
    # pydantic models, the dict-backed state classes frozen.replace copies, and the bot.
    for module in (options, state, policy):
        assert not _compiled(module), f"{module.__name__} loaded from {module.__file__}"
