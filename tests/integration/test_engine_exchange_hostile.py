"""The engine's Exchange sessions against a hostile peer and an oversized request
(issue 16's review): nothing of the engine grows without a limit, and one call's trouble
fails that call alone.

A real engine on loopback (its link for clients' streams; EngineService for raw calls),
a real Redis, the gated engine of
tests.integration.exchange_engine ("held..." commands wait for the test).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import grpc
import pytest

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.errors import InvalidArgument
from services.engine.domain.records import canonical_json
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import ENGINE_SERVICE, EngineServicer
from services.engine.transport.exchange_client import MAX_CALL_BYTES, ExchangeStream
from services.engine.transport.remote import RemoteEngineClient
from services.rpc.generated import engine_service_pb2 as pb
from services.rpc.generated import engine_service_pb2_grpc as pb_grpc
from services.rpc.limits import MAX_REQUEST_BYTES
from services.rpc.server import build_server
from tests.integration.exchange_engine import (
    HUMANS,
    GatedEngine,
    create_request,
    engine_channel,
    engine_link,
    link_server,
    read_next,
    refusal_code,
    until,
)


@asynccontextmanager
async def served(
    store: RedisEventStore, registry: RulesetRegistry, max_in_flight: int
) -> AsyncIterator[tuple[GatedEngine, EngineServicer, int]]:
    """A gated engine served as ``teoti engine`` serves it, with its servicer (to look at
    its streams' sessions)."""
    engine = GatedEngine(store, registry)
    servicer = EngineServicer(engine, max_in_flight)
    server, port, _ = build_server(
        "127.0.0.1:0",
        [lambda s: pb_grpc.add_EngineServiceServicer_to_server(servicer, s)],
        [ENGINE_SERVICE],
    )
    await server.start()
    try:
        yield engine, servicer, port
    finally:
        engine.gate.release.set()
        await server.stop(0)


@pytest.mark.parametrize("method", ["Exchange", "ExchangeBatches"])
async def test_a_request_that_does_not_parse_ends_the_stream_invalid_argument(
    redis_store: RedisEventStore, registry: RulesetRegistry, method: str
) -> None:
    async with engine_channel(redis_store, registry) as (_, channel):
        raw = channel.stream_stream(
            f"/gameserver.v1.EngineService/{method}",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        call = raw()
        await call.write(b"\xff\xff\xff")
        await call.done_writing()
        assert await call.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_flood_of_duplicate_ids_unread_is_held_back_like_answers(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A peer on the engine's port repeats the id of a request in flight, thousands of
    times per message, and never reads: each refusal holds a place in flight until it is
    written, as an answer does, so the engine stops reading the stream instead of
    queueing refusals without bound (and a message of them is not one long loop turn)."""
    max_in_flight = 4
    async with (
        served(redis_store, registry, max_in_flight) as (engine, servicer, port),
        grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel,
    ):
        call = pb_grpc.EngineServiceStub(channel).ExchangeBatches()
        held = create_request("held-1", 1)
        await call.write(pb.EngineServiceExchangeBatchesRequest(requests=[held]))
        await until(lambda: engine.gate.started == ["held-1"], "the held command to start")
        (session,) = servicer._sessions
        duplicates = pb.EngineServiceExchangeBatchesRequest(
            requests=[pb.EngineServiceExchangeRequest(request_id=1)] * 5000
        )

        async def flood() -> None:
            for _ in range(40):
                await call.write(duplicates)

        flooding = asyncio.create_task(flood())
        queued: list[int] = []
        for _ in range(100):  # a second: the flood is written, or held back
            queued.append(len(session._outbox._items))
            await asyncio.sleep(0.01)
        assert max(queued) <= max_in_flight
        flooding.cancel()
        call.cancel()


async def test_a_request_larger_than_the_engine_takes_fails_alone(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A request past the engine's message limit fails alone, RESOURCE_EXHAUSTED as a
    unary call would: the engine would end the whole stream for it, failing every
    other call in flight on it (other players' moves)."""
    async with engine_link(redis_store, registry) as (engine, link):
        stream = ExchangeStream(link)
        held = asyncio.create_task(stream.call(create_request("held-other"), 5))
        await until(lambda: engine.gate.started == ["held-other"], "the other call")
        huge = create_request("huge")
        huge.create_game.options_json = "x" * MAX_REQUEST_BYTES
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stream.call(huge, 5)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        engine.gate.release.set()
        assert (await held).WhichOneof("result") == "create_game"
        assert (await stream.call(create_request("instant-after"), 5)).create_game.version
        stream.cancel()
        await stream.reader


async def test_a_command_too_large_for_the_engine_is_refused_invalid_argument(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The gateway re-encodes options_json and action_json canonically, which can make a
    command ~4x the public request that carried it (1e15 is 1000000000000000.0): past
    what the engine takes, it is refused as the bad argument it is (the engine's
    RESOURCE_EXHAUSTED read as an engine outage, UNAVAILABLE,
    and the client would retry a request that can never succeed)."""
    async with link_server(redis_store, registry) as (_, _, port):
        client = RemoteEngineClient(f"127.0.0.1:{port}", channels=1, streams_per_channel=1)
        try:
            huge = {"pad": [1e15] * 15_000}
            assert len(canonical_json(huge)) > MAX_REQUEST_BYTES > 5 * 15_000
            with pytest.raises(InvalidArgument, match="too large"):
                await client.create_game("nim", HUMANS, huge, "huge")
            assert (await client.create_game("nim", HUMANS, {}, "after")).version > 0
        finally:
            await client.close()


def test_the_largest_request_a_stream_carries_fits_the_engines_limit_with_its_framing() -> None:
    request = create_request()
    padding = MAX_CALL_BYTES - request.ByteSize()
    while True:  # the lengths' varints grow with the padding
        request.create_game.options_json = "x" * padding
        if request.ByteSize() <= MAX_CALL_BYTES:
            break
        padding -= 1
    assert request.ByteSize() >= MAX_CALL_BYTES - 1
    request.request_id, request.timeout_ms = 2**64 - 1, 2**32 - 1
    alone = pb.EngineServiceExchangeBatchesRequest(requests=[request])
    assert alone.ByteSize() <= MAX_REQUEST_BYTES


async def test_an_old_gateway_on_exchange_gets_one_message_per_answer_and_the_drain(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Rolling upgrade, old gateway and new engine: on Exchange each answer, refusal
    and drain notice is a message of its own, as before ExchangeBatches, and what was
    in flight when the engine started draining is still answered."""
    stopping = asyncio.Event()
    async with engine_channel(redis_store, registry, stopping=stopping) as (engine, channel):
        call = pb_grpc.EngineServiceStub(channel).Exchange()
        for request_id, command_id in ((1, "held-old"), (2, "instant-old"), (1, "held-again")):
            await call.write(create_request(command_id, request_id))
        first, second = await read_next(call), await read_next(call)
        assert {first.request_id, second.request_id} == {1, 2}
        refusal = first if first.request_id == 1 else second
        assert refusal_code(refusal) == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert engine.gate.started == ["held-old"]
        stopping.set()
        drain = await read_next(call)
        assert drain.drain and drain.request_id == 0
        engine.gate.release.set()
        held = await read_next(call)
        assert held.request_id == 1 and held.WhichOneof("result") == "create_game"
        await call.done_writing()
        assert await call.code() == grpc.StatusCode.OK
