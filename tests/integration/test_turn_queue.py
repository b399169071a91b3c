"""Turn requests: per-shard streams, reclaim after a crash, dead letters (real Redis)."""

from __future__ import annotations

import asyncio

from services.bot.queue import TurnRequestQueue
from services.bot.worker import BotWorker
from services.engine.adapters import RedisEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient

BOTS = [SeatSpec(SeatKind.BOT, "b0"), SeatSpec(SeatKind.BOT, "b1")]


async def test_a_crashed_consumers_requests_are_reclaimed_and_games_finish(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = Engine(redis_store, registry, seed_source=fixed_seed("q"))
    games = [(await engine.create_game("nim", BOTS, {})).game_id for _ in range(3)]
    crashed = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="crashed")
    await crashed.ensure_group()
    taken = await crashed.read(10, 100)  # read, then "killed": never acked
    assert {d.request.game_id for d in taken if d.request} == set(games)

    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="survivor")
    reader = GameReader(redis_store, registry)
    bot_client = InProcessEngineClient(engine, bot_key=engine.bot_credential.secret)
    worker = BotWorker(queue, reader, bot_client, claim_idle_ms=200, block_ms=50)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        for _ in range(200):
            done = [(await reader.load(g)).is_terminal() for g in games]
            if all(done):
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await task
    for game in games:
        assert (await reader.load(game)).is_terminal()
        assert (await reader.audit(game)).ok
    for stream in redis_store.keys.all_turns():
        assert await redis_store.client.xlen(stream) == 0  # acked entries are deleted


async def test_malformed_and_too_often_delivered_requests_are_dead_lettered(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    keys = redis_store.keys
    queue = TurnRequestQueue(redis_store.client, keys, consumer="c", max_deliveries=2)
    await queue.ensure_group()
    await redis_store.client.xadd(keys.turns(0), {"game_id": "g", "seat": "x"})
    poison = await redis_store.client.xadd(
        keys.turns(1), {"game_id": "g", "seat": "0", "version": "3"}
    )
    engine = Engine(redis_store, registry)
    bot_client = InProcessEngineClient(engine, bot_key=engine.bot_credential.secret)
    worker = BotWorker(queue, GameReader(redis_store, registry), bot_client)
    for delivery in await queue.read(10, 100):
        if delivery.request is None:
            await worker._slots.acquire()
            await worker._process(delivery)
    dead0 = await redis_store.client.xrange(keys.dead_letters(0))
    assert [f["reason"] for _id, f in dead0] == ["malformed turn request"]

    # The poison request is never acked (as if every worker crashed on it).
    for _ in range(3):
        await asyncio.sleep(0.02)
        assert all(d.entry_id == poison for d in await queue.claim_stale(10, 10))
    dead1 = await redis_store.client.xrange(keys.dead_letters(1))
    assert [(f["entry_id"], f["reason"]) for _id, f in dead1] == [(poison, "delivered 3 times")]
    assert await redis_store.client.xlen(keys.turns(1)) == 0
    assert await queue.claim_stale(0, 10) == []
