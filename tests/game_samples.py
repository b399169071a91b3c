"""The registered games' own test material, found by convention from each game's folder.

A game is one folder (issue 31): its tests, golden games and fixture logs live in
``services/games/<name>/tests/``, and a generic test that needs a game-specific value
(option sets to sample, fixture logs to record) reads it from that folder's
``samples.py``, which declares one :class:`GameSamples` named ``SAMPLES``. Nothing here
names a game: the games are ``default_registry().names()``, so a third game's tests join
every generic test by adding its own ``samples.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.engine.domain.ruleset import info_of
from services.engine.domain.rulesets import default_registry
from tests.game_driver import Fixture

REPO = Path(__file__).resolve().parents[1]
GAMES_DIR = REPO / "services" / "games"
TEST_FIXTURE_LOGS = REPO / "tests" / "fixtures" / "logs"
"""Fixture logs of the test-only rulesets (Nim), which have no game folder."""


def no_schema_games(seed: int) -> list[Fixture]:
    """A game with nothing to add to the event-schema samples."""
    del seed
    return []


@dataclass(frozen=True)
class BenchSetup:
    """A named option set the benchmarks play (``benchmarks/rules_benchmark.py`` prints
    its name beside the figures)."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GameSamples:
    """What a game's folder gives the generic tests.

    Attributes:
        fixture_logs: the games ``scripts/record_fixture_logs.py`` recorded for this
            game, in recording order (their files: :func:`fixture_log_dir`).
        schema_games: seed -> seeded random games covering every option set of the game,
            played to infer and check its event schemas (``tests/event_schemas.py``).
        schema_events: (event type, schema version) pairs the seed-0 schema games must
            emit (tests/unit/test_event_schemas.py): the rarer ones an option set exists for.
        bench_seats: seats per game the benchmarks play by default.
        bench_setups: the option sets the benchmarks play: the first by default; the one
            named ``standard``, if any, is the game's setup with hidden information
            (``--standard``, and the log benchmarks' games).
        archive_target: (seats, bytes): the most bytes the ``z3`` archive of a finished
            game of that many seats may take (issue 34's targets;
            tests/integration/test_archive_formats.py), or None for no target.
        board_selector: the CSS selector of the game's board in the web client: its fresh
            board is compared with the screenshots in ``tests/browser/snapshots/`` of the
            game's folder (tests/browser/test_board_snapshots.py); "" for none.
    """

    fixture_logs: tuple[Fixture, ...] = ()
    schema_games: Callable[[int], list[Fixture]] = no_schema_games
    schema_events: frozenset[tuple[str, int]] = frozenset()
    bench_seats: int = 4
    bench_setups: tuple[BenchSetup, ...] = (BenchSetup("default"),)
    archive_target: tuple[int, int] | None = None
    board_selector: str = ""

    def bench_setup(self, standard: bool) -> BenchSetup:
        """The ``standard`` setup if asked for and declared, else the first."""
        named = [s for s in self.bench_setups if s.name == "standard"]
        return named[0] if standard and named else self.bench_setups[0]


def game_names() -> list[str]:
    """The registered games (the shipped rulesets), sorted."""
    return default_registry().names()


def game_seating(seats: int) -> str:
    """The first registered game (by name) whose RulesetInfo allows ``seats`` seats, for a
    generic test that needs a real game of that size. Raises LookupError if none does."""
    registry = default_registry()
    for name in registry.names():
        info = info_of(registry.get(name))
        if info.min_seats <= seats <= info.max_seats:
            return name
    raise LookupError(f"no registered game seats {seats}")


def game_dir(name: str) -> Path:
    """The folder of the game ``name`` (``services/games/<name>/``)."""
    return GAMES_DIR / name


def samples_of(name: str) -> GameSamples:
    """``SAMPLES`` of ``services.games.<name>.tests.samples``, or an empty one when the game
    has no such module (a game from another distribution need not ship its tests).

    Raises TypeError if the module's ``SAMPLES`` is not a :class:`GameSamples`.
    """
    module_name = f"services.games.{name}.tests.samples"
    if importlib.util.find_spec(f"services.games.{name}.tests") is None:
        return GameSamples()
    if importlib.util.find_spec(module_name) is None:
        return GameSamples()
    declared = importlib.import_module(module_name).SAMPLES
    if not isinstance(declared, GameSamples):
        raise TypeError(f"{module_name}.SAMPLES is {type(declared).__name__}, not GameSamples")
    return declared


def fixture_log_dir(ruleset: str) -> Path:
    """Where the fixture logs of ``ruleset`` are committed: its game folder's
    ``tests/fixture_logs/``, or ``tests/fixtures/logs/<ruleset>/`` for a test-only one."""
    if game_dir(ruleset).is_dir():
        return game_dir(ruleset) / "tests" / "fixture_logs"
    return TEST_FIXTURE_LOGS / ruleset


def archive_fixtures() -> list[Path]:
    """The archive blobs earlier versions wrote, kept to prove they still read: each game's
    ``tests/archives/<name>.json`` (game id, ruleset, head, counts), beside which
    ``<name>.z1``, ``.z2``, ``.z3`` are the same game in each format."""
    return sorted(
        path
        for name in game_names()
        for path in (game_dir(name) / "tests" / "archives").glob("*.json")
    )


def tournament_log_dirs() -> list[Path]:
    """Folders of recorded tournament logs: each game's ``tests/tournament_logs/`` (a
    tournament of its tables) and ``tests/fixtures/tournament_logs/`` (Nim's, if any)."""
    dirs = [game_dir(name) / "tests" / "tournament_logs" for name in game_names()]
    return [REPO / "tests" / "fixtures" / "tournament_logs", *dirs]


def fixture_log_dirs() -> dict[str, Path]:
    """Ruleset name -> fixture log folder, for every ruleset that has fixture logs."""
    names = {p.name for p in TEST_FIXTURE_LOGS.iterdir() if p.is_dir()}
    names.update(game_names())
    return {name: fixture_log_dir(name) for name in sorted(names)}
