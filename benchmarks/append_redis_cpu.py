"""Redis's own cost of an append: CPU, commands and bytes per move (issue 35).

``RedisEventStore.append`` calls of one-event moves (one after the other, or by several
appenders whose calls the store's script lane batches; round robin over 100 games, each chained onto the head hash the previous append returned, a command id per
move, as the engine appends), measured on the server: ``INFO cpu`` (used_cpu_sys +
used_cpu_user), ``INFO commandstats`` (calls and usec of EVALSHA and of the commands the
script runs) and ``INFO stats`` (net input and output bytes) before and after each
repetition. The server must be one of its own: a shared Redis's CPU would count other
clients' work (``eventlog_benchmark --redis-cpu`` starts an embedded one).

Shapes: :func:`measure` returns one :class:`AppendCost` per repetition; :func:`report`
prints each and the min / median / max, and the errors counted.
"""

from __future__ import annotations

import asyncio
import statistics
import uuid
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from benchmarks.harness import Errors
from services.engine.adapters import RedisEventStore
from services.engine.domain.chain import GENESIS_HASH
from services.engine.domain.records import EventMetadata
from services.engine.domain.ruleset import DomainEvent

PAYLOAD = {"seat": 1, "count": 2, "note": "x" * 64}
GAMES = 100
RECORDED_AT = "2024-01-01T00:00:00+00:00"
_OUTSIDE = {"info", "evalsha", "eval", "script|load"}
"""Commands of the measurement itself or the script's envelope, not run by the script."""


@dataclass(frozen=True)
class AppendCost:
    """One repetition's cost per move: Redis CPU (us, sys + user), commands the script
    ran, EVALSHA's own usec (commandstats: the script with its commands), and the bytes
    the server read and wrote."""

    moves: int
    cpu_us: float
    commands: float
    evalsha_us: float
    bytes_in: float
    bytes_out: float
    by_command: dict[str, tuple[float, float]]
    """Per command the script ran: (calls, usec) per move."""


async def _snapshot(client: Any) -> tuple[float, dict[str, dict[str, float]], dict[str, float]]:
    cpu = await client.info("cpu")
    stats = await client.info("commandstats")
    net = await client.info("stats")
    commands = {
        name.removeprefix("cmdstat_"): {"calls": float(v["calls"]), "usec": float(v["usec"])}
        for name, v in stats.items()
    }
    used = float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
    io = {
        "in": float(net["total_net_input_bytes"]),
        "out": float(net["total_net_output_bytes"]),
    }
    return used, commands, io


async def _one_rep(url: str, moves: int, concurrency: int, errors: Errors) -> AppendCost:
    prefix = f"cpu-{uuid.uuid4().hex[:8]}"
    store = RedisEventStore.from_url(url, prefix=prefix)
    probe = aioredis.from_url(url, decode_responses=True)
    games = [uuid.uuid4().hex for _ in range(GAMES)]
    versions = dict.fromkeys(games, 0)
    heads = dict.fromkeys(games, GENESIS_HASH)
    # One append first: the script is loaded (EVAL after NOSCRIPT) and the connections
    # open outside the measured window.
    warm = uuid.uuid4().hex
    await store.append(
        warm, 0, [DomainEvent("StonesTaken", PAYLOAD)], EventMetadata("w", 0, RECORDED_AT)
    )
    cpu0, stats0, io0 = await _snapshot(probe)
    done = 0

    async def appender(worker: int) -> None:
        # Each appender plays its own games, so none waits on another's version.
        nonlocal done
        mine = games[worker::concurrency]
        for i in range(worker, moves, concurrency):
            game = mine[(i // concurrency) % len(mine)]
            try:
                result = await store.append(
                    game,
                    versions[game],
                    [DomainEvent("StonesTaken", PAYLOAD)],
                    EventMetadata(f"c{i}", 0, RECORDED_AT),
                    prev_hash=heads[game],
                )
            except Exception as exc:
                errors.add("append", exc)
                continue
            versions[game], heads[game] = result.last_version, result.written[-1].hash
            done += 1

    await asyncio.gather(*(appender(w) for w in range(concurrency)))
    cpu1, stats1, io1 = await _snapshot(probe)
    await store.close()
    await probe.aclose()
    per = max(done, 1)

    def delta(name: str, field: str) -> float:
        return stats1.get(name, {}).get(field, 0.0) - stats0.get(name, {}).get(field, 0.0)

    inner = {
        name: (delta(name, "calls") / per, delta(name, "usec") / per)
        for name in stats1
        if name not in _OUTSIDE and delta(name, "calls") > 0
    }
    return AppendCost(
        moves=done,
        cpu_us=(cpu1 - cpu0) * 1e6 / per,
        commands=sum(calls for calls, _ in inner.values()),
        evalsha_us=delta("evalsha", "usec") / per,
        bytes_in=(io1["in"] - io0["in"]) / per,
        bytes_out=(io1["out"] - io0["out"]) / per,
        by_command=inner,
    )


async def measure(
    url: str, moves: int, reps: int, errors: Errors, concurrency: int = 1
) -> list[AppendCost]:
    """``reps`` repetitions of ``moves`` appends on the Redis at ``url`` (one of its own),
    by ``concurrency`` appenders (1: one after the other, one round trip each; more: the
    store's script lane batches those in flight, as under load); each failed append goes
    to ``errors`` and is left out of the figures."""
    if not 1 <= concurrency <= GAMES:
        raise ValueError(f"concurrency must be 1..{GAMES}")
    return [await _one_rep(url, moves, concurrency, errors) for _ in range(reps)]


def _spread(values: list[float]) -> str:
    return f"min {min(values):.1f}  median {statistics.median(values):.1f}  max {max(values):.1f}"


def report(costs: list[AppendCost], errors: Errors, concurrency: int = 1) -> None:
    """Print each repetition, then min / median / max per figure, then the errors."""
    print(
        f"Redis per move ({costs[0].moves} one-event appends, {GAMES} games, "
        f"{concurrency} appender(s)):"
    )
    for n, cost in enumerate(costs, start=1):
        commands = " ".join(
            f"{name} {calls:.2f}x {usec:.1f}us"
            for name, (calls, usec) in sorted(cost.by_command.items())
        )
        print(
            f"  rep {n}: cpu {cost.cpu_us:.1f} us  evalsha {cost.evalsha_us:.1f} us  "
            f"commands {cost.commands:.2f} ({commands})  "
            f"in {cost.bytes_in:.0f} B  out {cost.bytes_out:.0f} B"
        )
    print(f"  Redis CPU us/move      {_spread([c.cpu_us for c in costs])}")
    print(f"  EVALSHA usec/move      {_spread([c.evalsha_us for c in costs])}")
    print(f"  commands/move          {_spread([c.commands for c in costs])}")
    print(f"  bytes in/move          {_spread([c.bytes_in for c in costs])}")
    errors.report()
