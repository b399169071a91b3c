"""Recovery without a person (issue 12): caches never stay ahead of Redis, the reconciler
republishes lost turn requests, the bot worker retries transient failures at once.

Lost acknowledged writes are made the way Redis loses them: the game's keys are put back
(DUMP/RESTORE) to what they held before the last appends, as after a failover to a
lagging replica or an AOF whose last second was cut.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from services.bot import reconciler as reconciler_module
from services.bot.queue import TurnRequestQueue
from services.bot.reconciler import TurnReconciler
from services.bot.worker import BotWorker, bot_command_id
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.bot_credential import BotCredential
from services.engine.domain.engine import Engine
from services.engine.domain.errors import VersionConflict
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_seats import hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.records import TurnRequest
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache
from services.engine.transport.client import InProcessEngineClient
from tests.clocks.helpers import FakeClock

HUMANS = [
    SeatSpec(SeatKind.HUMAN, "ann", hash_token("tok-ann")),
    SeatSpec(SeatKind.HUMAN, "bob", hash_token("tok-bob")),
]


async def _dump(redis_url: str, store: RedisEventStore, game: str) -> dict[str, Any]:
    """The game's keys as Redis would restore them (None: the key did not exist)."""
    keys = [store.keys.events(game), store.keys.head(game), store.keys.commands(game)]
    binary = Redis.from_url(redis_url)  # DUMP replies are bytes
    try:
        return {key: await binary.dump(key) for key in keys}
    finally:
        await binary.aclose()


async def _restore(redis_url: str, dumped: dict[str, Any]) -> None:
    """Put the keys back as dumped: every write since is lost."""
    binary = Redis.from_url(redis_url)
    try:
        for key, value in dumped.items():
            await binary.delete(key)
            if value is not None:
                await binary.restore(key, 0, value)
    finally:
        await binary.aclose()


async def test_caches_never_stay_ahead_of_redis_after_lost_writes(
    redis_store: RedisEventStore, registry: RulesetRegistry, redis_url: str
) -> None:
    engine = Engine(redis_store, registry, snapshots=SnapshotCache(redis_store, registry))
    gateway = GameReader(redis_store, registry, SnapshotCache(redis_store, registry, save=False))
    game = (await engine.create_game("nim", HUMANS, {"max_take": 1})).game_id
    await engine.submit_action(game, 0, {"take": 1}, command_id="a-1")
    kept = await _dump(redis_url, redis_store, game)  # Redis will keep only this much
    await engine.submit_action(game, 1, {"take": 1}, command_id="b-1")
    await engine.submit_action(game, 0, {"take": 1}, command_id="a-2")
    assert (await gateway.load(game)).version == 5
    await _restore(redis_url, kept)  # ... and lose the last two acknowledged moves

    assert (await gateway.load(game)).version == 3  # the gateway's cache dropped
    # The engine's cached game is two moves ahead: the append conflicts, the engine drops
    # the cache and decides again on what Redis has, instead of ABORTED forever.
    replayed = await engine.submit_action(game, 1, {"take": 1}, command_id="b-1")
    assert replayed.version == 4
    assert (await redis_store.head(game))[0] == 4
    assert (await gateway.load(game)).version == 4
    assert (await gateway.audit(game)).ok


