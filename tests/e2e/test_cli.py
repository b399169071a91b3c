"""The ``teoti`` commands a newcomer runs: ``demo`` prints final scores and the game id,
``replay --verify`` checks that game's log, and a running game is verified by the server."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.cli.commands import build_parser
from services.engine.domain.rulesets import RulesetRegistry

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    async with all_in_one(redis_url, store=StoreSettings(key_prefix), registry=registry) as s:
        yield s


async def teoti(*args: str) -> tuple[int, str]:
    """Run ``python -m services.cli ARGS`` in a subprocess (5 minutes at most)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.cli",
        "--log-level",
        "WARNING",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 300)
    return process.returncode or 0, out.decode()


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_demo_then_replay_verify(stack: Stack) -> None:
    target = f"127.0.0.1:{stack.port}"
    code, out = await teoti("demo", "--target", target, "--players", "4")
    assert code == 0, out
    assert re.search(r"finished after \d+ events", out)
    places = re.findall(r"^\s+\d\. .+ \(seat \d\): \d+ points$", out, re.M)
    assert len(places) == 4
    game_id = re.search(r"game id: (\w+)", out)
    assert game_id is not None

    code, out = await teoti("replay", game_id.group(1), "--target", target, "--verify")
    assert code == 0, out
    assert "eclipse 3 scored" in out and "verify: OK" in out


async def test_replay_of_an_unknown_game_fails_clearly(stack: Stack) -> None:
    code, out = await teoti("replay", "nosuchgame", "--target", f"127.0.0.1:{stack.port}")
    assert code == 2 and "unknown game 'nosuchgame'" in out and "Traceback" not in out


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_bad_options_name_the_known_ones(stack: Stack) -> None:
    target = f"127.0.0.1:{stack.port}"
    code, out = await teoti("demo", "--target", target, "--options", '{"nope": 1}')
    assert code == 2 and "unknown option 'nope'" in out and "first_game" in out
    assert "Traceback" not in out
    code, out = await teoti("demo", "--target", target, "--options", "not json")
    assert code == 2 and "not valid JSON" in out


def test_log_level_goes_before_or_after_the_command() -> None:
    parser = build_parser()
    assert parser.parse_args(["demo", "--log-level", "INFO"]).log_level == "INFO"
    assert parser.parse_args(["--log-level", "ERROR", "demo"]).log_level == "ERROR"
    both = ["--log-level", "ERROR", "serve", "--log-level", "DEBUG"]
    assert parser.parse_args(both).log_level == "DEBUG"
