"""kill -9 of the bot worker and of the engine, as real ``teoti`` processes, mid-run.

Games still finish after restarts, every game's hash chain verifies, no command id was
applied twice, and nothing was dead-lettered (the bot worker's commands on the engine
link).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest

from services.embedded_redis import free_port
from services.engine.adapters import RedisEventStore
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.records import SYSTEM_SEAT
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.remote import RemoteEngineClient
from tests.faults import Proc


async def wait_until(predicate, seconds: float, what: str, poll_s: float = 0.1) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(poll_s)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize(
    ("games", "rounds"),
    [
        pytest.param(10, 1, id="fast", marks=pytest.mark.slow),  # .ci/run's slow step
        pytest.param(40, 3, id="long", marks=pytest.mark.slow),
    ],
)
async def test_kill_9_engine_and_bot_mid_run(
    redis_url: str,
    registry: RulesetRegistry,
    tmp_path: Path,
    games: int,
    rounds: int,
) -> None:
    prefix = f"crash-{uuid.uuid4().hex[:8]}"
    port, link_port = free_port(), free_port()
    common = ["--redis-url", redis_url, "--key-prefix", prefix, "--shards", "4"]
    nim = ["--extra-ruleset", "nim=tests.nim:NimRuleset"]
    engine = Proc(
        ["engine", "--port", str(port), "--link-port", str(link_port), *common, *nim],
        tmp_path / "engine.log",
    )
    bot = Proc(
        [
            "bot",
            "--engine",
            f"127.0.0.1:{link_port}",
            "--claim-idle-ms",
            "500",
            "--max-deliveries",
            "100",
            *common,
            *nim,
        ],
        tmp_path / "bot.log",
    )
    store = RedisEventStore.from_url(redis_url, prefix=prefix, shards=4)
    reader = GameReader(store, registry)
    client = RemoteEngineClient(f"127.0.0.1:{link_port}", timeout_s=5)
    bots = [SeatSpec(SeatKind.BOT, f"b{i}") for i in range(3)]
    try:
        engine.start()
        ids: list[str] = []

        async def create_all() -> bool:
            try:
                while len(ids) < games:
                    created = await client.create_game(
                        "nim", bots, {"max_take": 1}, command_id=f"create-{len(ids)}"
                    )
                    ids.append(created.game_id)
            except Exception:
                return False
            return True

        await wait_until(create_all, 30, "the engine to create games")

        async def progress() -> int:
            return sum([await store.version(g) for g in ids])

        async def finished() -> bool:
            return all([(await reader.load(g)).is_terminal() for g in ids])

        start = await progress()
        killed_at: list[int] = []
        bot.start()
        for round_ in range(rounds):
            target = start + (round_ + 1) * games * 2
            # Polled often: a quiet machine's bot worker plays a game's ~15 moves in
            # about 10 ms, and a kill after every game had ended would test nothing.
            await wait_until(
                lambda t=target: _at_least(progress, t), 60, "bot progress", poll_s=0.005
            )
            bot.kill9()
            killed_at.append(await progress())
            engine.kill9()
            engine.start()
            bot.start()
        await wait_until(finished, 120, "every game to finish")
        total = await progress()
        print(f"events: {start} at start, {killed_at} at the kills, {total} at the end")
        assert all(k < total for k in killed_at)  # the kills really came mid-run
    finally:
        bot.stop()
        engine.stop()
        await client.close()

    for game in ids:
        report = await reader.audit(game)
        assert report.ok and report.seed_verified, (game, report.problems)
        events = await store.read(game)
        batches: dict[str, set[int]] = {}
        for event in events:
            if event.metadata.command_id:
                # The key each command is deduplicated under (services.engine.domain.commands).
                seat = event.metadata.seat
                scope = "create" if seat == SYSTEM_SEAT else f"seat:{seat}"
                key = f"{scope}|{event.metadata.command_id}"
                batches.setdefault(key, set()).add(event.version)
        for command_id, versions in batches.items():
            assert versions == set(range(min(versions), max(versions) + 1)), command_id
            record = await store.command_result(game, command_id)
            assert record is not None
            assert (record.first_version, record.last_version) == (min(versions), max(versions))
    for shard in range(4):
        assert await store.client.xlen(store.keys.dead_letters(shard)) == 0
    await store.close()


async def _at_least(progress, target: int) -> bool:  # type: ignore[no-untyped-def]
    return bool(await progress() >= target)