async def test_a_stale_expected_version_still_heals_the_cache(
    redis_store: RedisEventStore, registry: RulesetRegistry, redis_url: str
) -> None:
    engine = Engine(redis_store, registry, snapshots=SnapshotCache(redis_store, registry))
    game = (await engine.create_game("nim", HUMANS, {"max_take": 1})).game_id
    kept = await _dump(redis_url, redis_store, game)
    await engine.submit_action(game, 0, {"take": 1})
    await _restore(redis_url, kept)
    with pytest.raises(VersionConflict):  # the client's expected version (3) is gone
        await engine.submit_action(game, 1, {"take": 1}, expected_version=3)
    assert (await engine.submit_action(game, 0, {"take": 1}, expected_version=2)).version == 3


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_reconciler_republishes_a_lost_turn_request_once(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = Engine(redis_store, registry, snapshots=SnapshotCache(redis_store, registry))
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1})  # now the bot (seat 1) is to act
    reader = GameReader(redis_store, registry, SnapshotCache(redis_store, registry, save=False))
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)
    rival = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)

    async def next_pass() -> None:
        await asyncio.sleep(1.02 - time.time() % 1.0)

    await next_pass()
    assert await reconciler.run_once() == []  # the request is there: nothing to do
    stream = redis_store.keys.turns_of(game)
    for entry_id, _fields in await redis_store.client.xrange(stream):
        await redis_store.client.xdel(stream, entry_id)  # lost with the last second of AOF
    await next_pass()
    assert await reconciler.run_once() == [TurnRequest(game, 1, 3)]
    assert await rival.run_once() == []  # the same pass: the first process had the lease
    await next_pass()
    assert await rival.run_once() == []  # pending again: not published twice
    entries = await redis_store.client.xrange(stream)
    assert [TurnRequest.from_fields(f) for _, f in entries] == [TurnRequest(game, 1, 3)]


async def test_reconciler_finds_every_game_of_every_shard_over_many_pages(
    redis_store: RedisEventStore, registry: RulesetRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reconciler_module, "_INDEX_PAGE", 2)  # pages end mid-shard
    engine = Engine(redis_store, registry, snapshots=SnapshotCache(redis_store, registry))
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    waiting = []
    for _ in range(12):  # spread over the 16 shards, some holding several
        game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
        await engine.submit_action(game, 0, {"take": 1})
        waiting.append(TurnRequest(game, 1, 3))
    finished = (await engine.create_game("nim", HUMANS, {"max_take": 30})).game_id
    pile = (await engine.load(finished)).state.pile
    await engine.submit_action(finished, 0, {"take": pile})  # seat 0 takes all: it wins
    assert (await engine.load(finished)).is_terminal()
    for shard in range(redis_store.keys.shards):
        await redis_store.client.delete(redis_store.keys.turns(shard))  # every request lost
    reader = GameReader(redis_store, registry, SnapshotCache(redis_store, registry, save=False))
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)
    republished = await reconciler.run_once()
    assert sorted(republished, key=lambda r: r.game_id) == sorted(waiting, key=lambda r: r.game_id)


class _CountingReader(GameReader):
    """Counts the loads (each a round trip to the store)."""

    loads = 0

    async def load(self, game_id: str) -> Any:
        self.loads += 1
        return await super().load(game_id)


async def test_reconciler_trusts_a_finished_game_only_at_a_head_the_store_has(
    redis_store: RedisEventStore, registry: RulesetRegistry, redis_url: str
) -> None:
    """As in ``teoti serve``, the reconciler's reader shares the engine's cache."""
    snapshots = SnapshotCache(redis_store, registry)
    engine = Engine(redis_store, registry, snapshots=snapshots)
    bot_key = engine.bot_credential.secret
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    games = [(await engine.create_game("nim", seats, {"max_take": 30})).game_id for _ in range(3)]
    kept = {}
    for game in games:
        await engine.submit_action(game, 0, {"take": 1})  # the bot (seat 1) is to act
        kept[game] = await _dump(redis_url, redis_store, game)
        pile = (await engine.load(game)).state.pile
        await engine.submit_action(game, 1, {"take": pile}, bot_key=bot_key)  # it wins
        assert (await engine.load(game)).is_terminal()
    reader = _CountingReader(redis_store, registry, snapshots)
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)
    assert await reconciler.run_once() == []
    assert reader.loads == 0  # finished as cached, at the heads Redis has: no load

    await _restore(redis_url, kept[games[1]])  # Redis loses the bot's winning move...
    for shard in range(redis_store.keys.shards):
        await redis_store.client.delete(redis_store.keys.turns(shard))  # ...and its request
    fresh = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)
    await asyncio.sleep(1.02 - time.time() % 1.0)  # the next pass's lease
    assert await fresh.run_once() == [TurnRequest(games[1], 1, 3)]
    assert reader.loads == 1  # only the game whose cached end Redis no longer has


