"""10,000 idle watchers on one gateway: GetGame p99 and errors (issue 12).

One ``teoti engine`` and one ``teoti gateway`` process (unlimited rate and creation
quota), ``--games`` Nim games, then ``--watchers`` WatchGame streams spread over them
and over ``--channels`` client connections (the gateway allows 1,000 streams per
connection), all idle. While they are open: ``--gets`` GetGame calls (4 at a time) are
timed, Redis's connected clients are counted, and one move in each of ``--moved``
games must reach every watcher of those games. Every error (a watcher refused or
broken, a call failing, an event not delivered) is counted and printed.

Run: ``python -m benchmarks.watchers_benchmark [--redis-url URL] [--runs 3]`` from the
repository root (embedded Redis if no URL / REDIS_URL). Target: p99 < 50 ms, 0 errors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from typing import Any

import grpc
import redis.asyncio as aioredis
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from benchmarks.harness import (
    Errors,
    percentile,
    raise_open_files,
    redis_url,
    split_services,
)


async def _create_games(
    stub: Any, pb: Any, count: int, errors: Errors
) -> list[tuple[str, int, str]]:
    """(game id, version, seat 0's token) of ``count`` new two-seat Nim games."""
    seats = [pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n) for n in ("ann", "bob")]
    games: list[tuple[str, int, str]] = []
    limit = asyncio.Semaphore(32)

    async def one() -> None:
        async with limit:
            try:
                reply = await stub.CreateGame(
                    pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take":1}'),
                    timeout=60,
                )
            except grpc.aio.AioRpcError as error:
                errors.add("CreateGame", error)
                return
            token = next(t.token for t in reply.seat_tokens if t.seat == 0)
            games.append((reply.game_id, reply.version, token))

    await asyncio.gather(*(one() for _ in range(count)))
    return games


async def one_run(url: str, args: argparse.Namespace) -> dict[str, float]:
    errors = Errors()
    pb = game_service_pb2
    calls: list[Any] = []
    async with split_services(url, "watch", args.channels + 1) as channels:
        try:
            control: Any = game_service_pb2_grpc.GameServiceStub(channels[-1])
            watch_stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels[:-1]]
            games = await _create_games(control, pb, args.games, errors)
            print(f"  {len(games)} games created", flush=True)

            started = time.perf_counter()
            watched: list[int] = []
            for i in range(args.watchers):
                game_id, version, _ = games[i % len(games)]
                stub = watch_stubs[i % len(watch_stubs)]
                calls.append(
                    stub.WatchGame(pb.WatchGameRequest(game_id=game_id, from_version=version))
                )
                watched.append(i % len(games))

            async def accepted(call: Any) -> None:
                try:
                    await asyncio.wait_for(call.initial_metadata(), 120)
                except (grpc.aio.AioRpcError, TimeoutError) as error:
                    errors.add("WatchGame open", error)

            await asyncio.gather(*(accepted(call) for call in calls))
            opened = time.perf_counter() - started
            print(f"  {len(calls)} watchers open in {opened:.1f} s", flush=True)
            firsts = [asyncio.ensure_future(call.read()) for call in calls]
            await asyncio.sleep(2)  # idle

            raw = aioredis.from_url(url, decode_responses=True)
            redis_clients = int((await raw.info("clients"))["connected_clients"])
            await raw.aclose()

            latencies: list[float] = []
            rng = random.Random(1)

            async def getter(n: int) -> None:
                for _ in range(n):
                    game_id = games[rng.randrange(len(games))][0]
                    start = time.perf_counter()
                    try:
                        await control.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10)
                        latencies.append(time.perf_counter() - start)
                    except grpc.aio.AioRpcError as error:
                        errors.add("GetGame", error)

            await asyncio.gather(*(getter(args.gets // 4) for _ in range(4)))

            moved = games[: args.moved]
            for game_id, version, token in moved:
                try:
                    await control.SubmitAction(
                        pb.SubmitActionRequest(
                            game_id=game_id,
                            seat=0,
                            seat_token=token,
                            action_json='{"take":1}',
                            expected_version=version,
                        ),
                        timeout=30,
                    )
                except grpc.aio.AioRpcError as error:
                    errors.add("SubmitAction", error)
            expect = [i for i, g in enumerate(watched) if g < len(moved)]
            done, _ = await asyncio.wait([firsts[i] for i in expect], timeout=60)
            delivered = 0
            for i in expect:
                task = firsts[i]
                if task not in done:
                    errors.add("WatchGame event", TimeoutError("no event within 60 s"))
                elif task.exception() is not None:
                    errors.add("WatchGame event", task.exception())  # type: ignore[arg-type]
                elif task.result().event.version != games[watched[i]][1] + 1:
                    errors.add("WatchGame event", ValueError(f"wrong event {task.result().event}"))
                else:
                    delivered += 1
            # Idle watchers of the unmoved games must still be open (none failed).
            for i, task in enumerate(firsts):
                if watched[i] >= len(moved) and task.done():
                    errors.add("WatchGame idle", task.exception() or ValueError("stream ended"))
            for task in firsts:
                task.cancel()
            result = {
                "p50": percentile(latencies, 50),
                "p99": percentile(latencies, 99),
                "max": max(latencies) * 1000 if latencies else float("nan"),
                "errors": float(errors.total),
                "redis_clients": float(redis_clients),
                "open_s": opened,
                "delivered": float(delivered),
            }
            print(
                f"  GetGame x{len(latencies)} with {len(calls)} idle watchers: "
                f"p50 {result['p50']:.1f} ms  p99 {result['p99']:.1f} ms  max {result['max']:.1f} ms; "
                f"Redis connected clients {redis_clients}; "
                f"move delivered to {delivered}/{len(expect)} watchers",
                flush=True,
            )
            errors.report()
            return result
        finally:
            for call in calls:
                call.cancel()


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name}: min {min(values):.1f}  median {statistics.median(values):.1f}  "
        f"max {max(values):.1f}"
    )


async def run(url: str, args: argparse.Namespace) -> int:
    results = []
    for n in range(args.runs):
        print(f"run {n + 1}/{args.runs}: {args.watchers} watchers, {args.games} games", flush=True)
        results.append(await one_run(url, args))
    print(f"summary over {args.runs} runs ({args.watchers} idle watchers, one gateway):")
    for key, unit in (("p50", " ms"), ("p99", " ms"), ("max", " ms"), ("errors", "")):
        print(
            "  "
            + summary(
                f"GetGame {key}{unit}" if key != "errors" else "errors", [r[key] for r in results]
            )
        )
    print("  " + summary("Redis connected clients", [r["redis_clients"] for r in results]))
    print("  " + summary("seconds to open the watchers", [r["open_s"] for r in results]))
    failed = any(r["errors"] for r in results) or any(r["p99"] >= 50 for r in results)
    print("target (p99 < 50 ms, 0 errors):", "MISSED" if failed else "met")
    return 1 if failed else 0


def main() -> None:
    """Entry point: ``python -m benchmarks.watchers_benchmark``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--watchers", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000)
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--gets", type=int, default=2_000)
    parser.add_argument("--moved", type=int, default=100, help="games moved once")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"open files limit {raise_open_files()}", flush=True)
    with redis_url(args.redis_url) as url:
        raise SystemExit(asyncio.run(run(url, args)))


if __name__ == "__main__":
    main()
