"""Build of the server: protobuf stubs generated at build time, optional mypyc rules.

Stubs: ``build_py`` (run by ``pip install``, ``pip install -e`` and ``pip wheel``) first
calls ``clients/python/build_stubs.py``, which generates the public GameService stubs into
``clients/python/teoti_client/proto/`` and the internal EngineService stubs into
``services/rpc/generated/``, each with a ``.pyi`` type stub. The server distribution
ships the ``teoti_client`` package itself (mapped from ``clients/python/``), so server
and client import one and the same generated code.

Rules, optional native build with mypyc (docs/performance.md).

``pip install .`` (and every editable install) ships the rules as plain Python. With
``TEOTI_COMPILE_RULES=1`` and mypy installed in the build environment
(``pip install --no-build-isolation``), the rules modules are compiled to C extensions:
same code, same events, about 1.5x the steps per second (benchmarks/rules_benchmark.py).
Every game's ``rules/`` folder (``services/games/*/rules``) is compiled, so a new game
needs no line here. Left as Python in each: ``__init__.py``, ``options.py`` (pydantic
models) and ``state.py`` (the state classes stay ordinary dict-backed classes so
``frozen.replace`` can copy them in one C call); a game's bots and terminal kit live
outside ``rules/`` and stay Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "clients" / "python"))
import build_stubs  # noqa: E402

GAMES = Path("services/games")
SHARED = [  # helpers every ruleset's decisions and folds call
    Path("services/engine/domain/rules_support/frozen.py"),
    Path("services/engine/domain/rules_support/public_events.py"),
]
INTERPRETED = {"__init__.py", "options.py", "state.py"}


def compiled_rules_modules() -> list[str]:
    """Paths of the rules modules mypyc compiles (every game's ``rules/`` folder but the
    INTERPRETED names, plus the SHARED helpers), sorted."""
    modules = [
        p
        for rules in sorted(GAMES.glob("*/rules"))
        for p in rules.rglob("*.py")
        if p.name not in INTERPRETED
    ]
    modules += SHARED
    return sorted(str(p) for p in modules)


ext_modules = []
if os.environ.get("TEOTI_COMPILE_RULES") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(compiled_rules_modules(), opt_level="3")


class BuildPyWithStubs(build_py):
    """``build_py`` that first generates the protobuf/gRPC stubs into the source tree."""

    def run(self) -> None:
        build_stubs.generate(build_stubs.server_sets(ROOT))
        super().run()


setup(
    packages=[
        # A game's own tests (services/games/<name>/tests/, issue 31) stay in the checkout.
        *find_namespace_packages(include=["services*"], exclude=["*.tests", "*.tests.*"]),
        "teoti_client",
        "teoti_client.proto",
    ],
    package_dir={"teoti_client": "clients/python/teoti_client"},
    cmdclass={"build_py": BuildPyWithStubs},
    ext_modules=ext_modules,
)
