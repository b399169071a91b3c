"""The mypyc build really is compiled when CI says it tests it (docs/performance.md).

``scripts/compile_rules.sh`` runs the rules tests inside a copy of the checkout whose
rules modules are C extensions. With ``TEOTI_EXPECT_COMPILED_RULES=1`` this test fails if
Python silently imported the plain ``.py`` modules instead, so a green compiled run
can't be an interpreted run in disguise. Without the variable it checks the opposite: a
development checkout runs the sources it shows.
"""

from __future__ import annotations

import os
from pathlib import Path

from services.games.teotihuacan.rules import evolve, flow, tasks, turn


def test_rules_modules_are_compiled_exactly_when_expected() -> None:
    expected = os.environ.get("TEOTI_EXPECT_COMPILED_RULES") == "1"
    for module in (flow, evolve, tasks, turn):
        compiled = Path(str(module.__file__)).suffix == ".so"
        assert compiled == expected, f"{module.__name__} loaded from {module.__file__}"
