"""1,000 concurrent games through one gateway and one engine: errors and latency (issue 12).

One ``teoti engine`` and one ``teoti gateway`` process (the gateway with its default
channel pool to the engine; unlimited rate and creation quota). ``--games`` clients at
once each create a two-seat Nim game and play it to its end (10-20 moves), both seats
taking one stone per move with the expected version, over ``--channels`` client
connections. Every error (any failed CreateGame / SubmitAction, a game that did not end)
is counted and printed; the figures are games, actions, actions per second and the
SubmitAction latency.

Run: ``python -m benchmarks.games_benchmark [--redis-url URL] [--runs 3]`` from the
repository root (embedded Redis if no URL / REDIS_URL). Target: 0 errors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

import grpc
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from benchmarks.harness import (
    Errors,
    percentile,
    raise_open_files,
    redis_url,
    split_services,
)


async def play(stub: Any, pb: Any, errors: Errors, latencies: list[float]) -> int:
    """Create one game and play it to the end; returns the actions applied."""
    seats = [pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n) for n in ("ann", "bob")]
    try:
        created = await stub.CreateGame(
            pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take":1}'),
            timeout=120,
        )
    except grpc.aio.AioRpcError as error:
        errors.add("CreateGame", error)
        return 0
    tokens = {t.seat: t.token for t in created.seat_tokens}
    version, seat, actions = created.version, 0, 0
    while True:
        start = time.perf_counter()
        try:
            reply = await stub.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=created.game_id,
                    seat=seat,
                    seat_token=tokens[seat],
                    action_json='{"take":1}',
                    expected_version=version,
                ),
                timeout=120,
            )
        except grpc.aio.AioRpcError as error:
            errors.add("SubmitAction", error)
            return actions
        latencies.append(time.perf_counter() - start)
        actions += 1
        version, seat = reply.version, 1 - seat
        if actions >= 10:  # a Nim pile has 10-20 stones: ask whether it ended
            try:
                view = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id), timeout=120)
            except grpc.aio.AioRpcError as error:
                errors.add("GetGame", error)
                return actions
            if view.finished:
                return actions
            if actions > 40:
                errors.add("game", RuntimeError(f"{created.game_id} did not end"))
                return actions


async def one_run(url: str, args: argparse.Namespace) -> dict[str, float]:
    errors = Errors()
    pb = game_service_pb2
    async with split_services(url, "games", args.channels) as channels:
        game_stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
        latencies: list[float] = []
        start = time.perf_counter()
        actions = await asyncio.gather(
            *(
                play(game_stubs[i % len(game_stubs)], pb, errors, latencies)
                for i in range(args.games)
            )
        )
        elapsed = time.perf_counter() - start
    total = sum(actions)
    result = {
        "seconds": elapsed,
        "actions_per_s": total / elapsed,
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "errors": float(errors.total),
    }
    print(
        f"  {args.games} concurrent games, {total} actions in {elapsed:.1f} s "
        f"({result['actions_per_s']:.0f} actions/s); SubmitAction p50 {result['p50']:.0f} ms "
        f"p99 {result['p99']:.0f} ms",
        flush=True,
    )
    errors.report()
    return result


async def run(url: str, args: argparse.Namespace) -> int:
    results = []
    for n in range(args.runs):
        print(f"run {n + 1}/{args.runs}:", flush=True)
        results.append(await one_run(url, args))
    print(
        f"summary over {args.runs} runs ({args.games} concurrent games, one gateway, one engine):"
    )
    for key, label in (
        ("errors", "errors"),
        ("seconds", "seconds"),
        ("actions_per_s", "actions/s"),
        ("p50", "SubmitAction p50 ms"),
        ("p99", "SubmitAction p99 ms"),
    ):
        values = [r[key] for r in results]
        print(
            f"  {label}: min {min(values):.1f}  median {statistics.median(values):.1f}  "
            f"max {max(values):.1f}"
        )
    failed = any(r["errors"] for r in results)
    print("target (0 errors):", "MISSED" if failed else "met")
    return 1 if failed else 0


def main() -> None:
    """Entry point: ``python -m benchmarks.games_benchmark``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--games", type=int, default=1_000)
    parser.add_argument("--channels", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"open files limit {raise_open_files()}")
    with redis_url(args.redis_url) as url:
        raise SystemExit(asyncio.run(run(url, args)))


if __name__ == "__main__":
    main()
