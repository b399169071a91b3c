"""Golden games: fixed seeds must keep playing exactly the recorded, readable playthroughs.

Each seeded random game of each setup is written out in the spirit of OpenSpiel's
playthrough files, one line per action and per event, in ``golden/<setup>.seed<N>.txt``::

    action  seat 2 (of 14 legal)  <describe_action>  <action as compact JSON>
    event   v41 WorkerMoved/1  <describe_event>  <payload as canonical JSON>

It pins the rules' behaviour, so that a refactor, a speed-up or the mypyc-compiled
build (docs/performance.md) that changes any game is caught even when every invariant
still holds, and the failure shows the first lines that differ. Nothing in a line may
depend on the build or on PYTHONHASHSEED (canonical JSON sorts keys).

A deliberate rules change changes the playthroughs: regenerate them with
``.venv/bin/python -m tests.unit.teotihuacan.test_golden_games --update``, read the diff
(``git diff tests/unit/teotihuacan/golden``) and say in the commit which rule changed.
"""

from __future__ import annotations

import difflib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.engine.ruleset import DomainEvent, SetupRequest
from services.engine.store.records import canonical_json

from .builders import RULES

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REGENERATE = ".venv/bin/python -m tests.unit.teotihuacan.test_golden_games --update"
SEEDS = range(4)
SETUPS: dict[str, tuple[int, dict[str, Any]]] = {
    "first_game_4": (4, {"first_game": True}),
    "standard_3": (3, {"first_game": False}),
    "draft_dark_advanced_2": (
        2,
        {
            "first_game": False,
            "draft_starting_tiles": True,
            "dark_eclipse": True,
            "advanced_worship": True,
        },
    ),
    "solo": (2, {"solo": True, "first_game": False}),
}
CASES = [(setup, seed) for setup in sorted(SETUPS) for seed in SEEDS]


def _event_line(version: int, event: DomainEvent) -> str:
    # Hidden values are part of the game too (the log holds only their commitments).
    sealed = {k: {"value": v.value, "seats": list(v.seats)} for k, v in event.sealed.items()}
    hidden = f"  sealed {canonical_json(sealed)}" if sealed else ""
    reveals = f"  reveals {canonical_json(list(event.reveals))}" if event.reveals else ""
    return (
        f"event   v{version} {event.type}/{event.schema_version}  "
        f"{RULES.describe_event(event)}  {canonical_json(dict(event.payload))}{hidden}{reveals}"
    )


def playthrough_lines(setup: str, seed: int) -> Iterator[str]:
    """The lines of one golden game: random choices from ``random.Random(seed)``.

    Versions count the ruleset's events from 1 (the engine's own events are not part of
    a rules-only game).
    """
    seats, options = SETUPS[setup]
    yield f"# Golden playthrough: teotihuacan {setup}, seed {seed}. Regenerate: {REGENERATE}"
    yield f"setup   seats={seats} options={canonical_json(options)}"
    rng = random.Random(seed)
    events = RULES.setup(SetupRequest(seat_count=seats, options=options), rng)
    state: Any = None
    version = 0
    for event in events:
        state = RULES.evolve(state, event)
        version += 1
        yield _event_line(version, event)
    while not RULES.is_terminal(state):
        seat = rng.choice(RULES.seats_to_act(state))
        legal = list(RULES.legal_actions(state, seat))
        action = rng.choice(legal)
        yield (
            f"action  seat {seat} (of {len(legal)} legal)  "
            f"{RULES.describe_action(action)}  {canonical_json(action)}"
        )
        new_events, state = RULES.apply(state, seat, action, rng)
        for event in new_events:
            version += 1
            yield _event_line(version, event)
    result = RULES.result(state)
    assert result is not None
    yield f"result  scores={list(result.scores)} ranking={list(result.ranking)}"


def playthrough(setup: str, seed: int) -> str:
    """The whole golden file text of one game."""
    return "\n".join(playthrough_lines(setup, seed)) + "\n"


def golden_path(setup: str, seed: int) -> Path:
    """Where the golden playthrough of ``setup`` and ``seed`` is committed."""
    return GOLDEN_DIR / f"{setup}.seed{seed}.txt"


@pytest.mark.parametrize(("setup", "seed"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_fixed_seeds_play_exactly_the_recorded_games(setup: str, seed: int) -> None:
    path = golden_path(setup, seed)
    recorded = path.read_text(encoding="utf-8")
    played = playthrough(setup, seed)
    if played != recorded:
        diff = difflib.unified_diff(
            recorded.splitlines(),
            played.splitlines(),
            f"{path.name} (recorded)",
            f"{path.name} (played now)",
            n=2,
            lineterm="",
        )
        shown = "\n".join(line[:240] for _, line in zip(range(60), diff, strict=False))
        pytest.fail(
            f"{setup} seed {seed} no longer plays its golden game; first differences:\n"
            f"{shown}\nIf a rule changed on purpose: {REGENERATE}"
        )


@pytest.mark.parametrize("hash_seed", ["1", "4242"])
def test_playthroughs_do_not_depend_on_the_hash_seed(hash_seed: str) -> None:
    """Set and dict orders of str keys change with PYTHONHASHSEED: none may leak into a line."""
    setup, seed = "standard_3", 1
    code = (
        "import sys\n"
        "from tests.unit.teotihuacan.test_golden_games import playthrough\n"
        f"sys.stdout.write(playthrough({setup!r}, {seed}))\n"
    )
    played = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    assert played == golden_path(setup, seed).read_text(encoding="utf-8")


def test_every_golden_file_is_a_case() -> None:
    assert sorted(GOLDEN_DIR.glob("*.txt")) == sorted(golden_path(s, n) for s, n in CASES)


def main(argv: list[str]) -> int:
    """``--update``: rewrite every golden file from the current rules."""
    if argv != ["--update"]:
        sys.stderr.write(f"usage: {REGENERATE}\n")
        return 2
    GOLDEN_DIR.mkdir(exist_ok=True)
    for stale in GOLDEN_DIR.glob("*.txt"):
        stale.unlink()
    for setup, seed in CASES:
        golden_path(setup, seed).write_text(playthrough(setup, seed), encoding="utf-8")
        sys.stdout.write(f"wrote {golden_path(setup, seed)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
