"""Matchmaking core benchmark: many players seeking at once, two matchers, one real Redis.

``--players`` players (default 10,000) ask for games over ``--seconds`` (default 120) at a
steady rate: every installed ruleset, rated or casual, table sizes 2, 3, 4, 5, 2-4 or 3-5, ratings
spread as a field's are, one seek in four asking for bots after 20 s. Seeks are added
through two seek pools with their own Redis connections and placed by ``--matchers``
matcher processes (default 2) racing over the same pools: the stand-ins for two gateways
(``benchmarks.matchmaking_api_benchmark`` measures the same mix through the API).

Checks and counts as errors: a seek placed at two tables, a seek lost (neither placed nor
still waiting at the end), any exception. Prints the time from request to "table placed"
(Redis's own stream entry time minus the seek's creation time; one machine, one clock):
min / median / p99 / max, the seeks still waiting (nobody compatible came), and each
matcher process's CPU per placed player.
Run: ``python -m benchmarks.matchmaking_benchmark [--players N] [--seconds S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import time
from dataclasses import dataclass
from multiprocessing.synchronize import Event as ProcessEvent
from typing import Any

from benchmarks.harness import Errors, percentile, redis_url
from services.engine.adapters.redis_client import create_redis_client
from services.engine.domain.rulesets import installed_games
from services.matchmaking.matcher import Matcher
from services.matchmaking.redis_pool import RedisSeekPool
from services.matchmaking.seeks import RatingWindow, Seek

SEATS = [(2, 2), (3, 3), (4, 4), (5, 5), (2, 4), (3, 5)]
RULESETS = sorted(game.name for game in installed_games())
"""Every installed game's ruleset (the shipped two: seeks of both)."""


def matcher_process(url: str, prefix: str, stop: ProcessEvent, out: Any, name: str) -> None:
    """Run one matcher until ``stop``; put (name, CPU seconds, tables placed) on ``out``."""

    async def main() -> tuple[float, int]:
        client = create_redis_client(url)
        matcher = Matcher(RedisSeekPool(client, prefix), holder=name)
        cpu0 = time.process_time()
        tables = 0
        while not stop.is_set():
            tables += len(await matcher.pass_once())
            await asyncio.sleep(0.05)
        cpu = time.process_time() - cpu0
        await client.aclose()
        return cpu, tables

    cpu, tables = asyncio.run(main())
    out.put((name, cpu, tables))


@dataclass(frozen=True)
class SeekTerms:
    """What one player asks for in the mix both matchmaking benchmarks use: a ruleset,
    a seat range, rated or casual, the player's rating (ordinal points) and the seconds
    after which bots may fill the table (None: never)."""

    ruleset: str
    min_seats: int
    max_seats: int
    rated: bool
    rating: float
    bots_after_s: float | None


WINDOW = RatingWindow(5.0, 0.5)
"""Every seek's rating window: 5 points, widening by half a point a second."""


def random_terms(rng: random.Random) -> SeekTerms:
    """One player's request: every installed ruleset, sizes 2, 3, 4, 5, 2-4, 3-5, half
    rated, ratings spread as a field's (mean 20, sd 8, at least 0), one in four asking
    for bots after 20 s."""
    low, high = rng.choice(SEATS)
    return SeekTerms(
        ruleset=rng.choice(RULESETS),
        min_seats=low,
        max_seats=high,
        rated=rng.random() < 0.5,
        rating=max(0.0, rng.gauss(20.0, 8.0)),
        bots_after_s=20.0 if rng.random() < 0.25 else None,
    )


def random_seek(n: int, rng: random.Random) -> Seek:
    """Player ``n``'s seek, made now."""
    terms = random_terms(rng)
    return Seek(
        seek_id=f"seek-{n}",
        player=f"player-{n}",
        ruleset=terms.ruleset,
        min_seats=terms.min_seats,
        max_seats=terms.max_seats,
        rated=terms.rated,
        time_control="",
        rating=terms.rating,
        window=WINDOW,
        created_ms=int(time.time() * 1000),
        bots_after_s=terms.bots_after_s,
    )


