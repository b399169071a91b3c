"""ExchangeBatches streams (issue 16): the calls, and the answers, ready at the same
moment share one message; a lone one is not held back; cancels and deadlines inside a
batch.

A real engine's link on loopback (a client's streams, or a raw peer writing frames by
hand), a real Redis, the gated engine of tests.integration.exchange_engine
("held..." commands wait for the test, "instant..." ones are answered at once).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.exchange_client import (
    CALLS_PER_TURN,
    ExchangePool,
    ExchangeStream,
)
from services.engine.transport.link_frames import BATCH, FINISH
from services.rpc.generated import engine_service_pb2 as pb
from tests.integration.exchange_engine import (
    RawPeer,
    batch,
    create_request,
    engine_link,
    link_server,
    raw_peer,
    refusal_code,
    until,
)


class RecordingCall:
    """A link call that records the batch messages written to it (each sent as its bytes,
    as the link carries it) and read from it."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self.written: list[Any] = []
        self.read: list[Any] = []

    async def write(self, message: Any) -> None:
        self.written.append(message)
        await self._call.write(message.SerializeToString())

    async def initial_metadata(self) -> Any:
        return await self._call.initial_metadata()

    async def done_writing(self) -> None:
        await self._call.done_writing()

    def cancel(self) -> bool:
        return bool(self._call.cancel())

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for message in self._call:
            self.read.append(message)
            yield message


class RecordingStub:
    """A LinkStub whose ExchangeBatches calls are :class:`RecordingCall` s (its streams
    write batch messages, not their bytes: it has no ``serialized_batches``)."""

    def __init__(self, stub: Any) -> None:
        self._stub = stub
        self.calls: list[RecordingCall] = []

    def ExchangeBatches(self, **kwargs: Any) -> RecordingCall:
        call = RecordingCall(self._stub.ExchangeBatches(**kwargs))
        self.calls.append(call)
        return call


async def read_ids(peer: RawPeer) -> list[int]:
    """The request ids answered by the next batch ``peer`` reads (within 5 s)."""
    return [response.request_id for response in (await peer.answers()).responses]


