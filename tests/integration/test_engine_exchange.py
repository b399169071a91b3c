"""The gateway's commands multiplexed on open streams, the engine link's connections
(issue 16).

A real engine's link on loopback, a real Redis, the gated engine of
tests.integration.exchange_engine ("held..." commands wait for the test).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from services.embedded_redis import free_port
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.command_result import CommandResult
from services.engine.domain.errors import InvalidArgument, RuleViolation, VersionConflict
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.exchange_client import ExchangeStream
from services.engine.transport.remote import RemoteEngineClient
from services.engine.transport.status_mapping import outage_of
from services.rpc import deadlines
from tests.integration.exchange_engine import (
    HUMANS,
    GatedEngine,
    create_request,
    engine_link,
    link_server,
    start_held,
    until,
)


async def test_many_concurrent_calls_share_one_stream_and_are_answered_out_of_order(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with (
        link_server(redis_store, registry) as (engine, _, port),
        RemoteEngineClient(f"127.0.0.1:{port}", channels=1, streams_per_channel=1) as client,
    ):
        held = await start_held(client, engine, "held-1")
        # 200 calls overtake the held one on the same stream, all at once.
        created = await asyncio.gather(
            *(client.create_game("nim", HUMANS, {"max_take": 3}) for _ in range(200))
        )
        moved = await asyncio.gather(
            *(client.submit_action(c.game_id, 0, {"take": 1}) for c in created)
        )
        assert not held.done()
        engine.gate.release.set()
        assert (await held).version == created[0].version
        assert len({c.game_id for c in created}) == 200
        assert all(m.version == c.version + 1 for m, c in zip(moved, created, strict=True))
        assert all(len(m.written) == 1 for m in moved)
        streams = [s for s in client._exchange._streams if s is not None]  # type: ignore[union-attr]
        assert len(streams) == 1


async def test_a_full_stream_stops_reading_until_a_command_finishes(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Back-pressure: beyond max_in_flight commands the engine starts nothing more of
    the stream (the rest waits unread), and catches up when one finishes."""
    async with engine_link(redis_store, registry, max_in_flight=2) as (engine, link):
        stream = ExchangeStream(link)
        calls = [
            asyncio.create_task(stream.call(create_request(f"held-{i}"), 10)) for i in range(3)
        ]
        await until(lambda: len(engine.gate.started) == 2, "two commands to start")
        await asyncio.sleep(0.3)
        assert len(engine.gate.started) == 2, "a third command started beyond the bound"
        engine.gate.release.set()
        answers = await asyncio.gather(*calls)
        assert len(engine.gate.started) == 3
        assert all(a.WhichOneof("result") == "create_game" for a in answers)
        stream.cancel()
        await stream.reader