class _FlakyClient(InProcessEngineClient):
    """The engine unreachable for its first ``failures`` calls."""

    def __init__(self, engine: Engine, key: str, failures: int) -> None:
        super().__init__(engine, bot_key=key)
        self.failures = failures

    async def submit_action(self, *args: Any, **kwargs: Any) -> Any:
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionRefusedError("engine down")
        return await super().submit_action(*args, **kwargs)


async def test_bot_retries_a_transient_failure_at_once_not_after_the_claim_idle_time(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    credential = BotCredential.generate()
    engine = Engine(redis_store, registry, bot_credential=credential)
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1})
    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="t")
    client = _FlakyClient(engine, credential.secret, failures=4)
    reader = GameReader(redis_store, registry)
    worker = BotWorker(queue, reader, client, claim_idle_ms=30_000)
    await queue.ensure_group()
    stop = asyncio.Event()
    started = time.monotonic()
    task = asyncio.create_task(worker.run(stop))
    try:
        for _ in range(200):
            if (await redis_store.head(game))[0] >= 4:
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await task
    elapsed = time.monotonic() - started
    assert (await redis_store.head(game))[0] == 4 and client.failures == 0
    assert elapsed < 5, elapsed  # 4 failures: 0.1 + 0.2 + 0.4 + 0.5 s of backoff
    assert (await redis_store.read(game, 3))[0].metadata.seat == 1


