"""Player stream benchmark (core): 10,000 open player streams, "your turn" delivery time.

One process holds ``--streams`` player streams (default 10,000) open on a NoticeHub, as a
gateway would for its connected players; another process posts ``your_turn`` notices to
random players at ``--rate`` per second for ``--seconds``, each carrying its posting
time. The stream side records post-to-delivery time per notice (one machine, one
clock). The API (WatchPlayer on gRPC and the web face) adds its own hop; this measures
the hub and Redis underneath it.

Counts as errors: a notice delivered twice, a notice never delivered, a dropped stream,
any exception. Prints min / median / p99 / max delivery time, the hub's read loops and
the stream process's CPU.
Run: ``python -m benchmarks.notices_benchmark [--streams N] [--rate R] [--seconds S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import statistics
import time
from multiprocessing.synchronize import Event as ProcessEvent
from typing import Any

from benchmarks.harness import Errors, percentile, raise_open_files, redis_url
from services.engine.adapters.redis_client import create_redis_client
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind


def poster(url: str, prefix: str, args: argparse.Namespace, go: ProcessEvent, out: Any) -> None:
    """Post ``rate`` notices a second for ``seconds`` to random players; put the count."""

    async def main() -> int:
        client = create_redis_client(url)
        inbox = RedisInbox(client, prefix)
        rng = random.Random(11)
        go.wait()
        posted = 0
        start = time.monotonic()
        total = int(args.rate * args.seconds)
        for n in range(total):
            due = start + n / args.rate
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            player = f"player-{rng.randrange(args.streams)}"
            data = {"game_id": f"g{n}", "seat": 0, "version": n, "sent": time.time()}
            await inbox.post(player, Notice(NoticeKind.YOUR_TURN, data, int(time.time() * 1000)))
            posted += 1
        await client.aclose()
        return posted

    out.put(asyncio.run(main()))


async def hold_streams(
    url: str, prefix: str, args: argparse.Namespace, go: ProcessEvent, errors: Errors
) -> tuple[list[float], dict[str, int], int, float]:
    """Open the streams, let the poster go, and collect deliveries until it is done."""
    from services.notices.hub import NoticeHub

    client = create_redis_client(url)
    hub = NoticeHub(RedisInbox(client, prefix), buffer=256)
    latencies: list[float] = []
    seen: dict[str, int] = {}

    async def stream(player: str) -> None:
        try:
            async for notice in hub.follow(player):
                latencies.append(time.time() - float(notice.data["sent"]))
                key = str(notice.data["game_id"])
                seen[key] = seen.get(key, 0) + 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            errors.add("stream", exc)

    tasks = [asyncio.create_task(stream(f"player-{n}")) for n in range(args.streams)]
    await asyncio.sleep(2.0)  # every stream subscribed (backlogs are empty)
    cpu0 = time.process_time()
    go.set()
    await asyncio.sleep(args.seconds + args.settle)
    cpu = time.process_time() - cpu0
    loops = hub.read_loops
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await hub.close()
    await client.aclose()
    return latencies, seen, loops, cpu


async def run(args: argparse.Namespace, url: str) -> int:
    errors = Errors()
    prefix = f"ntbench{random.randrange(10**9)}"
    ctx = multiprocessing.get_context("spawn")
    go, out = ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=poster, args=(url, prefix, args, go, out))
    proc.start()
    latencies, seen, loops, cpu = await hold_streams(url, prefix, args, go, errors)
    posted = out.get(timeout=60)
    proc.join(timeout=30)
    for game, count in seen.items():
        if count > 1:
            errors.add("delivered twice", RuntimeError(game))
    missing = posted - len(seen)
    for _ in range(max(0, missing)):
        errors.add("never delivered", RuntimeError("a notice"))
    print(
        f"streams: {args.streams}, notices posted: {posted} at {args.rate}/s, read loops: {loops}"
    )
    if latencies:
        print(
            "post -> delivered (ms): "
            f"min {min(latencies) * 1000:.1f} / median {statistics.median(latencies) * 1000:.1f}"
            f" / p99 {percentile(latencies, 99):.1f} / max {max(latencies) * 1000:.1f}"
        )
    print(f"stream process CPU: {cpu:.2f} s ({cpu / max(1, posted) * 1e6:.0f} µs per notice)")
    errors.report()
    return 1 if errors.total else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=200.0, help="notices per second")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    raise_open_files()
    with redis_url(args.redis_url) as url:
        raise SystemExit(asyncio.run(run(args, url)))


if __name__ == "__main__":
    main()
