"""The matchmaking benchmark through the API (issue 32), at a small size so it does not
rot: 60 players seek through two real gateway processes for 2 s; the run must count no
error (nobody at two tables, no seek lost, no failed call) and must have placed players
and timed their matches.

    .venv/bin/pytest -m slow tests/scale/test_matchmaking_api_benchmark.py
"""

from __future__ import annotations

import re

import pytest

from benchmarks.matchmaking_api_benchmark import main

pytestmark = pytest.mark.slow  # three service processes start: about 15 s


def test_a_small_run_places_players_without_an_error(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--players", "60", "--seconds", "2", "--settle", "3", "--redis-url", redis_url]
    status = main(argv)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "errors: 0" in out
    placed = re.search(r"players placed: (\d+), still waiting: (\d+)", out)
    assert placed is not None, out
    # 60 players over two rulesets, rated and casual: most find a table in 2 + 3 s.
    assert int(placed[1]) >= 20, out
    assert int(placed[1]) + int(placed[2]) == 60, out
    timed = re.search(r"match_found arrived \(ms\): min (\d+) / median (\d+) / p99 (\d+)", out)
    assert timed is not None, out
    assert 0 < int(timed[1]) <= int(timed[2]) <= int(timed[3]), out
    assert re.search(r"gateway-1: CPU [0-9.]+ s .* per placed player \d+ µs", out), out
