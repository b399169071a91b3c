"""``teoti demo`` of Archaeology (the demo and replay of any game: tests/e2e/test_cli.py)."""

from __future__ import annotations

import re

import pytest

from services.app import Stack
from tests.e2e.test_cli import stack, teoti

__all__ = ["stack"]  # the fixture: the whole service on the test Redis


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_an_archaeology_demo_of_five_bots_ends_and_verifies(stack: Stack) -> None:
    """Issue 14: the second ruleset through the same service, five bot seats."""
    target = f"127.0.0.1:{stack.port}"
    code, out = await teoti(
        "demo", "--target", target, "--ruleset", "archaeology", "--players", "5"
    )
    assert code == 0, out
    assert "the expedition ends" in out
    places = re.findall(r"^\s+\d\. .+ \(seat \d\): \d+ points?$", out, re.M)
    assert len(places) == 5
    game_id = re.search(r"game id: (\w+)", out)
    assert game_id is not None
    code, out = await teoti("replay", game_id.group(1), "--target", target, "--verify")
    assert code == 0 and "verify: OK" in out, out
