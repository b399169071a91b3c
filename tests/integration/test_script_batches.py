"""Appends made while another is in flight go out as one pipeline, each with its own
outcome (real Redis)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.engine.errors import VersionConflict
from services.engine.ruleset import DomainEvent
from services.engine.store import EventMetadata, RedisEventStore
from services.engine.store.chain import verify_chain
from services.engine.store.keys import RedisKeys
from services.engine.store.records import CommandKey
from services.engine.store.script_batches import ScriptBatches

META = EventMetadata("", 0, "2024-01-01T00:00:00+00:00")


class CountingRedis(aioredis.Redis):
    """A real client that counts the pipelines it runs."""

    pipelines = 0

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        CountingRedis.pipelines += 1
        return super().pipeline(transaction, shard_hint)


@pytest.fixture
async def counting_store(redis_url: str, key_prefix: str) -> Any:
    CountingRedis.pipelines = 0
    client = CountingRedis.from_url(redis_url, decode_responses=True)
    store = RedisEventStore(client, RedisKeys(key_prefix))
    yield store
    await store.close()


def thing(n: int) -> list[DomainEvent]:
    return [DomainEvent("Thing", {"n": n})]


async def test_concurrent_appends_share_pipelines_and_each_lands(
    counting_store: RedisEventStore,
) -> None:
    games = [uuid.uuid4().hex for _ in range(40)]
    results = await asyncio.gather(*(counting_store.append(g, 0, thing(1), META) for g in games))
    assert [r.last_version for r in results] == [1] * 40
    assert 1 <= CountingRedis.pipelines < 40  # the first went alone, the rest in batches
    for game, result in zip(games, results, strict=True):
        stored = await counting_store.read(game)
        assert stored == list(result.written)
        assert verify_chain(stored, await counting_store.head(game)).ok


async def test_one_batch_on_one_game_has_one_winner_and_dedups_a_command(
    counting_store: RedisEventStore,
) -> None:
    game = uuid.uuid4().hex
    await counting_store.append(game, 0, thing(0), META)
    outcomes = await asyncio.gather(
        *(counting_store.append(game, 1, thing(n), META) for n in range(10)),
        return_exceptions=True,
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
    assert all(isinstance(o, VersionConflict) for o in outcomes if isinstance(o, BaseException))
    command = CommandKey("seat:0|same", "h" * 64)
    retries = await asyncio.gather(
        *(counting_store.append(game, 2, thing(9), META, command=command) for _ in range(5))
    )
    assert {(r.first_version, r.last_version) for r in retries} == {(3, 3)}
    assert sum(not r.duplicate for r in retries) == 1
    assert await counting_store.version(game) == 3


async def test_a_flushed_script_cache_falls_back_to_eval_for_every_call(
    counting_store: RedisEventStore,
) -> None:
    await counting_store.client.script_flush()
    games = [uuid.uuid4().hex for _ in range(12)]
    results = await asyncio.gather(*(counting_store.append(g, 0, thing(1), META) for g in games))
    assert [r.last_version for r in results] == [1] * 12
    assert [await counting_store.version(g) for g in games] == [1] * 12


async def test_a_call_given_up_before_its_batch_is_never_sent(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    key = f"test-batches-{uuid.uuid4().hex}"
    script = "return redis.call('INCR', KEYS[1])"
    sha = await client.script_load(script)
    batches = ScriptBatches(client)
    first = asyncio.ensure_future(batches.evalsha(sha, 1, key))
    await asyncio.sleep(0)  # the first is in flight: the next ones wait for it
    dropped = asyncio.ensure_future(batches.evalsha(sha, 1, key))
    kept = asyncio.ensure_future(batches.evalsha(sha, 1, key))
    await asyncio.sleep(0)
    dropped.cancel()
    assert await first == 1
    assert await kept == 2
    assert dropped.cancelled()
    assert await client.get(key) == "2"
    await client.delete(key)
    await client.aclose()
