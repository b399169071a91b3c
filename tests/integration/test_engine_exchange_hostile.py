"""The engine's Exchange sessions against a hostile peer and an oversized request
(issue 16's review): nothing of the engine grows without a limit, and one call's trouble
fails that call alone.

A real engine's link on loopback (a client's streams, or a raw peer), a real Redis, the
gated engine of tests.integration.exchange_engine ("held..." commands wait for the test).
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
from services.engine.entrypoints.servicer import EngineServicer
from services.engine.transport.exchange_client import MAX_CALL_BYTES, ExchangeStream
from services.engine.transport.link_frames import BATCH
from services.engine.transport.link_server import start_link_server
from services.engine.transport.remote import RemoteEngineClient
from services.rpc.generated import engine_service_pb2 as pb
from services.rpc.limits import MAX_REQUEST_BYTES
from tests.integration.exchange_engine import (
    HUMANS,
    GatedEngine,
    batch,
    create_request,
    engine_link,
    link_server,
    raw_peer,
    until,
)


@asynccontextmanager
async def served(
    store: RedisEventStore, registry: RulesetRegistry, max_in_flight: int
) -> AsyncIterator[tuple[GatedEngine, EngineServicer, int]]:
    """A gated engine's link served as ``teoti engine`` serves it, with its servicer (to
    look at its connections' sessions)."""
    engine = GatedEngine(store, registry)
    servicer = EngineServicer(engine, max_in_flight)
    server, port = await start_link_server(servicer.serve_link, "127.0.0.1", 0)
    try:
        yield engine, servicer, port
    finally:
        engine.gate.release.set()
        await server.stop(0)


async def test_a_flood_of_duplicate_ids_unread_is_held_back_like_answers(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A peer on the engine's link repeats the id of a request in flight, thousands of
    times per batch, and never reads: each refusal holds a place in flight until it is
    written, as an answer does, so the engine stops reading the stream instead of
    queueing refusals without bound (and a message of them is not one long loop turn)."""
    max_in_flight = 4
    async with (
        served(redis_store, registry, max_in_flight) as (engine, servicer, port),
        raw_peer(port) as peer,
    ):
        await peer.hello()
        await peer.send(BATCH, batch(create_request("held-1", 1)))
        await until(lambda: engine.gate.started == ["held-1"], "the held command to start")
        (session,) = servicer._sessions
        duplicates = batch(*[pb.EngineServiceExchangeRequest(request_id=1)] * 5000)

        async def flood() -> None:
            for _ in range(40):
                await peer.send(BATCH, duplicates)

        flooding = asyncio.create_task(flood())
        queued: list[int] = []
        for _ in range(100):  # a second: the flood is written, or held back
            queued.append(len(session._outbox._items))
            await asyncio.sleep(0.01)
        assert max(queued) <= max_in_flight
        flooding.cancel()


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
