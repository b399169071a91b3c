"""Engine CPU per accepted move, without gRPC: what the engine's own Python costs (issue 16).

An in-process :class:`Engine` on a real Redis plays ``--games`` concurrent Nim games (two
human seats, a pile of 10..20, every move takes 1, a command id per move, a finished game
replaced by a new one, so creation is part of the figure as in the peer benchmark). After
a one-second warm-up it reports, over ``--seconds``, this process's CPU time (user+system)
per accepted move in microseconds and the moves per second; ``--reps`` windows, each in a
fresh process state (a new key prefix), then min / median / max.

The peer benchmark (``benchmarks/peer_benchmark.py``) measures the whole server, where
gRPC is most of a move; this one isolates the engine, the store and redis-py, so a change
there shows above the machine's noise. Compare two versions by running each checkout's
copy in turn (A B A B).

Run from the repository root::

    .venv/bin/python -m benchmarks.engine_move_benchmark [--games 1,10,100] [--seconds 4]
        [--reps 3] [--redis-url URL]   # default: an embedded redis-server
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import uuid
from collections.abc import Sequence

from benchmarks.process_cpu import add_window_options, cpu_per_move, print_windows, run_on_redis
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache
from services.logging_setup import configure_logging
from tests.nim import NimRuleset


async def window(redis_url: str, games: int, seconds: float) -> tuple[float, float]:
    """``(CPU µs per accepted move, moves per second)`` of ``games`` concurrent games
    played for ``seconds`` after the warm-up. Raises whatever the engine raises."""
    registry = RulesetRegistry()
    registry.register("nim", NimRuleset)
    store = RedisEventStore.from_url(redis_url, prefix=f"bench-{uuid.uuid4().hex[:8]}")
    engine = Engine(store, registry, snapshots=SnapshotCache(store, registry))
    moves = 0
    stop = asyncio.Event()

    async def play() -> None:
        nonlocal moves
        while not stop.is_set():
            seats = [
                SeatSpec(SeatKind.HUMAN, name, hashlib.sha256(uuid.uuid4().bytes).hexdigest())
                for name in ("ann", "bob")
            ]
            game = await engine.create_game("nim", seats, {"max_take": 3}, uuid.uuid4().hex)
            pile = (await engine.load(game.game_id)).state.pile  # one read per game
            for taken in range(pile):  # seat 0 starts; the seat taking the last stone wins
                if stop.is_set():
                    return
                await engine.submit_action(
                    game.game_id, taken % 2, {"take": 1}, None, uuid.uuid4().hex
                )
                moves += 1

    players = [asyncio.create_task(play()) for _ in range(games)]
    try:
        return await cpu_per_move(lambda: moves, seconds)
    finally:
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
        await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_window_options(parser)
    args = parser.parse_args(argv)
    configure_logging("WARNING")

    async def measure(url: str) -> None:
        await print_windows(args.games, args.reps, lambda games: window(url, games, args.seconds))

    run_on_redis(args.redis_url, measure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
