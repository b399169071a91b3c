"""Every test marked slow runs in CI's slow step (.ci/run), or is one of the few kept out
on purpose (below). A test moved out of the default run to keep it under 10 minutes must
land in the slow step, not silently in no run at all (one did: a browser test marked slow
in a file the step did not name)."""

from __future__ import annotations

import fnmatch
import glob
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

KEPT_OUT = {
    # Their own step of .ci/run (the container image, built and run).
    "tests/image/": "the image step",
    # Measurements and scale runs, by hand (docs/performance.md, docs/operations.md):
    # their figures are targets, not pass/fail checks for a shared CI machine.
    "tests/scale/test_matchmaking_api_benchmark.py": "a benchmark's scale run",
    "tests/scale/test_cluster_scale.py": "a cluster scale run",
    "tests/integration/test_outages.py": "outage stall times measured",
    "tests/integration/test_peer_benchmark_modes.py": "the peer benchmark's long modes",
    "tests/e2e/test_fault_injection.py": "Redis killed and its AOF cut, minutes each",
    # The long variants of tests whose short variant is in the slow step.
    "tests/e2e/test_crash_recovery.py::test_kill_9_engine_and_bot_mid_run[long]": "long form",
    "tests/e2e/test_play_terminal.py::test_no_redis_outlives": "every other signal",
    "tests/e2e/test_play_terminal.py::test_serve_stops_cleanly": "every other signal",
    "services/games/*/tests/e2e/test_teotibot_solo_game.py::*": "many solo games",
    "services/games/*/tests/test_random_playouts.py::test_a_thousand_random_games*": (
        "a thousand random games"
    ),
    "tests/browser/test_browser_play.py::test_browser_a_whole_game_against_a_bot": (
        "a whole game of each real ruleset in a browser, minutes"
    ),
}
"""Node ids (shell patterns; a plain one is a prefix) of the slow tests CI's slow step
leaves out, and why (a game's own test named by pattern: no file outside a game's folder
names the game)."""


def _kept_out(test: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(test, pattern) if "*" in pattern else test.startswith(pattern)


def _slow_step_arguments() -> list[str]:
    """The paths and node ids .ci/run's slow step passes pytest, globs expanded."""
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(".venv/bin/pytest -m slow"))
    command = ""
    for line in lines[start:]:
        command += line.rstrip().removesuffix("\\") + " "
        if not line.rstrip().endswith("\\"):
            break
    words = shlex.split(command)[1:]
    arguments = []
    for word in words:
        if word.startswith("-") or word == "slow" or word == "no:cacheprovider":
            continue
        path, _, node = word.partition("::")
        matches = sorted(glob.glob(path, root_dir=ROOT)) if "*" in path else [path]
        assert matches, f".ci/run names {word}, which matches nothing"
        arguments += [f"{m}::{node}" if node else m for m in matches]
    return arguments


COLLECT = (sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")


def _slow_tests(*arguments: str) -> set[str]:
    done = subprocess.run(
        [*COLLECT, "-m", "slow", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


@pytest.mark.slow  # two collections of the whole suite: .ci/run's slow step
def test_every_slow_test_runs_in_the_slow_step_or_is_kept_out_on_purpose() -> None:
    in_step = _slow_tests(*_slow_step_arguments())
    everywhere = _slow_tests()
    missing = sorted(
        test
        for test in everywhere - in_step
        if not any(_kept_out(test, pattern) for pattern in KEPT_OUT)
    )
    assert not missing, (
        "slow tests in no CI step: add them to .ci/run's slow step (or to KEPT_OUT, "
        f"with the reason): {missing}"
    )
    for pattern in KEPT_OUT:  # a reason for a test that is gone is a stale reason
        assert any(_kept_out(test, pattern) for test in everywhere), pattern