async def test_refusals_carry_the_same_status_and_reason_on_the_link(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with (
        link_server(redis_store, registry) as (_, _, port),
        RemoteEngineClient(f"127.0.0.1:{port}") as client,
    ):
        game = await client.create_game("nim", HUMANS, {"max_take": 3})
        with pytest.raises(RuleViolation) as illegal:
            await client.submit_action(game.game_id, 0, {"take": 9})
        assert illegal.value.rule == "nim.take_range"
        with pytest.raises(VersionConflict) as stale:
            await client.submit_action(game.game_id, 0, {"take": 1}, expected_version=0)
        assert (stale.value.expected, stale.value.actual) == (0, game.version)
        ok = await client.submit_action(game.game_id, 0, {"take": 1}, game.version)
        assert ok.version == game.version + 1


async def test_withdraw_seat_goes_on_the_link(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Issue 30 item 4: a tournament's WithdrawPlayer settles the seat through the engine
    (Engine.withdraw_seat) on the link the gateway and director reach it by."""
    from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy

    control = TimeControl(move_deadline_ms=86_400_000, policy=TimeoutPolicy.FORFEIT)
    async with (
        link_server(redis_store, registry) as (_, _, port),
        RemoteEngineClient(f"127.0.0.1:{port}") as client,
    ):
        game = await client.create_game("nim", HUMANS, {}, time_control=control)
        settled = await client.withdraw_seat(game.game_id, 0)
        assert (settled.first_version, settled.version) == (game.version + 1, game.version + 2)
        types = [e.type for e in await redis_store.read(game.game_id, game.version)]
        assert types == ["SeatForfeited", "ClocksUpdated"]
        again = await client.withdraw_seat(game.game_id, 0)
        assert again.first_version == again.version == settled.version
        with pytest.raises(InvalidArgument):
            await client.withdraw_seat(game.game_id, 5)


async def test_a_stream_breaking_under_calls_fails_them_unavailable_then_reopens(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The engine killed mid-call: the call fails UNAVAILABLE (an engine outage at the
    gateway, never INTERNAL); calls while it is down too; once it is back, calls succeed
    again on a new stream with nothing else done."""
    port = free_port()
    client = RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=5, channels=1)
    try:
        async with link_server(redis_store, registry, port) as (engine, server, _):
            assert (await client.create_game("nim", HUMANS, {})).version > 0
            held = await start_held(client, engine, "held-kill")
            await server.stop(0)
            with pytest.raises(grpc.aio.AioRpcError) as broken:
                await held
        assert broken.value.code() == grpc.StatusCode.UNAVAILABLE
        assert (outage := outage_of(broken.value)) is not None and outage.service == "engine"
        with pytest.raises(grpc.aio.AioRpcError) as down:
            await client.create_game("nim", HUMANS, {})
        assert down.value.code() == grpc.StatusCode.UNAVAILABLE
        async with link_server(redis_store, registry, port):
            started = time.monotonic()
            while True:
                try:
                    created = await client.create_game("nim", HUMANS, {})
                    break
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                    assert time.monotonic() - started < 5, "still failing 5 s after the restart"
                    await asyncio.sleep(0.1)
            assert created.version > 0
    finally:
        await client.close()


async def test_the_callers_deadline_bounds_the_wait_and_stops_the_engines_work(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with (
        link_server(redis_store, registry) as (engine, _, port),
        RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=10, channels=1) as client,
    ):

        class Caller:  # a gateway's incoming call with 0.3 s left
            def time_remaining(self) -> float:
                return 0.3

        async def call_with_deadline() -> None:
            deadlines.record(Caller())
            await client.create_game("nim", HUMANS, {}, "held-deadline")

        started = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as late:
            await asyncio.create_task(call_with_deadline())  # its own context
        assert late.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert 0.25 < time.monotonic() - started < 2
        await until(lambda: engine.gate.cancelled == ["held-deadline"], "the engine to stop")
        assert (await client.create_game("nim", HUMANS, {})).version > 0


async def test_a_cancelled_caller_leaves_nothing_behind(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with (
        link_server(redis_store, registry) as (engine, _, port),
        RemoteEngineClient(f"127.0.0.1:{port}", channels=1, streams_per_channel=1) as client,
    ):
        caller = await start_held(client, engine, "held-cancel")
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        await until(lambda: engine.gate.cancelled == ["held-cancel"], "the engine to stop")
        (stream,) = client._exchange._streams  # type: ignore[union-attr]
        assert stream is not None and not stream._pending and stream.usable
        # The same stream goes on serving.
        assert (await client.create_game("nim", HUMANS, {})).version > 0
        assert client._exchange._streams == [stream]  # type: ignore[union-attr]


@dataclass
class Draining:
    """An engine with the event ``teoti engine`` sets on SIGTERM (``stopping``), a client
    with one stream to it (``old``), and a call held on that stream."""

    engine: GatedEngine
    stopping: asyncio.Event
    client: RemoteEngineClient
    held: asyncio.Task[CommandResult]
    old: ExchangeStream


@asynccontextmanager
async def draining_setup(
    store: RedisEventStore, registry: RulesetRegistry, held_id: str
) -> AsyncIterator[Draining]:
    """:class:`Draining` with ``held_id``'s call held on the client's one stream."""
    stopping = asyncio.Event()
    async with (
        link_server(store, registry, stopping=stopping) as (engine, _, port),
        RemoteEngineClient(f"127.0.0.1:{port}", channels=1, streams_per_channel=1) as client,
    ):
        held = await start_held(client, engine, held_id)
        (old,) = client._exchange._streams  # type: ignore[union-attr]
        assert old is not None
        yield Draining(engine, stopping, client, held, old)


async def test_a_stopping_engine_drains_its_streams_without_failing_a_call(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """teoti engine sets ``stopping`` on SIGTERM: each stream is told to drain, its
    client sends the next calls on a new stream (another engine, once this one stops
    taking connections) and what was in flight is still answered."""
    async with draining_setup(redis_store, registry, "held-drain") as d:
        d.stopping.set()
        await until(lambda: not d.old.usable, "the stream to be told to drain")
        fresh = await d.client.create_game("nim", HUMANS, {})  # on a new stream
        assert d.client._exchange._streams != [d.old]  # type: ignore[union-attr]
        d.engine.gate.release.set()
        assert (await d.held).version == fresh.version
        await asyncio.wait_for(d.old.reader, 5)  # ended cleanly once answered
        assert d.old.reader.exception() is None and not d.old._pending


async def test_a_call_waiting_for_room_on_a_draining_stream_goes_on_another(
    redis_store: RedisEventStore, registry: RulesetRegistry, monkeypatch: Any
) -> None:
    """Drain under load: a call that was waiting for one of its stream's in-flight
    places when the stream retired (the engine stops, or the stream aged out) was
    queued behind the half-close, never sent, and failed UNAVAILABLE once the stream
    ended. It must go on a usable stream instead, and succeed."""
    monkeypatch.setattr("services.engine.transport.exchange_client.MAX_IN_FLIGHT", 1)
    async with draining_setup(redis_store, registry, "held-full") as d:
        waiting = asyncio.create_task(d.client.create_game("nim", HUMANS, {}, "waiting"))
        await asyncio.sleep(0.2)  # it waits for the held call's place on ``old``
        assert not waiting.done()
        d.stopping.set()
        await until(lambda: not d.old.usable, "the stream to be told to drain")
        d.engine.gate.release.set()
        await d.held
        created = await asyncio.wait_for(waiting, 5)
        assert created.version > 0
