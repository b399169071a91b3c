"""Issue 30 item 14: the built wheel carries every file the code needs, for every game.

Editable installs read the source tree, so a data file missing from the wheel (as the
second game's ``rules/data/components.json`` was: CreateGame of that game and
ListRulesets as a whole failed in the container image) shows only once installed.
This builds the wheel as the Dockerfile does (``pip wheel --no-deps``, here without build
isolation: offline, with this venv's setuptools and grpcio-tools), then:

- every file git tracks under ``services/`` and ``clients/python/teoti_client/`` that is
  not Python (data tables, the web face's static files, ``py.typed``) is in it, and
  nothing of a game's own tests (``services/games/<name>/tests/``) is;
- unpacked into a scratch folder and imported from there alone (not from the checkout:
  checked), every registered ruleset answers what ListRulesets asks of it and creates a
  game on the in-memory store.

About 2 s (the stubs are already generated).
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from services.engine.domain.rulesets import default_registry

REPO = Path(__file__).resolve().parents[2]
CODE_DIRS = {"services/": "services/", "clients/python/teoti_client/": "teoti_client/"}
"""Checkout folder -> where its files land in the wheel."""

# Runs from the unpacked wheel: its packages first on sys.path, the checkout nowhere.
PROBE = r"""
import asyncio, json, sys
import services
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.ruleset import info_of
from services.engine.domain.rulesets import default_registry
from services.engine.adapters.memory import InMemoryEventStore

async def main():
    registry = default_registry()
    engine = Engine(InMemoryEventStore(), registry)
    played = {}
    for name in registry.names():
        info = info_of(registry.get(name))  # what ListRulesets asks of every ruleset
        seats = [SeatSpec(SeatKind.BOT, f"b{i}") for i in range(info.min_seats)]
        created = await engine.create_game(name, seats, {})
        played[name] = [info.title, created.version]
    print(json.dumps({"services": services.__file__, "rulesets": played}))

asyncio.run(main())
"""


def _board_source(path: str) -> bool:
    """True for a file of a game's board source (``services/games/<name>/web/...``)."""
    parts = path.split("/")
    return len(parts) > 4 and parts[:2] == ["services", "games"] and parts[3] == "web"


def _tracked_data_files() -> list[str]:
    """Wheel paths of the non-Python files git tracks in the packaged folders."""
    listed = subprocess.run(
        ["git", "ls-files", "--", *CODE_DIRS],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    found = []
    for path in listed:
        # A game's own tests (services/games/<name>/tests/: golden games, fixture logs)
        # stay in the checkout: setup.py leaves every ``*.tests`` package out of the wheel.
        # A game's board (services/games/<name>/web/: TypeScript) is the web client's
        # source; the wheel ships its build, services/web/static/ (docs/web.md).
        if path.endswith(".py") or "/tests/" in path or _board_source(path):
            continue
        for source, target in CODE_DIRS.items():
            if path.startswith(source):
                found.append(target + path.removeprefix(source))
    return sorted(found)


def test_the_wheel_serves_every_registered_ruleset(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("teotihuacan_server-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "unpacked")

    data_files = _tracked_data_files()
    for name in default_registry().names():  # every game's data folder is checked
        data = f"services/games/{name}/rules/data/"
        if (REPO / data).is_dir():
            assert any(path.startswith(data) for path in data_files), name
    assert any("/rules/data/" in path for path in data_files)
    missing = [name for name in data_files if name not in names]
    assert not missing, f"the wheel lacks {missing}"
    shipped_tests = sorted(name for name in names if "/tests/" in name)
    assert not shipped_tests, f"the wheel ships test files {shipped_tests[:5]}"

    unpacked = tmp_path / "unpacked"
    probe = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env={"PYTHONPATH": str(unpacked), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stdout + probe.stderr
    result = json.loads(probe.stdout.strip().splitlines()[-1])
    assert Path(result["services"]).is_relative_to(unpacked), result["services"]
    assert sorted(result["rulesets"]) == default_registry().names()
    for name, (title, version) in result["rulesets"].items():
        assert title and version >= 2, (name, title, version)