async def test_calls_queued_together_go_as_one_message_and_are_answered_in_one(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with engine_link(redis_store, registry) as (_, link):
        stub = RecordingStub(link)
        stream = ExchangeStream(stub)
        answers = await asyncio.gather(
            *(stream.call(create_request(f"instant-{i}"), 5) for i in range(5))
        )
        assert [a.create_game.game_id for a in answers] == [f"instant-{i}" for i in range(5)]
        (call,) = stub.calls
        assert [len(m.requests) for m in call.written] == [5]
        # Done in the same turn on the engine, so answered in one message too.
        assert [len(m.responses) for m in call.read] == [5]
        stream.retire()
        await asyncio.wait_for(stream.reader, 5)
        assert stream.reader.exception() is None


async def test_batches_written_as_bytes_carry_the_same_calls_and_answers(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The link's stub writes each batch as its bytes, and the engine its answers
    (issue 16): the calls of a turn are still one message, each answered, with its cancel
    and its refusal, as a batch message would carry them."""
    async with engine_link(redis_store, registry) as (engine, link):
        stub = link
        recording = RecordingStub(stub)
        stream = ExchangeStream(recording)
        assert stub.serialized_batches and not getattr(recording, "serialized_batches", False)
        streamed = ExchangeStream(stub)
        answers = await asyncio.gather(
            *(streamed.call(create_request(f"instant-{i}"), 5) for i in range(5)),
            streamed.call(pb.EngineServiceExchangeRequest(), 5),  # no command: refused
        )
        assert [a.create_game.game_id for a in answers[:5]] == [f"instant-{i}" for i in range(5)]
        assert refusal_code(answers[5]) == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await streamed.call(create_request("held-gone"), 0.3)
        assert failed.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        await until(lambda: "held-gone" in engine.gate.cancelled, "the held call's cancel")
        # The same calls as batch messages, for comparison.
        again = await stream.call(create_request("instant-again"), 5)
        assert again.create_game.game_id == "instant-again"
        (call,) = recording.calls
        assert [len(m.requests) for m in call.written] == [1]
        for each in (stream, streamed):
            each.retire()
            await asyncio.wait_for(each.reader, 5)
            assert each.reader.exception() is None


async def test_a_turns_calls_share_a_stream_up_to_a_bound_and_the_next_turn_moves_on(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The pool puts the calls of one loop turn on one stream (one message), at most
    CALLS_PER_TURN of them, so a burst still spreads over streams (and engines); the next
    turn's calls go on the next stream."""
    async with engine_link(redis_store, registry) as (_, link):
        stub = RecordingStub(link)
        pool = ExchangePool([stub], streams_per_channel=4)
        try:
            burst = CALLS_PER_TURN + 2
            await asyncio.gather(
                *(pool.call(create_request(f"instant-{i}"), 5) for i in range(burst))
            )
            assert [[len(m.requests) for m in call.written] for call in stub.calls] == [
                [CALLS_PER_TURN],
                [2],
            ]
            await pool.call(create_request("instant-later"), 5)
            assert [len(call.written) for call in stub.calls] == [1, 1, 1]
        finally:
            await pool.close()


async def test_an_aged_stream_carries_on_until_its_successor_is_ready(
    redis_store: RedisEventStore, registry: RulesetRegistry, monkeypatch: Any
) -> None:
    """No call waits for a new stream's headers in steady state: a stream past its age
    takes calls until the successor opened for it has the engine's headers."""
    monkeypatch.setattr("services.engine.transport.exchange_client.STREAM_MAX_AGE_S", 0.05)
    async with engine_link(redis_store, registry) as (_, link):
        stub = RecordingStub(link)
        pool = ExchangePool([stub], streams_per_channel=1)
        try:
            await pool.call(create_request("instant-first"), 5)
            (first,) = pool._streams
            await asyncio.sleep(0.1)  # past its age
            assert first is not None and not first.usable
            await pool.call(create_request("instant-aged"), 5)
            assert pool._streams == [first]
            old, new = stub.calls
            assert [len(old.written), len(new.written)] == [2, 0]
            await until(lambda: pool._successors[0].ready, "the successor's headers")
            await pool.call(create_request("instant-successor"), 5)
            assert pool._streams != [first] and [len(old.written), len(new.written)] == [2, 1]
            await asyncio.wait_for(first.reader, 5)  # retired: half-closed, then ended
        finally:
            await pool.close()


async def test_a_lone_call_is_written_at_once(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Nothing waits for company: on a stream open (its first call answered), the writer
    sends in the loop turn after the call queued its request (no timer, no added latency
    at 1 match)."""
    async with engine_link(redis_store, registry) as (engine, link):
        stub = RecordingStub(link)
        stream = ExchangeStream(stub)
        await stream.call(create_request("instant-first"), 5)
        lone = asyncio.create_task(stream.call(create_request("held-lone"), 5))
        await asyncio.sleep(0)  # the call queues its request
        await asyncio.sleep(0)  # the writer takes it
        (call,) = stub.calls
        assert [[r.create_game.command_id for r in m.requests] for m in call.written] == [
            ["instant-first"],
            ["held-lone"],
        ]
        await until(lambda: engine.gate.started == ["held-lone"], "the engine to start it")
        engine.gate.release.set()
        assert (await lone).WhichOneof("result") == "create_game"
        stream.cancel()
        await stream.reader


async def test_answers_go_when_ready_a_slow_one_does_not_hold_the_others(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with link_server(redis_store, registry) as (engine, _, port), raw_peer(port) as peer:
        await peer.hello()
        await peer.send(
            BATCH,
            batch(
                create_request("held-slow", 1),
                create_request("instant-a", 2),
                create_request("instant-b", 3),
            ),
        )
        assert await read_ids(peer) == [2, 3]
        engine.gate.release.set()
        assert await read_ids(peer) == [1]
        await peer.send(FINISH)
        assert (await peer.end()).code == 0


async def test_a_cancel_in_the_same_batch_stops_its_command_and_frees_its_place(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A command cancelled in the batch that carried it is stopped before it starts
    (its task never runs): it is answered nothing and its place in flight is free (one
    place here: the next command could not start otherwise)."""
    serving = link_server(redis_store, registry, max_in_flight=1)
    async with serving as (engine, _, port), raw_peer(port) as peer:
        await peer.hello()
        cancel = pb.EngineServiceExchangeRequest(request_id=1, cancel=True)
        await peer.send(BATCH, batch(create_request("held-cancelled", 1), cancel))
        await peer.send(BATCH, batch(create_request("instant-next", 2)))
        assert await read_ids(peer) == [2]
        assert engine.gate.started == []
        await peer.send(FINISH)
        assert (await peer.end()).code == 0  # no answer for 1 was left to send


async def test_a_deadline_inside_a_batch_refuses_that_command_alone(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with link_server(redis_store, registry) as (engine, _, port), raw_peer(port) as peer:
        await peer.hello()
        await peer.send(
            BATCH,
            batch(create_request("held-late", 1, timeout_ms=200), create_request("instant-ok", 2)),
        )
        assert await read_ids(peer) == [2]
        (late,) = (await peer.answers()).responses
        assert late.request_id == 1 and late.WhichOneof("result") == "error"
        assert refusal_code(late) == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
        assert engine.gate.cancelled == ["held-late"]
        await peer.send(FINISH)
        assert (await peer.end()).code == 0
