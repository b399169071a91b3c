"""Clocks on a real Redis: the deadlines set, racing timekeepers, a forfeited seat's
zombie finishing a game (Nim's, the default ruleset's) through the bot worker, and
CreateGame over gRPC."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2

from services.bot.queue import TurnRequestQueue
from services.bot.reconciler import TurnReconciler
from services.bot.worker import BotWorker
from services.engine.adapters import RedisEventStore
from services.engine.adapters.deadlines import RedisDeadlines
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.records import TurnRequest
from services.engine.domain.rulesets import default_ruleset
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from services.engine.entrypoints.timekeeper import Timekeeper, TimekeeperSettings
from services.engine.transport.client import InProcessEngineClient
from services.metrics.families import CLOCKS_FLAGGED
from services.rpc.errors import error_info
from tests.clocks.helpers import START_MS, FakeClock, clock_registry
from tests.integration.helpers import game_service

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]
FORFEIT_LIVE = TimeControl(base_ms=60_000, increment_ms=2_000, policy=TimeoutPolicy.FORFEIT)
LEASE_MS = 5_000


def keeper_of(engine: Engine, store: RedisEventStore) -> Timekeeper:
    return Timekeeper(
        engine, RedisDeadlines(store.client, store.keys), TimekeeperSettings(lease_ms=LEASE_MS)
    )


async def test_the_append_keeps_the_deadline_and_two_racing_timekeepers_time_out_once(
    redis_store: RedisEventStore,
) -> None:
    clock = FakeClock()
    registry = clock_registry()
    # Two engine processes (own caches) on one Redis, each with its timekeeper.
    one = Engine(redis_store, registry, clock=clock, seed_source=fixed_seed("r"))
    two = Engine(redis_store, registry, clock=clock, seed_source=fixed_seed("r"))
    deadlines = RedisDeadlines(redis_store.client, redis_store.keys)
    game = (await one.create_game("nim", HUMANS, {}, time_control=FORFEIT_LIVE)).game_id
    assert await deadlines.deadline_of(game) == START_MS + 60_000
    clock.at(5_000)
    await one.submit_action(game, 0, {"take": 1})
    assert await deadlines.deadline_of(game) == START_MS + 5_000 + 60_000
    clock.at(65_000)
    flagged = CLOCKS_FLAGGED.value()
    done = await asyncio.gather(
        keeper_of(one, redis_store).run_once(), keeper_of(two, redis_store).run_once()
    )
    assert sorted(done) == [0, 1]
    events = await redis_store.read(game)
    assert [e.type for e in events].count("SeatTimedOut") == 1
    assert CLOCKS_FLAGGED.value() - flagged == 1  # teoti_clocks_flagged_total (issue 34)
    timed_out = next(e for e in events if e.type == "SeatTimedOut")
    assert timed_out.payload == {
        "seat": 1,
        "deadline_ms": START_MS + 65_000,
        "timeout_policy": "forfeit",
    }
    assert await deadlines.deadline_of(game) is None  # seat 0's clock waits for the zombie


async def test_a_timekeeper_dying_after_its_claim_delays_the_timeout_by_the_lease(
    redis_store: RedisEventStore,
) -> None:
    clock = FakeClock()
    engine = Engine(redis_store, clock_registry(), clock=clock, seed_source=fixed_seed("d"))
    deadlines = RedisDeadlines(redis_store.client, redis_store.keys)
    game = (await engine.create_game("nim", HUMANS, {}, time_control=FORFEIT_LIVE)).game_id
    clock.at(60_000)
    claims = await deadlines.claim_due(START_MS + 60_000, LEASE_MS, 10)
    assert [c.game_id for c in claims] == [game]  # ... and that timekeeper is killed here
    survivor = keeper_of(engine, redis_store)
    assert await survivor.run_once() == 0  # still leased
    clock.at(60_000 + LEASE_MS)
    assert await survivor.run_once() == 1
    # The dead one's claim, handled late, finds nothing due and changes nothing.
    assert await survivor.time_out(claims[0]) == 0
    types = [e.type for e in await redis_store.read(game)]
    assert types.count("SeatTimedOut") == 1


async def test_claims_come_from_every_shard_with_or_without_the_script_loaded(
    redis_store: RedisEventStore,
) -> None:
    """A pass asks every shard (one EVALSHA each, pipelined); a Redis that lost its
    scripts (a restart) is sent the script itself and claims the same."""
    clock = FakeClock()
    engine = Engine(redis_store, clock_registry(), clock=clock, seed_source=fixed_seed("p"))
    deadlines = RedisDeadlines(redis_store.client, redis_store.keys)
    games = [
        (await engine.create_game("nim", HUMANS, {}, time_control=FORFEIT_LIVE)).game_id
        for _ in range(6)
    ]
    assert len({redis_store.keys.shard_of(g) for g in games}) > 1
    await redis_store.client.script_flush()
    claims = await deadlines.claim_due(START_MS + 60_000, LEASE_MS, 10)
    assert sorted(c.game_id for c in claims) == sorted(games)
    assert {c.lease_until_ms for c in claims} == {START_MS + 60_000 + LEASE_MS}
    for game in games:  # leased: not due again until the lease ends
        assert await deadlines.deadline_of(game) == START_MS + 60_000 + LEASE_MS
    assert await deadlines.claim_due(START_MS + 60_000, LEASE_MS, 10) == []


async def _wait_until(condition: Any, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` (an async callable) while the bot worker plays."""
    for _ in range(int(timeout_s / 0.02)):
        if await condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


