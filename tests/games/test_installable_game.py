"""A game is one folder: a package of its own distribution, installed beside the server,
is served, played and audited with no line of the platform naming it.

The test writes a small game distribution into a temporary folder (docs/architecture.md,
"Adding a game"): ``pyproject.toml`` with one entry point in ``teotihuacan_server.games``
and a package ``pebbles`` whose ``__init__.py`` declares the game (``GAME``) and whose
``rules.py`` is the test Nim of tests/nim.py (hidden information included) renamed. pip
installs it with ``--target`` into a scratch folder put on ``PYTHONPATH`` (the fastest
honest install: a real wheel build and a real ``.dist-info`` with its entry points, no
venv to create). Then, in subprocesses from that folder (nothing is written into the
checkout): a real ``teoti serve`` lists it in ListRulesets, ``teoti demo`` plays it to
the end with bots, ``teoti export`` writes its log and ``teoti replay --verify`` folds
and verifies it offline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.client import TeotiClient
from services.engine.domain.rulesets import installed_games
from tests.serve_process import log_events

ROOT = Path(__file__).resolve().parents[2]
GAME = "pebbles"
ENTRY_POINT = f'{GAME} = "{GAME}:GAME"'

PYPROJECT = f"""\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{GAME}-game"
version = "0.1.0"
requires-python = ">=3.11"

[project.entry-points."teotihuacan_server.games"]
{ENTRY_POINT}

[tool.setuptools]
packages = ["{GAME}"]
"""

DECLARATION = f'''\
"""Pebbles: Nim with secret lucky numbers, a game installed from its own distribution."""

from services.engine.domain.game_declaration import Capability, GameDeclaration

GAME = GameDeclaration(
    name="{GAME}",
    title="Pebbles (an installed game)",
    ruleset="{GAME}.rules:NimRuleset",
    min_seats=2,
    max_seats=4,
    capabilities=frozenset({{Capability.SNAPSHOTS}}),
)
'''


def rules_source() -> str:
    """tests/nim.py with its declaration taken from the package (``GAME``) and its name
    changed: two edits, each asserted to apply exactly once."""
    source = (ROOT / "tests" / "nim.py").read_text()
    declared = re.compile(r"^NIM = GameDeclaration\(\n(?:    .*\n)+\)\n", re.M)
    assert len(declared.findall(source)) == 1, "tests/nim.py no longer declares NIM as expected"
    source = declared.sub(f"from {GAME} import GAME as NIM\n", source)
    assert source.count('    name = "nim"\n') == 1
    return source.replace('    name = "nim"\n', f'    name = "{GAME}"\n')


def write_distribution(folder: Path) -> Path:
    """The game's distribution in ``folder``: pyproject.toml and the package."""
    package = folder / GAME
    package.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (package / "__init__.py").write_text(DECLARATION)
    (package / "rules.py").write_text(rules_source())
    return folder


def install(distribution: Path, target: Path) -> float:
    """``pip install`` the distribution into ``target`` (no deps, no network, the build
    backend of this environment); returns the seconds it took."""
    started = time.perf_counter()
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"),
            *("--no-build-isolation", "--target", str(target), str(distribution)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=distribution,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return time.perf_counter() - started


def environment(site: Path) -> dict[str, str]:
    """This environment plus the scratch folder on the path; no bytecode written (the
    checkout stays as it is)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_CLUSTER_NODES",)}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


async def teoti(env: dict[str, str], cwd: Path, *args: str) -> tuple[int, str]:
    """``python -m services.cli ARGS`` in a subprocess (2 minutes at most)."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "services.cli", "--log-level", "WARNING", *args),
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, out.decode()


@contextlib.asynccontextmanager
async def serve(
    env: dict[str, str], work: Path, redis_url: str, key_prefix: str
) -> AsyncIterator[str]:
    """A real ``teoti serve`` on the tests' Redis (a key prefix of its own); yields its
    gRPC target once ready, kills it on exit."""
    log = work / "serve.log"
    args = [
        *(sys.executable, "-m", "services.cli", "--log-level", "INFO", "serve"),
        *("--port", "0", "--web-port", "0", "--data-dir", str(work / "data")),
        *("--redis-url", redis_url, "--key-prefix", key_prefix),
    ]
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            *args, cwd=work, env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            ready = [r for r in log_events(log) if r.get("event") == "teoti_serve_ready"]
            if ready:
                break
            assert process.returncode is None, f"teoti serve exited: {log.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"teoti serve not ready: {log.read_text()[-2000:]}"
            await asyncio.sleep(0.1)
        yield f"127.0.0.1:{ready[0]['port']}"
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


def git_status() -> str:
    """``git status --porcelain`` of the checkout (untracked files included)."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_the_rules_are_tests_nim_renamed() -> None:
    source = rules_source()
    assert f'name = "{GAME}"' in source and "from tests" not in source
    assert "NimRuleset" in source and "Sealed" in source  # the hidden information stays


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_an_installed_game_is_listed_played_exported_and_verified(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    checkout = git_status()
    site, work = tmp_path / "site", tmp_path / "work"
    work.mkdir()
    seconds = install(write_distribution(tmp_path / "dist"), site)
    print(f"pip install --target: {seconds:.1f} s")  # the report's figure (pytest -s)
    assert (site / GAME / "rules.py").exists()
    [info] = list(site.glob(f"{GAME}_game-0.1.0.dist-info"))
    assert ENTRY_POINT.replace('"', "").replace(" ", "") in (
        (info / "entry_points.txt").read_text().replace(" ", "")
    )
    env = environment(site)

    async with serve(env, work, redis_url, key_prefix) as target:
        async with TeotiClient(target) as client:
            listed = {r.name: r for r in await client.list_rulesets()}
        assert GAME in listed, listed
        assert listed[GAME].title == "Pebbles (an installed game)"
        assert (listed[GAME].min_seats, listed[GAME].max_seats) == (2, 4)
        shipped = {g.name for g in installed_games()}  # this process has no pebbles
        assert GAME not in shipped and set(listed) == shipped | {GAME}

        code, out = await teoti(
            env,
            work,
            "demo",
            "--target",
            target,
            "--ruleset",
            GAME,
            "--players",
            "3",
            "--options",
            '{"lucky": true}',  # each seat's secret lucky number, sealed
        )
        assert code == 0, out
        found = re.search(r"game id: (\w+)", out)
        assert found is not None and re.search(r"finished after \d+ events", out), out

        exported = work / "game.jsonl"
        code, out = await teoti(
            env, work, "export", found.group(1), "--target", target, "-o", str(exported)
        )
        assert code == 0, out
        lines = [json.loads(line) for line in exported.read_text().splitlines()]
        assert lines[0]["ruleset"] == GAME and lines[0]["finished"] is True
        assert any(e["type"] == "GameWon" for e in lines[1:])

        # Folded from the file by this client's own copy of the rules (found through the
        # entry point); only the signing key is asked of the server.
        code, out = await teoti(env, work, "replay", str(exported), "--verify", "--target", target)
        assert code == 0, out
    assert "verify: OK" in out and "seed: revealed, verified" in out, out
    assert "commitments: 3, opened and verified: 3" in out, out
    assert git_status() == checkout  # nothing written into the checkout
