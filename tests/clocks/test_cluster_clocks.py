"""Clocks on a real 3-master Redis Cluster: a game's deadline entry lives in its slot,
and the timekeeper claims and times out games on every shard; the reconciler, which
runs beside it, reads every shard's games index."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.bot.reconciler import TurnReconciler
from services.embedded_redis import EmbeddedRedisCluster
from services.engine.adapters import RedisEventStore
from services.engine.adapters.deadlines import RedisDeadlines
from services.engine.adapters.redis_client import RedisConfig
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.records import TurnRequest
from services.engine.domain.snapshots import SnapshotCache
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from services.engine.entrypoints.timekeeper import Timekeeper
from tests.clocks.helpers import START_MS, FakeClock, clock_registry

SHARDS = 8
HUMANS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]


@pytest.fixture
async def store(cluster: EmbeddedRedisCluster) -> AsyncIterator[RedisEventStore]:
    config = RedisConfig.cluster(cluster.nodes)
    prefix = f"clk-{uuid.uuid4().hex[:8]}"
    cluster_store = RedisEventStore.from_config(config, prefix=prefix, shards=SHARDS)
    yield cluster_store
    await cluster_store.close()


async def clocked_games(
    store: RedisEventStore, seed: str, count: int
) -> tuple[FakeClock, Engine, list[str]]:
    """``count`` Nim games of two humans with a 60 s move deadline (forfeit), made by an
    engine on a hand-moved clock."""
    clock = FakeClock()
    engine = Engine(store, clock_registry(), clock=clock, seed_source=fixed_seed(seed))
    control = TimeControl(move_deadline_ms=60_000, policy=TimeoutPolicy.FORFEIT)
    games = [
        (await engine.create_game("nim", HUMANS, {}, time_control=control)).game_id
        for _ in range(count)
    ]
    return clock, engine, games


async def test_timeouts_on_every_shard_of_a_cluster(store: RedisEventStore) -> None:
    clock, engine, games = await clocked_games(store, "c", 12)
    client: Any = store.client
    for game in games:  # the deadline entry shares the game's slot (one append script)
        slots = {
            await client.cluster_keyslot(store.keys.events(game)),
            await client.cluster_keyslot(store.keys.deadlines_of(game)),
        }
        assert len(slots) == 1
    assert len({store.keys.shard_of(g) for g in games}) > 1
    deadlines = RedisDeadlines(store.client, store.keys)
    assert {await deadlines.deadline_of(g) for g in games} == {START_MS + 60_000}
    clock.at(60_000)
    assert await Timekeeper(engine, deadlines).run_once() == len(games)
    for game in games:
        types = [e.type for e in await store.read(game)]
        assert types.count("SeatForfeited") == 1


async def test_the_reconciler_reads_every_shards_index_of_a_cluster(
    store: RedisEventStore,
) -> None:
    """Each shard's first page comes in one pipeline, which a cluster client splits by
    node: a request lost on any shard is found and published again."""
    engine = Engine(store, clock_registry(), seed_source=fixed_seed("r"))
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    waiting = []
    for _ in range(10):
        game = (await engine.create_game("nim", seats, {})).game_id
        await engine.submit_action(game, 0, {"take": 1})  # the bot (seat 1) is to act
        waiting.append(TurnRequest(game, 1, (await engine.load(game)).version))
    assert len({store.keys.shard_of(r.game_id) for r in waiting}) > 1
    for shard in range(store.keys.shards):
        await store.client.delete(store.keys.turns(shard))  # every request lost
    reader = GameReader(store, clock_registry(), SnapshotCache(store, clock_registry()))
    reconciler = TurnReconciler(store.client, store.keys, reader, interval_s=1)
    assert set(await reconciler.run_once()) == set(waiting)


async def test_a_shard_whose_claim_fails_leaves_the_others_timing_out_on_a_cluster(
    store: RedisEventStore,
) -> None:
    """As on a standalone Redis (test_redis_clocks): one shard's failed claim (a key of
    the wrong type here; a master that is down in production) no longer throws away
    the other shards' claims."""
    clock, engine, games = await clocked_games(store, "w", 3)
    broken = min(set(range(SHARDS)) - {store.keys.shard_of(g) for g in games})
    await store.client.set(store.keys.deadlines(broken), "not a sorted set")
    clock.at(60_000)
    timekeeper = Timekeeper(engine, RedisDeadlines(store.client, store.keys))
    assert await timekeeper.run_once() == len(games)