@pytest.mark.parametrize("ruleset", ["nim", default_ruleset()])
async def test_a_forfeited_seat_is_played_by_the_zombie_and_ranked_last(
    redis_store: RedisEventStore, ruleset: str
) -> None:
    clock = FakeClock()
    registry = clock_registry()
    engine = Engine(redis_store, registry, clock=clock, seed_source=fixed_seed("z"))
    seats = [SeatSpec(SeatKind.HUMAN, "absent", "a" * 64), SeatSpec(SeatKind.BOT, "bot")]
    control = TimeControl(move_deadline_ms=86_400_000, policy=TimeoutPolicy.FORFEIT)
    game = (await engine.create_game(ruleset, seats, {}, time_control=control)).game_id
    reader = GameReader(redis_store, registry)
    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="zombie")
    bot_client = InProcessEngineClient(engine, bot_key=engine.bot_credential.secret)
    worker = BotWorker(queue, reader, bot_client, block_ms=50)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:

        async def absent_player_to_act() -> bool:
            return 0 in (await engine.load(game)).seats_to_act()

        await _wait_until(absent_player_to_act)
        snapshot = await engine.load(game)
        assert snapshot.clock is not None
        deadline = snapshot.clock.clocks[0].deadline_ms
        assert deadline is not None
        clock.at(deadline - START_MS)
        assert await keeper_of(engine, redis_store).run_once() == 1

        async def finished() -> bool:
            return (await reader.load(game)).is_terminal()

        await _wait_until(finished, 240.0)
    finally:
        stop.set()
        await task
    final = await reader.load(game)
    result = final.result()
    assert result is not None and result.ranking[-1] == 0
    assert final.clock is not None and final.clock.forfeited == (0,)
    assert (await reader.audit(game)).ok


@pytest.fixture(params=["in_process", "remote_engine"])
async def stub(request: pytest.FixtureRequest, redis_store: RedisEventStore) -> AsyncIterator[Any]:
    registry = clock_registry()
    engine = Engine(redis_store, registry, clock=FakeClock())
    async with game_service(engine, GameReader(redis_store, registry), request.param) as s:
        yield s


def _create(ruleset: str, control: Any) -> Any:
    pb = game_service_pb2
    seats = [pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n) for n in ("ann", "bob")]
    return pb.CreateGameRequest(ruleset=ruleset, seats=seats, time_control=control)


