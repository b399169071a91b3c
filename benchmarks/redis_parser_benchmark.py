"""redis-py's reply parsers compared: CPU per read with the pure-Python parser vs hiredis.

Reads a 20-entry event stream (XRANGE, the fields the store writes) plus one HGETALL,
``n`` times per parser, on an embedded Redis, and prints the client's CPU time per pair
(``time.process_time``: CPU, not wall time, so a busy machine skews it less).

Run: ``.venv/bin/python -m benchmarks.redis_parser_benchmark`` from the repository root.
"""

from __future__ import annotations

import asyncio
import time

import redis.asyncio as aioredis
from redis._parsers import _AsyncHiredisParser, _AsyncRESP2Parser

from services.embedded_redis import EmbeddedRedis


async def measure(url: str, parser: type, n: int = 3000) -> float:
    """Client CPU microseconds per (XRANGE of 20 entries + HGETALL) with ``parser``."""
    r = aioredis.from_url(url, parser_class=parser)
    key = "bench:events"
    await r.delete(key)
    for v in range(1, 21):
        await r.xadd(
            key,
            {
                "type": "StonesTaken",
                "schema_version": "1",
                "payload": '{"count":1,"seat":0}',
                "command_id": f"c{v}",
                "seat": "0",
                "recorded_at": "2024-01-01T00:00:00+00:00",
                "hash": "ab" * 32,
            },
            id=f"{v}-1",
        )
    for _ in range(200):
        await r.xrange(key)
    t0 = time.process_time()
    for _ in range(n):
        await r.xrange(key)
        await r.hgetall("nothing")
    cpu = (time.process_time() - t0) / n * 1e6
    await r.aclose()
    return cpu


async def main() -> None:
    """Three rounds, each parser in turn."""
    with EmbeddedRedis() as server:
        for rnd in range(3):
            a = await measure(server.url, _AsyncRESP2Parser)
            b = await measure(server.url, _AsyncHiredisParser)
            print(
                f"round {rnd}: python parser {a:.0f} us CPU per (XRANGE 20 entries + HGETALL), hiredis {b:.0f} us, ratio {b / a:.2f}"
            )


if __name__ == "__main__":
    asyncio.run(main())
