"""Golden playthroughs for any ruleset: seeded random games written out as readable files.

Each seeded random game of each named setup is written out in the spirit of OpenSpiel's
playthrough files, one line per action and per event, in ``<directory>/<setup>.seed<N>.txt``::

    action  seat 2 (of 14 legal)  <describe_action>  <action as compact JSON>
    event   v41 WorkerMoved/1  <describe_event>  <payload as canonical JSON>  [sealed ...]

A playthrough pins a ruleset's behaviour, so that a refactor or a speed-up that changes
any game is caught even when every invariant still holds, and the failure shows the first
lines that differ. Nothing in a line may depend on the build or on PYTHONHASHSEED
(canonical JSON sorts keys). Hidden values are written too (``sealed``): they are part of
the game, though the log holds only their commitments.

A ruleset's test module declares one :class:`GoldenGames` and calls :meth:`GoldenGames.check`
from its parametrized test and :meth:`GoldenGames.main` from its ``__main__`` (the
``--update`` entry point); see each game's ``services/games/<name>/tests/test_golden_games.py``.
"""

from __future__ import annotations

import difflib
import os
import random
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.engine.domain.records import canonical_json
from services.engine.domain.ruleset import DomainEvent, Ruleset, SetupRequest, decide_and_fold

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class GoldenGames:
    """The golden playthroughs of one ruleset.

    Attributes:
        rules: the ruleset that plays them.
        game: its name as written in each file's first line.
        directory: where the ``<setup>.seed<N>.txt`` files are committed.
        module: the test module's dotted name (its ``--update`` entry point).
        setups: setup name -> (seat count, options).
        seeds: the seeds played for every setup.
    """

    rules: Ruleset[Any]
    game: str
    directory: Path
    module: str
    setups: Mapping[str, tuple[int, dict[str, Any]]]
    seeds: range

    @property
    def regenerate(self) -> str:
        """The command that rewrites every file of this set."""
        return f".venv/bin/python -m {self.module} --update"

    @property
    def cases(self) -> list[tuple[str, int]]:
        """Every (setup, seed) played, in file order."""
        return [(setup, seed) for setup in sorted(self.setups) for seed in self.seeds]

    def path(self, setup: str, seed: int) -> Path:
        """Where the golden playthrough of ``setup`` and ``seed`` is committed."""
        return self.directory / f"{setup}.seed{seed}.txt"

    def event_line(self, version: int, event: DomainEvent) -> str:
        """One ``event`` line: version, type/schema, description, payload, sealed, reveals."""
        sealed = {k: {"value": v.value, "seats": list(v.seats)} for k, v in event.sealed.items()}
        hidden = f"  sealed {canonical_json(sealed)}" if sealed else ""
        reveals = f"  reveals {canonical_json(list(event.reveals))}" if event.reveals else ""
        return (
            f"event   v{version} {event.type}/{event.schema_version}  "
            f"{self.rules.describe_event(event)}  {canonical_json(dict(event.payload))}"
            f"{hidden}{reveals}"
        )

    def playthrough_lines(self, setup: str, seed: int) -> Iterator[str]:
        """The lines of one golden game: every choice drawn from ``random.Random(seed)``.

        Versions count the ruleset's events from 1 (the engine's own events are not part
        of a rules-only game). Raises AssertionError if the game ends without a result.
        """
        rules = self.rules
        seats, options = self.setups[setup]
        yield (
            f"# Golden playthrough: {self.game} {setup}, seed {seed}. Regenerate: {self.regenerate}"
        )
        yield f"setup   seats={seats} options={canonical_json(options)}"
        rng = random.Random(seed)
        state: Any = None
        version = 0
        for event in rules.setup(SetupRequest(seat_count=seats, options=options), rng):
            state = rules.evolve(state, event)
            version += 1
            yield self.event_line(version, event)
        while not rules.is_terminal(state):
            seat = rng.choice(rules.seats_to_act(state))
            legal = list(rules.legal_actions(state, seat))
            action = rng.choice(legal)
            yield (
                f"action  seat {seat} (of {len(legal)} legal)  "
                f"{rules.describe_action(action)}  {canonical_json(action)}"
            )
            new_events, state = decide_and_fold(rules, state, seat, action, rng)
            for event in new_events:
                version += 1
                yield self.event_line(version, event)
        result = rules.result(state)
        assert result is not None
        yield f"result  scores={list(result.scores)} ranking={list(result.ranking)}"

    def playthrough(self, setup: str, seed: int) -> str:
        """The whole golden file text of one game."""
        return "\n".join(self.playthrough_lines(setup, seed)) + "\n"

    def check(self, setup: str, seed: int) -> None:
        """Fail (pytest) with the first differing lines unless the game plays as recorded."""
        path = self.path(setup, seed)
        recorded = path.read_text(encoding="utf-8")
        played = self.playthrough(setup, seed)
        if played == recorded:
            return
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
            f"{shown}\nIf a rule changed on purpose: {self.regenerate}"
        )

    def play_in_subprocess(self, setup: str, seed: int, hash_seed: str) -> str:
        """The playthrough as a fresh interpreter with ``PYTHONHASHSEED=hash_seed`` plays
        it (set and dict orders of str keys change with it: none may leak into a line).

        The test module must expose this object as ``GOLDEN``.
        """
        code = (
            "import sys\n"
            f"from {self.module} import GOLDEN\n"
            f"sys.stdout.write(GOLDEN.playthrough({setup!r}, {seed}))\n"
        )
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        ).stdout

    def files_match_cases(self) -> bool:
        """True if the directory holds exactly one file per case (no stale ones)."""
        return sorted(self.directory.glob("*.txt")) == sorted(
            self.path(s, n) for s, n in self.cases
        )

    def main(self, argv: list[str]) -> int:
        """``--update``: rewrite every golden file from the current rules (stale ones go)."""
        if argv != ["--update"]:
            sys.stderr.write(f"usage: {self.regenerate}\n")
            return 2
        self.directory.mkdir(exist_ok=True)
        for stale in self.directory.glob("*.txt"):
            stale.unlink()
        for setup, seed in self.cases:
            self.path(setup, seed).write_text(self.playthrough(setup, seed), encoding="utf-8")
            sys.stdout.write(f"wrote {self.path(setup, seed)}\n")
        return 0