async def produce(pools: list[RedisSeekPool], players: int, seconds: float, errors: Errors) -> dict[str, Seek]:  # fmt: skip
    """Add ``players`` seeks over ``seconds`` at a steady rate, alternating the pools."""
    rng = random.Random(7)
    made: dict[str, Seek] = {}
    start = time.monotonic()
    batch = max(1, players // max(1, int(seconds * 20)))
    for first in range(0, players, batch):
        due = start + seconds * first / players
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        seeks = [random_seek(n, rng) for n in range(first, min(players, first + batch))]
        results = await asyncio.gather(
            *(pools[s_n % len(pools)].add(s) for s_n, s in enumerate(seeks)),
            return_exceptions=True,
        )
        for seek, result in zip(seeks, results, strict=True):
            if isinstance(result, BaseException):
                errors.add("add", result)
            elif result.status != "added":
                errors.add("add", RuntimeError(f"{seek.seek_id}: {result.status}"))
            else:
                made[seek.seek_id] = seek
    return made


async def run(args: argparse.Namespace, url: str) -> int:
    errors = Errors()
    prefix = f"mmbench{random.randrange(10**9)}"
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=matcher_process, args=(url, prefix, stop, out, f"matcher-{i}"))
        for i in range(args.matchers)
    ]
    for proc in procs:
        proc.start()
    clients = [create_redis_client(url) for _ in range(2)]
    pools = [RedisSeekPool(c, prefix) for c in clients]
    made = await produce(pools, args.players, args.seconds, errors)
    # Let the matchers place what can be placed (and the bot fills fall due).
    settle_until = time.monotonic() + args.settle
    while time.monotonic() < settle_until:
        waiting = [s for p in await pools[0].pools() for s in await pools[0].waiting(p)]
        if not waiting:
            break
        await asyncio.sleep(0.5)
    stop.set()
    reports = [out.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)

    seated: dict[str, str] = {}
    latencies: list[float] = []
    tables = 0
    for pool in await pools[0].pools():
        entries: Any = await clients[0].xrange(pools[0].tables_key(pool))  # decoded replies
        for entry_id, fields in entries:
            table = json.loads(fields["table"])
            tables += 1
            placed_ms = int(str(entry_id).split("-")[0])
            for seek in table["seeks"]:
                if seek["seek_id"] in seated:
                    errors.add("placed twice", RuntimeError(seek["seek_id"]))
                seated[seek["seek_id"]] = table["table_id"]
                latencies.append((placed_ms - seek["created_ms"]) / 1000)
    waiting_ids = {s.seek_id for p in await pools[0].pools() for s in await pools[0].waiting(p)}
    for lost in set(made) - set(seated) - waiting_ids:
        errors.add("lost", RuntimeError(lost))
    for client in clients:
        await client.aclose()

    print(f"players: {args.players} over {args.seconds:.0f} s, matchers: {args.matchers}")
    print(f"tables placed: {tables}, players placed: {len(seated)}, still waiting: {len(waiting_ids)}")  # fmt: skip
    if latencies:
        print(
            "request -> table placed (ms): "
            f"min {min(latencies) * 1000:.0f} / median {statistics.median(latencies) * 1000:.0f} / "
            f"p99 {percentile(latencies, 99):.0f} / max {max(latencies) * 1000:.0f}"
        )
    total_cpu = sum(cpu for _, cpu, _ in reports)
    for name, cpu, placed in sorted(reports):
        print(f"  {name}: CPU {cpu:.2f} s, tables {placed}")
    if seated:
        print(f"matcher CPU per placed player: {total_cpu / len(seated) * 1e6:.0f} µs")
    errors.report()
    return 1 if errors.total else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=120.0, help="arrival window")
    parser.add_argument("--matchers", type=int, default=2)
    parser.add_argument("--settle", type=float, default=30.0, help="seconds to wait after")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    with redis_url(args.redis_url) as url:
        raise SystemExit(asyncio.run(run(args, url)))


if __name__ == "__main__":
    main()
