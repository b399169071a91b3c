"""Event log benchmark: append latency and SubmitAction throughput vs raw XADD, one Redis.

1. Append latency: sequential ``RedisEventStore.append`` of one event (hash chain
   onto the previous append's head, Lua compare-and-append, command id) vs a plain
   ``XADD`` of the same fields, p50/p99.
2. Throughput: 100 concurrent Nim games played through the gRPC gateway (token check,
   fold, decide, append) vs 100 concurrent raw ``XADD`` writers, for ``--seconds`` each.

Every error is counted and printed (a game ending is the only refusal expected); the run
exits 1 if there was any.

Run: ``python -m benchmarks.eventlog_benchmark [--redis-url URL] [--seconds 5]`` from the
repository root (embedded Redis if no URL / REDIS_URL).

``--redis-cpu`` instead reports Redis's own cost per one-event append (CPU, commands,
bytes; :mod:`benchmarks.append_redis_cpu`, issue 35) over ``--reps`` repetitions of
``--appends`` moves, always on an embedded Redis of its own unless ``--redis-url`` names
one (REDIS_URL is not used: a shared Redis's CPU would count other clients' work).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import time
import uuid
from collections.abc import Iterator

import redis.asyncio as aioredis

from benchmarks import append_redis_cpu
from benchmarks.harness import Errors
from services.app import GatewayLimits, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.adapters import RedisEventStore
from services.engine.domain.chain import GENESIS_HASH
from services.engine.domain.errors import RuleViolation
from services.engine.domain.records import EventMetadata, canonical_json
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import default_registry
from services.logging_setup import configure_logging
from services.rpc.limits import ClientRateLimiter, CreationQuota

PAYLOAD = {"seat": 1, "count": 2, "note": "x" * 64}
CONCURRENCY = 100


def percentile(samples: list[float], q: float) -> float:
    """The q-th percentile (0..100) of ``samples`` in milliseconds."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))] * 1000


async def append_latency(url: str, prefix: str, count: int) -> tuple[list[float], list[float]]:
    """(store.append latencies, raw XADD latencies) in seconds."""
    store = RedisEventStore.from_url(url, prefix=prefix)
    raw = aioredis.from_url(url, decode_responses=True)
    meta = EventMetadata("", 0, "2024-01-01T00:00:00+00:00")
    ours: list[float] = []
    plain: list[float] = []
    games = [uuid.uuid4().hex for _ in range(100)]
    versions = dict.fromkeys(games, 0)
    # Like the engine, chain onto the head hash the last append returned: without it
    # the store would first read the head (one more round trip than the engine pays).
    heads = dict.fromkeys(games, GENESIS_HASH)
    for i in range(count):
        game = games[i % len(games)]
        event = DomainEvent("StonesTaken", PAYLOAD)
        start = time.perf_counter()
        result = await store.append(
            game,
            versions[game],
            [event],
            EventMetadata(f"c{i}", 0, meta.recorded_at),
            prev_hash=heads[game],
        )
        ours.append(time.perf_counter() - start)
        versions[game], heads[game] = result.last_version, result.written[-1].hash
        fields = {
            "type": "StonesTaken",
            "schema_version": "1",
            "payload": canonical_json(PAYLOAD),
            "command_id": f"c{i}",
            "seat": "0",
            "recorded_at": meta.recorded_at,
        }
        start = time.perf_counter()
        await raw.xadd(f"{prefix}:raw:{game}", fields)
        plain.append(time.perf_counter() - start)
    await store.close()
    await raw.aclose()
    return ours, plain


