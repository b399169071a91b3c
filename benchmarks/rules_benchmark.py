"""Rules engine benchmark: random legal games on one core, for every registered board game.

For each ruleset measured (by default every registered game, the default ruleset first,
each with the seats and setup its folder's samples declare, tests/game_samples.py) it plays ``--games`` seeded random games, ``--runs`` times, and prints:

- legal-actions + apply steps per second (apply = decide, returning the events and the
  new state), min / median / max over the runs;
- the wall time of one full game, min / median / max (and p90) over every game played;
- errors: games that raised or did not end within ``MAX_STEPS`` decisions (listed).

Run: ``python -m benchmarks.rules_benchmark [--ruleset all|<game>] [--seats N]
[--games N] [--runs N] [--standard] [--gc service|default]``.
The games run with the garbage collector's thresholds of the project's processes
(``services.event_loop.service_gc``), as the bot worker and ``teoti audit`` run the
rules; ``--gc default`` measures with CPython's own (700, 10, 10).
``scripts/compile_rules.sh .venv/bin/python -m benchmarks.rules_benchmark`` measures the
mypyc-compiled rules of every game (docs/performance.md); the first line printed says
which build was measured. Targets (the default ruleset): >= 50,000 steps/s and a median
full game < 100 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import random
import statistics
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from services.engine.domain.ruleset import SetupRequest, decide_and_fold
from services.engine.domain.rulesets import default_registry, default_ruleset
from services.event_loop import service_gc
from tests.game_samples import game_names, samples_of

GAMES = sorted(game_names(), key=lambda name: (name != default_ruleset(), name))
"""The games measured by default, the default ruleset first."""
MAX_STEPS = 50_000
"""Decisions after which a random game counts as an error (none comes near it)."""


def play_one(rules: Any, seed: int, seats: int, options: dict[str, Any]) -> int:
    """Play one random game to the end; returns the number of decisions taken.

    Raises RuntimeError if the game has not ended after ``MAX_STEPS`` decisions (and
    whatever the rules raise).
    """
    rng = random.Random(seed)
    state: Any = None
    for event in rules.setup(SetupRequest(seat_count=seats, options=options), rng):
        state = rules.evolve(state, event)
    steps = 0
    while not rules.is_terminal(state):
        if steps >= MAX_STEPS:
            raise RuntimeError(f"seed {seed}: no end after {MAX_STEPS} decisions")
        seat = rng.choice(rules.seats_to_act(state))
        action = rng.choice(list(rules.legal_actions(state, seat)))
        _events, state = decide_and_fold(rules, state, seat, action, rng)
        steps += 1
    return steps


def rules_build(name: str) -> str:
    """``"compiled (mypyc)"`` when ruleset ``name``'s rules modules are C extensions, else
    ``"interpreted"`` (told by the file of its ``rules/ruleset.py``, which setup.py
    compiles)."""
    module = importlib.import_module(f"services.games.{name}.rules.ruleset")
    return "compiled (mypyc)" if str(module.__file__).endswith(".so") else "interpreted"


@dataclass
class Measure:
    """One ruleset's figures.

    Attributes:
        steps_per_s: steps per second of each run.
        game_s: wall time in seconds of every game that ended.
        steps: decisions of every game that ended.
        errors: one line per game that failed.
    """

    steps_per_s: list[float] = field(default_factory=list)
    game_s: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def measure(name: str, seats: int, options: dict[str, Any], games: int, runs: int) -> Measure:
    """Play ``games`` seeded games (seeds 0..games-1) ``runs`` times; errors are counted,
    never raised."""
    rules = default_registry().get(name)
    result = Measure()
    for _ in range(runs):
        run_steps, run_s = 0, 0.0
        for seed in range(games):
            start = time.perf_counter()
            try:
                steps = play_one(rules, seed, seats, options)
            except Exception as error:  # a benchmark counts and reports errors
                last = traceback.format_exception_only(error)[-1].strip()
                result.errors.append(f"{name} seed {seed}: {last}")
                continue
            elapsed = time.perf_counter() - start
            result.game_s.append(elapsed)
            result.steps.append(steps)
            run_steps += steps
            run_s += elapsed
        if run_s:
            result.steps_per_s.append(run_steps / run_s)
    return result


def _spread(values: list[float], fmt: str) -> str:
    if not values:
        return "n/a"
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"min {low:{fmt}} / median {mid:{fmt}} / max {high:{fmt}}"


def report(name: str, seats: int, setup: str, games: int, runs: int, m: Measure) -> None:
    """Print one ruleset's block (the benchmark's output is its report)."""
    build = rules_build(name)
    print(
        f"ruleset: {name}  rules: {build}  seats: {seats}  setup: {setup}  "
        f"games: {games} x {runs} runs"
    )
    per_game = statistics.mean(m.steps) if m.steps else 0.0
    print(f"  steps/s: {_spread(m.steps_per_s, ',.0f')}  (steps per game: {per_game:.0f})")
    game_ms = [s * 1000 for s in m.game_s]
    p90 = statistics.quantiles(game_ms, n=10)[-1] if len(game_ms) > 1 else float("nan")
    print(f"  game ms: {_spread(game_ms, '.1f')}  p90 {p90:.1f}")
    print(f"  errors: {len(m.errors)}")
    for line in m.errors[:10]:
        print(f"    {line}")


def main() -> None:
    """Measure the chosen rulesets one after the other and print their blocks."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100, help="games per run (default 100)")
    parser.add_argument("--runs", type=int, default=3, help="runs per ruleset (default 3)")
    parser.add_argument("--ruleset", default="all", choices=["all", *GAMES])
    parser.add_argument("--seats", type=int, help="seats per game (default: the game's)")
    parser.add_argument(
        "--standard", action="store_true", help="each game's standard setup, if it has one"
    )
    parser.add_argument(
        "--gc",
        choices=("service", "default"),
        default="service",
        help="collector thresholds: the services' (as bots and audits run), or CPython's",
    )
    args = parser.parse_args()
    names = GAMES if args.ruleset == "all" else [args.ruleset]
    builds = "; ".join(f"{name}: {rules_build(name)}" for name in GAMES)
    collector = service_gc() if args.gc == "service" else contextlib.nullcontext()
    with collector:
        print(f"rules build: {builds}  gc thresholds: {gc.get_threshold()}")
        for name in names:
            _measure_and_report(name, args)


def _measure_and_report(name: str, args: argparse.Namespace) -> None:
    """Measure ruleset ``name`` as ``args`` say and print its block."""
    samples = samples_of(name)
    seats = args.seats or samples.bench_seats
    setup = samples.bench_setup(args.standard)
    result = measure(name, seats, dict(setup.options), args.games, args.runs)
    report(name, seats, setup.name, args.games, args.runs, result)


if __name__ == "__main__":
    main()
