"""Optional native build of the Teotihuacan rules with mypyc (docs/performance.md).

``pip install .`` (and every editable install) ships the rules as plain Python. With
``TEOTI_COMPILE_RULES=1`` and mypy installed in the build environment
(``pip install --no-build-isolation``), the rules modules are compiled to C extensions:
same code, same events, about 1.5x the steps per second (benchmarks/rules_benchmark.py).
Left as Python: ``options.py`` (pydantic models), ``state.py`` (the state classes stay
ordinary dict-backed classes so ``frozen.replace`` can copy them in one C call) and the
``bots`` package (the bot worker's policies, not the rules).
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

RULES = Path("services/engine/rules/teotihuacan")
SHARED = [Path("services/engine/rules/frozen.py")]  # helpers every ruleset's fold calls
INTERPRETED = {"__init__.py", "options.py", "state.py"}


def compiled_rules_modules() -> list[str]:
    """Paths of the rules modules mypyc compiles, sorted."""
    modules = [
        p for p in RULES.rglob("*.py") if p.name not in INTERPRETED and "bots" not in p.parts
    ]
    modules += SHARED
    return sorted(str(p) for p in modules)


ext_modules = []
if os.environ.get("TEOTI_COMPILE_RULES") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(compiled_rules_modules(), opt_level="3")

setup(ext_modules=ext_modules)