async def test_reconciler_leaves_a_request_played_while_it_looked(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The bot played and deleted the request between the reconciler's load of the game
    and its read of the turn streams: the game moved on, nothing is republished."""
    engine = Engine(redis_store, registry, snapshots=SnapshotCache(redis_store, registry))
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1})  # the bot (seat 1) is to act at 3
    reader = GameReader(redis_store, registry, SnapshotCache(redis_store, registry, save=False))
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)
    seen = await reader.load(game)  # what the reconciler's pass saw
    stream = redis_store.keys.turns_of(game)
    for entry_id, _fields in await redis_store.client.xrange(stream):
        await redis_store.client.xdel(stream, entry_id)  # played and acknowledged ...
    await engine.submit_action(game, 1, {"take": 1}, bot_key=engine.bot_credential.secret)

    async def stale_view() -> list[TurnRequest]:
        return [TurnRequest(game, 1, seen.version)]

    reconciler._waiting = stale_view  # type: ignore[method-assign]
    await asyncio.sleep(1.02 - time.time() % 1.0)
    assert await reconciler.run_once() == []
    assert await redis_store.client.xrange(stream) == []


class _LookingReader(GameReader):
    """Records the games the reconciler asks about (cache or load): the entries it read."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked: set[str] = set()

    def cached(self, game_id: str) -> Any:
        self.asked.add(game_id)
        return super().cached(game_id)

    async def load(self, game_id: str) -> Any:
        self.asked.add(game_id)
        return await super().load(game_id)


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_reconciler_reads_only_recent_index_entries_and_the_games_it_saw_running(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A pass read every game ever indexed (the index is never trimmed: the work grew with
    every game played). Now a pass reads the entries created from a margin before the
    newest it has read, plus the games it saw running; a game indexed late within the
    margin (its engine's clock behind) is still found."""
    clock = FakeClock()
    snapshots = SnapshotCache(redis_store, registry)
    engine = Engine(redis_store, registry, snapshots=snapshots, clock=clock)
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]

    async def bot_waiting() -> TurnRequest:
        game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
        await engine.submit_action(game, 0, {"take": 1})  # the bot (seat 1) is to act
        return TurnRequest(game, 1, 3)

    async def lose_requests() -> None:
        for shard in range(redis_store.keys.shards):
            await redis_store.client.delete(redis_store.keys.turns(shard))

    async def next_pass() -> list[TurnRequest]:
        await asyncio.sleep(1.02 - time.time() % 1.0)  # the next pass's lease
        return await reconciler.run_once()

    old_waiting = await bot_waiting()
    old_finished = (await engine.create_game("nim", HUMANS, {"max_take": 30})).game_id
    pile = (await engine.load(old_finished)).state.pile
    await engine.submit_action(old_finished, 0, {"take": pile})  # seat 0 takes all: it wins
    reader = _LookingReader(redis_store, registry, snapshots)
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=1)
    assert await next_pass() == []  # the first pass reads every entry
    assert reader.asked == {old_waiting.game_id, old_finished}

    margin = reconciler_module.RESCAN_MARGIN_MS
    clock.advance(3 * margin)
    new_waiting = await bot_waiting()
    await lose_requests()
    reader.asked.clear()
    assert set(await next_pass()) == {old_waiting, new_waiting}
    assert reader.asked == {old_waiting.game_id, new_waiting.game_id}  # not the old finished

    clock.advance(-margin // 2)  # an engine whose clock is behind indexes a game late
    late_waiting = await bot_waiting()
    await lose_requests()
    assert set(await next_pass()) == {old_waiting, new_waiting, late_waiting}


class _FailingReader(GameReader):
    """Loads as GameReader does, except the games in ``failing``: a Redis outage there."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.failing: set[str] = set()

    async def load(self, game_id: str) -> Any:
        if game_id in self.failing:
            raise RedisConnectionError("injected: the game's node is unreachable")
        return await super().load(game_id)


async def _one_shard_bot_game(engine: Engine) -> TurnRequest:
    """A Nim game whose bot (seat 1) is to act at version 3."""
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1})
    return TurnRequest(game, 1, 3)


async def _lose_requests(store: RedisEventStore) -> None:
    for shard in range(store.keys.shards):
        await store.client.delete(store.keys.turns(shard))


async def _next_pass(reconciler: TurnReconciler) -> list[TurnRequest]:
    await asyncio.sleep(1.02 - time.time() % 1.0)  # the next pass's lease
    return await reconciler.run_once()


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_reconciler_pass_that_fails_does_not_move_its_window_past_unseen_games(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """A pass moved each shard's window as soon as it read the index, before it looked at
    the games: a pass cut short by an outage (a load that fails) left the games it had
    not looked at yet behind the next pass's window once newer games were indexed, so
    their lost requests were never republished, even after the outage."""
    store = RedisEventStore.from_url(redis_url, prefix=key_prefix, shards=1)
    try:
        clock = FakeClock()
        snapshots = SnapshotCache(store, registry)
        engine = Engine(store, registry, snapshots=snapshots, clock=clock)
        await engine.create_game("nim", HUMANS, {"max_take": 3})
        reader = _FailingReader(store, registry, snapshots)
        reconciler = TurnReconciler(store.client, store.keys, reader, interval_s=1)
        assert await _next_pass(reconciler) == []  # the window now starts at that game

        waiting = await _one_shard_bot_game(engine)
        await _lose_requests(store)
        clock.advance(3 * reconciler_module.RESCAN_MARGIN_MS)
        await engine.create_game("nim", HUMANS, {"max_take": 3})  # a newer entry
        reader.failing.add(waiting.game_id)
        with pytest.raises(RedisConnectionError):
            await _next_pass(reconciler)

        reader.failing.clear()  # the outage is over
        assert await _next_pass(reconciler) == [waiting]
    finally:
        await store.close()


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_reconciler_window_not_moved_ahead_of_its_own_clock_by_one_entry(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """One entry from an engine whose clock ran far ahead (a day) moved its shard's
    window to that time: every game indexed by the engines with the right time was
    then behind the window, and their lost requests went unrepublished for that day.
    The window now starts no later than the reconciler's own clock allows."""
    store = RedisEventStore.from_url(redis_url, prefix=key_prefix, shards=1)
    try:
        now = datetime.now(UTC)
        snapshots = SnapshotCache(store, registry)
        engine = Engine(store, registry, snapshots=snapshots, clock=FakeClock(now))
        ahead = Engine(
            store, registry, snapshots=snapshots, clock=FakeClock(now + timedelta(days=1))
        )
        await engine.create_game("nim", HUMANS, {"max_take": 3})
        reader = GameReader(store, registry, snapshots)
        reconciler = TurnReconciler(store.client, store.keys, reader, interval_s=1)
        assert await _next_pass(reconciler) == []

        await ahead.create_game("nim", HUMANS, {"max_take": 3})
        first = await _one_shard_bot_game(engine)
        await _lose_requests(store)
        assert await _next_pass(reconciler) == [first]

        second = await _one_shard_bot_game(engine)
        await _lose_requests(store)
        assert set(await _next_pass(reconciler)) == {first, second}
    finally:
        await store.close()


async def test_a_pass_that_hits_a_bug_is_logged_and_the_reconciler_goes_on(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Only outages were caught: any other error from a pass (a game whose log breaks a
    fold) ended the bot worker, and its restart read every game again and hit it again."""
    reader = GameReader(redis_store, registry, SnapshotCache(redis_store, registry))
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader, interval_s=0.01)
    stop = asyncio.Event()
    passes = 0

    async def broken_pass() -> list[TurnRequest]:
        nonlocal passes
        passes += 1
        if passes == 3:
            stop.set()
        raise RuntimeError("a fold that breaks on one game")

    reconciler.run_once = broken_pass  # type: ignore[method-assign]
    await asyncio.wait_for(reconciler.run(stop), timeout=10)
    assert passes == 3  # each failed pass was followed by the next


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_a_bot_game_moves_within_a_reconciler_pass_when_redis_lost_the_played_turn(
    redis_store: RedisEventStore, registry: RulesetRegistry, redis_url: str
) -> None:
    """Issue 30 item 6, with the product's defaults (``claim_idle_ms`` 30 s, a pass every
    DEFAULT_INTERVAL_S): the bot read a turn request, played it and acknowledged it, then
    Redis lost that last second. The request is back in the stream, pending for a
    consumer that is alive but has forgotten it, and the game waits at its version.

    Before: the reconciler counted it as pending and left it to XAUTOCLAIM, 30 s after
    its delivery (seen: 37.6 s). Now a pass republishes a request pending longer than
    STUCK_PENDING_MS whose game still waits at its version."""
    credential = BotCredential.generate()
    snapshots = SnapshotCache(redis_store, registry)
    engine = Engine(redis_store, registry, bot_credential=credential, snapshots=snapshots)
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1})  # the bot (seat 1) is to act at 3
    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="bot-alive")
    await queue.ensure_group()
    [delivery] = await queue.read(4, 100)  # delivered to the worker below
    assert delivery.request == TurnRequest(game, 1, 3)
    stream = redis_store.keys.turns_of(game)
    keys = [redis_store.keys.events(game), redis_store.keys.head(game)]
    keys += [redis_store.keys.commands(game), stream]
    binary = Redis.from_url(redis_url)
    try:
        kept = {key: await binary.dump(key) for key in keys}  # Redis will keep only this
    finally:
        await binary.aclose()
    await engine.submit_action(
        game, 1, {"take": 1}, 3, bot_command_id(delivery.request), bot_key=credential.secret
    )
    await queue.ack(delivery)  # played and acknowledged ...
    reader = GameReader(redis_store, registry, SnapshotCache(redis_store, registry, save=False))
    reconciler = TurnReconciler(redis_store.client, redis_store.keys, reader)
    worker = BotWorker(
        queue,
        reader,
        InProcessEngineClient(engine, bot_key=credential.secret),
        reconciler=reconciler,
    )  # every other setting the product's default
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        lease = reconciler_module.lease_key(redis_store.keys)
        for _ in range(200):  # the worker runs and has made its first pass
            if await redis_store.client.xlen(lease):
                break
            await asyncio.sleep(0.02)
        await _restore(redis_url, kept)  # ... then Redis lost that last second
        # The delivery was made before the outage (as in the issue, ~10 s before Redis
        # came back): XCLAIM to the same consumer with that idle time.
        await redis_store.client.xclaim(
            stream, queue.group, queue.consumer, 0, [delivery.entry_id], idle=10_000
        )
        assert (await redis_store.head(game))[0] == 3
        back = time.monotonic()
        waited = None
        while time.monotonic() - back < reconciler_module.DEFAULT_INTERVAL_S + 3:
            if (await redis_store.head(game))[0] > 3:
                waited = time.monotonic() - back
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await task
    print(f"the bot moved again {waited} s after Redis came back")
    assert waited is not None, "the game still waits for its bot"
    assert (await reader.audit(game)).ok