async def test_create_game_refuses_bad_time_controls_naming_the_rule(stub: Any) -> None:
    pb = game_service_pb2
    cases = [
        (
            "nim",
            pb.TimeControl(base_ms=-1, timeout_policy=pb.TIMEOUT_POLICY_FORFEIT),
            "time_control_invalid",
        ),
        ("nim", pb.TimeControl(timeout_policy=pb.TIMEOUT_POLICY_FORFEIT), "time_control_invalid"),
        ("nim", pb.TimeControl(increment_ms=5, move_deadline_ms=60_000), "time_control_invalid"),
        ("nim", pb.TimeControl(base_ms=60_000, timeout_policy=7), "time_control_invalid"),
        ("nim", pb.TimeControl(base_ms=60_000), "timeout_policy_unsupported"),
    ]
    for ruleset, control, reason in cases:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.CreateGame(_create(ruleset, control))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
        detail = error_info(info.value)
        assert detail is not None and detail.reason == reason


async def test_create_game_with_a_time_control_shows_it_and_the_clocks(stub: Any) -> None:
    pb = game_service_pb2
    control = pb.TimeControl(
        base_ms=300_000, increment_ms=3_000, timeout_policy=pb.TIMEOUT_POLICY_BOT_TAKEOVER
    )
    reply = await stub.CreateGame(_create("botnim", control))
    game = await stub.GetGame(pb.GetGameRequest(game_id=reply.game_id))
    assert game.time_control == control
    assert [c.seat for c in game.clocks] == [0, 1]
    assert game.clocks[0].remaining_ms == 300_000
    assert game.clocks[0].deadline_ms == START_MS + 300_000
    assert not game.clocks[1].HasField("deadline_ms")
    untimed = await stub.CreateGame(_create("nim", None))
    plain = await stub.GetGame(pb.GetGameRequest(game_id=untimed.game_id))
    assert not plain.HasField("time_control") and not plain.clocks


async def test_a_lost_turn_request_of_a_taken_over_seat_is_republished(
    redis_store: RedisEventStore,
) -> None:
    clock = FakeClock()
    registry = clock_registry()
    engine = Engine(redis_store, registry, clock=clock, seed_source=fixed_seed("l"))
    control = TimeControl(move_deadline_ms=60_000, policy=TimeoutPolicy.BOT_TAKEOVER)
    game = (await engine.create_game("botnim", HUMANS, {}, time_control=control)).game_id
    clock.at(60_000)
    assert await keeper_of(engine, redis_store).run_once() == 1
    stream = redis_store.keys.turns_of(game)
    assert await redis_store.client.xlen(stream) == 1  # the takeover's turn request
    await redis_store.client.delete(stream)  # ... lost (a failover)
    reconciler = TurnReconciler(
        redis_store.client, redis_store.keys, GameReader(redis_store, registry)
    )
    version = (await engine.load(game)).version
    assert await reconciler.run_once() == [TurnRequest(game, 0, version)]


async def test_one_shard_whose_claim_fails_leaves_the_other_shards_timeouts_firing(
    redis_store: RedisEventStore,
) -> None:
    """One shard's claim that failed (here a key of the wrong type there; on a cluster, a
    master that is down) raised out of the pass after the other shards had claimed
    their games: their leases were thrown away, so no clock anywhere ran out while
    that one shard failed (each pass re-claimed the games, a lease later, and dropped
    them again). Now the other shards' games time out and the failure is logged."""
    clock = FakeClock()
    engine = Engine(redis_store, clock_registry(), clock=clock, seed_source=fixed_seed("s"))
    games = [
        (await engine.create_game("nim", HUMANS, {}, time_control=FORFEIT_LIVE)).game_id
        for _ in range(4)
    ]
    used = {redis_store.keys.shard_of(g) for g in games}
    broken = min(set(range(redis_store.keys.shards)) - used)
    await redis_store.client.set(redis_store.keys.deadlines(broken), "not a sorted set")
    deadlines = RedisDeadlines(redis_store.client, redis_store.keys)
    clock.at(60_000)
    assert await Timekeeper(engine, deadlines).run_once() == len(games)
    for game in games:
        types = [e.type for e in await redis_store.read(game)]
        assert types.count("SeatTimedOut") == 1
