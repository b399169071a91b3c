"""A Redis round trip over loopback TCP vs a Unix domain socket: the CPU it costs.

``teoti serve``'s embedded Redis listens on a Unix socket (services/embedded_redis.py);
this measures what that changes per round trip, apart from the rest of a move. The
project's own client (``RedisConfig.client``) sends ``n`` sequential GETs of a 100-byte
value, one round trip each, to an embedded redis-server listening one way, then to a
fresh one listening the other way, ``--pairs`` times alternately (TCP first). Printed per
round trip, in µs: the client's and redis-server's user and system CPU (utime and stime
from ``/proc/<pid>/stat``: CPU, not wall time, so a busy machine moves it less; 10 ms
ticks, so keep ``n`` at 50,000 or more), wall time, and the unix/TCP ratio of each pair.

Run: ``.venv/bin/python -m benchmarks.redis_transport_benchmark [--pairs 3] [-n 100000]``
from the repository root.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.embedded_redis import EmbeddedRedis
from services.engine.adapters.redis_client import RedisConfig

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def user_system_s(pid: int) -> tuple[float, float]:
    """(utime, stime) of ``pid`` in seconds (/proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


@dataclass(frozen=True)
class Run:
    """µs per round trip of one transport."""

    transport: str
    client_user: float
    client_system: float
    redis_user: float
    redis_system: float
    wall: float

    @property
    def cpu(self) -> float:
        return self.client_user + self.client_system + self.redis_user + self.redis_system


async def measure(unix_socket: bool, n: int) -> Run:
    """``n`` sequential GETs on a new embedded Redis (warmed up with 2,000 first)."""
    with EmbeddedRedis(unix_socket=unix_socket) as server:
        assert server._process is not None
        client = RedisConfig.standalone(server.url).client()
        await client.set("bench:value", "v" * 100)
        for _ in range(2000):
            await client.get("bench:value")
        redis0, client0 = user_system_s(server._process.pid), user_system_s(os.getpid())
        wall0 = time.perf_counter()
        for _ in range(n):
            await client.get("bench:value")
        wall = time.perf_counter() - wall0
        redis1, client1 = user_system_s(server._process.pid), user_system_s(os.getpid())
        await client.aclose()

    def us(before: float, after: float) -> float:
        return (after - before) * 1e6 / n

    return Run(
        "unix" if unix_socket else "tcp",
        us(client0[0], client1[0]),
        us(client0[1], client1[1]),
        us(redis0[0], redis1[0]),
        us(redis0[1], redis1[1]),
        wall * 1e6 / n,
    )


def spread(values: Sequence[float]) -> str:
    """min / median / max."""
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3, help="TCP, unix pairs run alternately")
    parser.add_argument("-n", type=int, default=100_000, help="round trips per run")
    args = parser.parse_args(argv)
    pairs: list[tuple[Run, Run]] = []
    for _ in range(args.pairs):
        tcp, unix = asyncio.run(measure(False, args.n)), asyncio.run(measure(True, args.n))
        pairs.append((tcp, unix))
        for run in (tcp, unix):
            print(
                f"{run.transport:>4}: client user {run.client_user:5.1f} sys "
                f"{run.client_system:5.1f}  redis user {run.redis_user:5.1f} sys "
                f"{run.redis_system:5.1f}  wall {run.wall:6.1f}  µs per round trip",
                flush=True,
            )
    print("\nmin / median / max; unix/tcp ratios of the pairs")
    for label in ("client_user", "client_system", "redis_user", "redis_system", "cpu", "wall"):
        tcp_values = [getattr(tcp, label) for tcp, _ in pairs]
        unix_values = [getattr(unix, label) for _, unix in pairs]
        ratios = [getattr(u, label) / getattr(t, label) for t, u in pairs if getattr(t, label)]
        print(
            f"  {label:<14} tcp {spread(tcp_values):<22} unix {spread(unix_values):<22} "
            f"ratio {spread(ratios) if ratios else '-'}"
        )


if __name__ == "__main__":
    main()
