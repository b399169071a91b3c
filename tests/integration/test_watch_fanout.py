"""Issue 12: watchers cost nothing idle, and one connection's streams starve nothing.

Hundreds of idle WatchGame streams on one connection, with a Redis pool of only 8
connections: unary calls on that same connection still answer, the hub runs at most one
read loop per watched shard, and one move reaches every watcher. A watcher that never
reads is dropped with RESOURCE_EXHAUSTED ``watch_too_slow`` and delays no one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import GatewayLimits, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.adapters import InMemoryEventStore, RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.status_mapping import status_for
from services.gateway.watch_hub import WatchHub
from services.rpc.limits import ClientRateLimiter, WatcherTooSlow

HUMANS = [SeatInfo("human", "ann"), SeatInfo("human", "bob")]
WATCHERS = 240  # more than the old pool (100), the old streams per connection (100)


async def _until(predicate: Any, seconds: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def test_idle_watchers_on_one_connection_starve_no_call(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix, shards=4, pool_size=8),
        limits=GatewayLimits(limiter=ClientRateLimiter(rate=0)),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        target = f"127.0.0.1:{stack.port}"
        async with TeotiClient(target) as client:
            games = [await client.create_game(HUMANS, options={"max_take": 1}) for _ in range(3)]
            pb = game_service_pb2
            async with grpc.aio.insecure_channel(target) as channel:
                stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
                calls = [
                    stub.WatchGame(
                        pb.WatchGameRequest(
                            game_id=games[i % 3].game_id, from_version=games[i % 3].version
                        )
                    )
                    for i in range(WATCHERS)
                ]
                firsts = [asyncio.ensure_future(call.read()) for call in calls]
                await _until(lambda: stack.hub.watchers == WATCHERS, 30, "every watcher")
                assert stack.hub.read_loops <= 3  # one per watched shard, not per watcher

                # Unary calls on the very connection holding the streams, and on others.
                stub_view = await asyncio.wait_for(
                    stub.GetGame(pb.GetGameRequest(game_id=games[0].game_id)), 5
                )
                assert stub_view.version == games[0].version
                first = games[0]
                moves = await asyncio.wait_for(
                    client.legal_actions(first.game_id, 0, first.seat_tokens[0]), 5
                )
                assert [m.action for m in moves] == [{"take": 1}]
                await asyncio.wait_for(client.create_game(HUMANS), 5)

                # One move per game reaches every watcher of that game.
                for game in games:
                    await client.submit_action(
                        game.game_id, 0, game.seat_tokens[0], {"take": 1}, game.version
                    )
                replies = await asyncio.wait_for(asyncio.gather(*firsts), 30)
                for i, reply in enumerate(replies):
                    assert reply.event.version == games[i % 3].version + 1
                for call in calls:
                    call.cancel()
        await _until(lambda: stack.hub.watchers == 0, 10, "the watchers to leave")


async def _nim_game(engine: Engine) -> str:
    seats = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]
    created = await engine.create_game("nim", seats, {"pile": 40, "max_take": 1})
    return created.game_id


async def test_a_watcher_that_never_reads_is_dropped_and_delays_no_one(
    registry: RulesetRegistry,
) -> None:
    store = InMemoryEventStore()
    engine = Engine(store, registry)
    reader = GameReader(store, registry)
    hub = WatchHub(store, block_ms=50, buffer=5)
    game = await _nim_game(engine)
    start = await store.version(game)
    stalled = hub.subscribe(game, start)
    reading = hub.follow(reader, game, start)
    seen: list[int] = []

    async def read_all() -> None:
        async for event in reading:
            seen.append(event.version)
            if len(seen) == 8:
                return

    reader_task = asyncio.ensure_future(read_all())
    await _until(lambda: hub.watchers == 2, 5, "both watchers")
    for turn in range(8):  # a Nim pile has at least 10 stones
        await engine.submit_action(game, turn % 2, {"take": 1})
        await asyncio.sleep(0.01)
    await asyncio.wait_for(reader_task, 10)
    assert seen == list(range(start + 1, start + 9))
    with pytest.raises(WatcherTooSlow) as raised:
        await stalled.take()
    code, reason, _ = status_for(raised.value) or (None, "", {})
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "watch_too_slow"
    await reading.aclose()
    await _until(lambda: hub.watchers == 0, 5, "the watchers to leave")
    await _until(lambda: hub.read_loops == 0, 5, "the read loop to stop")
    await hub.close()


async def test_a_late_watcher_catches_up_from_the_log_then_follows(
    registry: RulesetRegistry,
) -> None:
    store = InMemoryEventStore()
    engine = Engine(store, registry)
    reader = GameReader(store, registry)
    hub = WatchHub(store, block_ms=50)
    game = await _nim_game(engine)
    early = hub.follow(reader, game, 0)
    first = await early.__anext__()
    assert first.version == 1
    for turn in range(5):
        await engine.submit_action(game, turn % 2, {"take": 1})
    late = hub.follow(reader, game, 2)  # joins after the hub has read ahead
    got_late = [(await late.__anext__()).version for _ in range(5)]
    got_early = [(await early.__anext__()).version for _ in range(5)]
    end = await store.version(game)
    assert got_late == list(range(3, 8)) and got_early == list(range(2, 7))
    assert end >= 7
    await early.aclose()
    await late.aclose()
    await hub.close()


async def test_a_client_watch_dropped_for_falling_behind_resumes_without_a_gap(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """The server drops a watcher that falls behind (watch_too_slow); the client library's
    watch resumes from its last event, so a slow reader (e.g. ``teoti demo`` on a busy
    machine) still sees every event once, in order."""
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix),
        limits=GatewayLimits(limiter=ClientRateLimiter(rate=0)),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        stack.hub._buffer = 2  # drop the watcher after two unread events
        follows = 0
        follow = stack.hub.follow_batches  # what WatchGame follows a game with

        def counted(*args: Any) -> Any:
            nonlocal follows
            follows += 1
            return follow(*args)

        stack.hub.follow_batches = counted  # type: ignore[method-assign]
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            game = await client.create_game(HUMANS, options={"max_take": 1})
            seen: list[int] = []

            async def slow_reader() -> None:
                async for event in client.watch(game.game_id):
                    seen.append(event.version)
                    await asyncio.sleep(0.05)

            reader = asyncio.ensure_future(slow_reader())
            await _until(lambda: stack.hub.watchers == 1, 10, "the watcher")
            view = await client.get_game(game.game_id)
            while not view.finished:
                seat = view.seats_to_act[0]
                await client.submit_action(
                    game.game_id, seat, game.seat_tokens[seat], {"take": 1}, view.version
                )
                view = await client.get_game(game.game_id)
            await asyncio.wait_for(reader, 60)
        assert seen == list(range(1, view.version + 1))
        assert follows > 1  # the server did drop it, and the client watched again


async def test_watchers_cancelled_as_they_open_all_end(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    # As for player streams (tests/integration/test_player_notices.py): the Redis
    # client's blocking pool can swallow a cancellation landing as a command completes,
    # and a watcher of a live game then waited for events for ever.
    engine = Engine(redis_store, registry)
    seats = [SeatSpec(SeatKind.HUMAN, name, name * 32) for name in "ab"]
    created = await engine.create_game("nim", seats, {})
    hub = WatchHub(redis_store, block_ms=50)
    reader = GameReader(redis_store, registry)
    try:
        for attempt in range(12):
            streams = [hub.follow(reader, created.game_id, created.version) for _ in range(40)]
            readers = [asyncio.create_task(anext(s)) for s in streams]
            await asyncio.sleep(0.002 * (attempt % 6))
            for task in readers:
                task.cancel()
            _done, pending = await asyncio.wait(readers, timeout=10)
            assert not pending, f"a watcher went on after its cancel ({attempt})"
            assert all(task.cancelled() for task in readers)
            assert hub.watchers == 0
    finally:
        await hub.close()