async def submit_throughput(
    url: str, prefix: str, seconds: float, errors: Errors
) -> tuple[int, float]:
    """(actions, elapsed) of CONCURRENCY clients each playing Nim games via the gateway;
    every failed call goes to ``errors`` (the game's end, RuleViolation ``game_over``,
    is how a game stops, not an error)."""
    registry = default_registry()
    from tests.nim import NimRuleset

    registry.register("nim", NimRuleset)
    async with all_in_one(
        url,
        store=StoreSettings(prefix),
        limits=GatewayLimits(limiter=ClientRateLimiter(rate=0), quota=CreationQuota(per_hour=0)),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        client = TeotiClient(f"127.0.0.1:{stack.port}")
        deadline = time.perf_counter() + seconds
        done = 0

        async def player() -> None:
            nonlocal done
            while time.perf_counter() < deadline:
                seats = [SeatInfo("human", "a"), SeatInfo("human", "b")]
                try:
                    game = await client.create_game(seats, options={"max_take": 1})
                except Exception as exc:
                    errors.add("CreateGame", exc)
                    continue
                version, seat = game.version, 0
                while time.perf_counter() < deadline:
                    try:
                        result = await client.submit_action(
                            game.game_id, seat, game.seat_tokens[seat], {"take": 1}, version
                        )
                    except RuleViolation as exc:
                        if exc.rule != "game_over":
                            errors.add("SubmitAction", exc)
                        break
                    except Exception as exc:
                        errors.add("SubmitAction", exc)
                        break
                    done += 1
                    version, seat = result.version, 1 - seat

        start = time.perf_counter()
        await asyncio.gather(*(player() for _ in range(CONCURRENCY)))
        elapsed = time.perf_counter() - start
        await client.close()
    return done, elapsed


async def xadd_throughput(
    url: str, prefix: str, seconds: float, errors: Errors
) -> tuple[int, float]:
    """(XADDs, elapsed) of CONCURRENCY concurrent raw writers."""
    raw = aioredis.from_url(url, decode_responses=True, max_connections=CONCURRENCY)
    deadline = time.perf_counter() + seconds
    done = 0

    async def writer(i: int) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            try:
                await raw.xadd(f"{prefix}:rawtp:{i}", {"payload": canonical_json(PAYLOAD)})
            except Exception as exc:
                errors.add("XADD", exc)
                continue
            done += 1

    start = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(CONCURRENCY)))
    elapsed = time.perf_counter() - start
    await raw.aclose()
    return done, elapsed


@contextlib.contextmanager
def redis_url(url: str | None) -> Iterator[str]:
    """The given URL, else an embedded redis-server for the run."""
    if url:
        yield url
        return
    from services.embedded_redis import EmbeddedRedis

    with EmbeddedRedis() as server:
        yield server.url


async def run(url: str, appends: int, seconds: float) -> int:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    ours, plain = await append_latency(url, prefix, appends)
    p50, p99 = percentile(ours, 50), percentile(ours, 99)
    r50, r99 = percentile(plain, 50), percentile(plain, 99)
    print(f"append latency ({appends} appends, 100 games, sequential):")
    print(
        f"  store.append  p50 {p50:.3f} ms  p99 {p99:.3f} ms  mean {statistics.mean(ours) * 1000:.3f} ms"
    )
    print(f"  raw XADD      p50 {r50:.3f} ms  p99 {r99:.3f} ms")
    print(f"  ratio         p50 {p50 / r50:.2f}x  p99 {p99 / r99:.2f}x")
    errors = Errors()
    actions, elapsed = await submit_throughput(url, prefix, seconds, errors)
    xadds, xelapsed = await xadd_throughput(url, prefix, seconds, errors)
    ours_tp, raw_tp = actions / elapsed, xadds / xelapsed
    print(f"throughput ({CONCURRENCY} concurrent games / writers, {seconds:.0f} s each):")
    print(f"  SubmitAction via gRPC  {ours_tp:,.0f} actions/s ({actions} actions)")
    print(f"  raw XADD               {raw_tp:,.0f} XADD/s ({xadds} entries)")
    print(f"  ratio                  {raw_tp / ours_tp:.1f}x slower than raw XADD")
    errors.report()
    return 1 if errors.total else 0


async def run_redis_cpu(url: str, appends: int, reps: int, concurrency: int) -> int:
    """The ``--redis-cpu`` report; exit status 1 if any append failed."""
    errors = Errors()
    costs = await append_redis_cpu.measure(url, appends, reps, errors, concurrency)
    append_redis_cpu.report(costs, errors, concurrency)
    return 1 if errors.total else 0


def main() -> None:
    """Entry point: ``python -m benchmarks.eventlog_benchmark``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--appends", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument(
        "--redis-cpu", action="store_true", help="report Redis CPU per append only (issue 35)"
    )
    parser.add_argument("--reps", type=int, default=3, help="repetitions of --redis-cpu")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="concurrent appenders of --redis-cpu"
    )
    args = parser.parse_args()
    configure_logging("WARNING")
    if args.redis_cpu:
        url = args.redis_url if args.redis_url != os.environ.get("REDIS_URL") else None
        with redis_url(url) as own:
            raise SystemExit(
                asyncio.run(run_redis_cpu(own, args.appends, args.reps, args.concurrency))
            )
    with redis_url(args.redis_url) as url:
        raise SystemExit(asyncio.run(run(url, args.appends, args.seconds)))


if __name__ == "__main__":
    main()
