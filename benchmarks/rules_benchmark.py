"""Rules engine benchmark: random legal 4-seat games on one core (issue: complete base game).

Measures (1) legal-actions + apply steps per second (apply = decide, returning the
events and the new state) and (2) the median wall time
of one full random 4-seat game. Run: ``python -m benchmarks.rules_benchmark [--games N]``;
``scripts/compile_rules.sh .venv/bin/python -m benchmarks.rules_benchmark`` measures the
mypyc-compiled rules (docs/performance.md). The first line printed says which it measured.
Targets: >= 50,000 steps/s and a median full game < 100 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from services.engine.rules.teotihuacan import TeotihuacanRuleset, flow
from services.engine.ruleset import SetupRequest


def play_one(rules: TeotihuacanRuleset, seed: int, options: dict[str, Any]) -> int:
    """Play one random game to the end; returns the number of decisions taken."""
    rng = random.Random(seed)
    state: Any = None
    for event in rules.setup(SetupRequest(seat_count=4, options=options), rng):
        state = rules.evolve(state, event)
    steps = 0
    while not rules.is_terminal(state):
        seat = rng.choice(rules.seats_to_act(state))
        action = rng.choice(list(rules.legal_actions(state, seat)))
        _events, state = rules.apply(state, seat, action, rng)
        steps += 1
    return steps


def rules_build() -> str:
    """``"compiled (mypyc)"`` when the rules modules are C extensions, else ``"interpreted"``."""
    return "compiled (mypyc)" if str(flow.__file__).endswith(".so") else "interpreted"


def main() -> None:
    """Print steps/s and game-time percentiles as one JSON-ish line per measure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--standard", action="store_true", help="standard setup, not first game")
    args = parser.parse_args()
    rules = TeotihuacanRuleset()
    options = {"first_game": not args.standard}
    times, total_steps = [], 0
    for seed in range(args.games):
        start = time.perf_counter()
        total_steps += play_one(rules, seed, options)
        times.append(time.perf_counter() - start)
    elapsed = sum(times)
    setup = "standard" if args.standard else "first_game"
    print(f"rules: {rules_build()}  games: {args.games}  setup: {setup}")
    print(
        f"steps/s: {total_steps / elapsed:,.0f}  (steps per game: {total_steps / args.games:.0f})"
    )
    print(
        f"game ms: median {statistics.median(times) * 1000:.1f}  "
        f"p90 {statistics.quantiles(times, n=10)[-1] * 1000:.1f}  games/s {args.games / elapsed:.1f}"
    )


if __name__ == "__main__":
    main()
