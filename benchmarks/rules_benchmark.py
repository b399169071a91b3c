"""Rules engine benchmark: random legal games on one core, for any registered ruleset.

Measures (1) legal-actions + apply steps per second (apply = decide, returning the
events and the new state) and (2) the median wall time of one full random game
(Teotihuacan: 4 seats; Archaeology: 5 seats by default). Run:
``python -m benchmarks.rules_benchmark [--ruleset NAME] [--seats N] [--games N]``;
``scripts/compile_rules.sh .venv/bin/python -m benchmarks.rules_benchmark`` measures the
mypyc-compiled Teotihuacan rules (docs/performance.md). The first line printed says which
it measured. Targets (Teotihuacan): >= 50,000 steps/s and a median full game < 100 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from services.engine.rules.teotihuacan import flow
from services.engine.ruleset import SetupRequest
from services.engine.rulesets import default_registry

DEFAULT_SEATS = {"teotihuacan": 4, "archaeology": 5}


def play_one(rules: Any, seed: int, seats: int, options: dict[str, Any]) -> int:
    """Play one random game to the end; returns the number of decisions taken."""
    rng = random.Random(seed)
    state: Any = None
    for event in rules.setup(SetupRequest(seat_count=seats, options=options), rng):
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
    parser.add_argument("--ruleset", default="teotihuacan", choices=sorted(DEFAULT_SEATS))
    parser.add_argument("--seats", type=int, help="seats per game (default: 4, archaeology 5)")
    parser.add_argument(
        "--standard", action="store_true", help="teotihuacan: standard setup, not first game"
    )
    args = parser.parse_args()
    rules = default_registry().get(args.ruleset)
    seats = args.seats or DEFAULT_SEATS[args.ruleset]
    options = {"first_game": not args.standard} if args.ruleset == "teotihuacan" else {}
    times, total_steps = [], 0
    for seed in range(args.games):
        start = time.perf_counter()
        total_steps += play_one(rules, seed, seats, options)
        times.append(time.perf_counter() - start)
    elapsed = sum(times)
    setup = ("standard" if args.standard else "first_game") if options else "default"
    build = rules_build() if args.ruleset == "teotihuacan" else "interpreted"
    print(
        f"ruleset: {args.ruleset}  rules: {build}  seats: {seats}  games: {args.games}  setup: {setup}"
    )
    print(
        f"steps/s: {total_steps / elapsed:,.0f}  (steps per game: {total_steps / args.games:.0f})"
    )
    print(
        f"game ms: median {statistics.median(times) * 1000:.1f}  "
        f"p90 {statistics.quantiles(times, n=10)[-1] * 1000:.1f}  games/s {args.games / elapsed:.1f}"
    )


if __name__ == "__main__":
    main()
