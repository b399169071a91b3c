"""A rolling restart of the engines under load fails no command (issue 16; docs/operations.md,
"Gateway to engine" and "Engine link").

Two real ``teoti engine`` processes on one Redis, and the gateway's engine client with
games being created and played on them without pause. Each engine in turn gets SIGTERM
(as Kubernetes stops a pod: it tells its streams to drain, answers what is in flight
and stops within its grace) and is started again; then the other. Every command in that
time must succeed (the commands on the engine link), and every game's log verifies.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from services.embedded_redis import free_port
from services.engine.adapters import RedisEventStore
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_seats import hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.remote import RemoteEngineClient
from tests.faults import Proc, engine_serving

PLAYERS = 8
"""Concurrent games played through the restarts."""


@pytest.mark.slow  # 10-16 s: run by .ci/run's slow step, not the default run
async def test_a_rolling_restart_of_the_engines_fails_no_command(
    redis_url: str, registry: RulesetRegistry, tmp_path: Path
) -> None:
    prefix = f"rolling-{uuid.uuid4().hex[:8]}"
    common = ["--redis-url", redis_url, "--key-prefix", prefix, "--shards", "4"]
    nim = ["--extra-ruleset", "nim=tests.nim:NimRuleset"]
    ports = [free_port() for _ in range(2)]
    links = [free_port() for _ in range(2)]
    engines = [
        Proc(
            ["engine", "--port", str(port), "--link-port", str(link), *common, *nim],
            tmp_path / f"engine-{i}.log",
        )
        for i, (port, link) in enumerate(zip(ports, links, strict=True))
    ]
    client = RemoteEngineClient(",".join(f"127.0.0.1:{port}" for port in links), timeout_s=10)
    store = RedisEventStore.from_url(redis_url, prefix=prefix, shards=4)
    seats = [SeatSpec(SeatKind.HUMAN, name, hash_token(name * 20)) for name in "ab"]
    failures: list[str] = []
    games: list[str] = []
    moves = [0]
    stop = asyncio.Event()

    async def play() -> None:
        """Games one after another, a stone a move, until ``stop``."""
        while not stop.is_set():
            try:
                created = await client.create_game("nim", seats, {"max_take": 1})
                games.append(created.game_id)
                version, seat = created.version, 0
                for _ in range(30):
                    if stop.is_set():
                        return
                    done = await client.submit_action(
                        created.game_id, seat, {"take": 1}, expected_version=version
                    )
                    moves[0] += 1
                    version, seat = done.version, 1 - seat
                    if any(e.type == "SeedRevealed" for e in done.written):
                        break
            except Exception as error:  # every failure is counted: there must be none
                failures.append(f"{type(error).__name__}: {error}")
                await asyncio.sleep(0.05)

    try:
        for engine in engines:
            engine.start()
        await asyncio.gather(*(engine_serving(port) for port in ports))
        players = [asyncio.create_task(play()) for _ in range(PLAYERS)]
        await asyncio.sleep(1.0)
        for engine, port in zip(engines, ports, strict=True):
            before = moves[0]
            await asyncio.to_thread(engine.stop)  # SIGTERM: drain, grace, exit
            engine.start()
            await engine_serving(port)
            await asyncio.sleep(1.0)  # streams reach the restarted engine again
            assert moves[0] > before, "no move went through during a restart"
        stop.set()
        await asyncio.gather(*players)
    finally:
        stop.set()
        await client.close()
        for engine in engines:
            engine.stop()
    print(f"link: {moves[0]} moves in {len(games)} games, failures: {failures[:5]}")
    assert failures == []
    reader = GameReader(store, registry)
    for game in games:
        report = await reader.audit(game)
        assert report.ok, (game, report.problems)
    await store.close()
