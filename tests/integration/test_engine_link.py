"""The engine link (issue 16) against peers that are not our gateway, and what only it
has: a wrong peer on either end, back-pressure on a connection, a client vanishing
mid-command. (The bot credential in its hello: tests/integration/test_bot_credential.py.)

A real engine link server on loopback, a real Redis, the gated engine of
tests.integration.exchange_engine; the peers write raw frames on plain sockets. What the
link shares with the gRPC streams (multiplexing, refusals, deadlines, cancels, drain,
engine restarts) is tested on both in tests/integration/test_engine_exchange.py.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import grpc
import pytest

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import start_engine_server
from services.engine.transport.link_frames import (
    BATCH,
    FINISH,
    HELLO,
    HELLO_MAGIC,
    frame,
)
from services.engine.transport.link_server import LinkConnection
from services.engine.transport.remote import RemoteEngineClient
from tests.integration.exchange_engine import (
    HUMANS,
    RawPeer,
    batch,
    create_request,
    link_server,
    raw_peer,
    refusal_code,
    until,
)


async def test_a_raw_peer_plays_the_protocol_as_documented(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Hello, a batch of two commands, their answers by request id, finish, E code 0:
    the protocol of docs/operations.md, "Engine link", spoken by hand."""
    async with link_server(redis_store, registry) as (_, _, port), raw_peer(port) as peer:
        await peer.hello()
        await peer.send(BATCH, batch(create_request("one", 1), create_request("two", 2)))
        answered: dict[int, Any] = {}
        while len(answered) < 2:
            for answer in (await peer.answers()).responses:
                answered[answer.request_id] = answer
        assert all(a.WhichOneof("result") == "create_game" for a in answered.values())
        assert answered[1].create_game.game_id != answered[2].create_game.game_id
        await peer.send(FINISH)
        assert (await peer.end()).code == 0


@pytest.mark.parametrize(
    ("first", "code", "says"),
    [
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", grpc.StatusCode.INVALID_ARGUMENT, "not a frame"),
        (b"\x00\x01\x00\x00H", grpc.StatusCode.RESOURCE_EXHAUSTED, "larger"),
        (frame(BATCH, b""), grpc.StatusCode.INVALID_ARGUMENT, "first frame must be a hello"),
        (frame(HELLO, b"teoti-engine-link 2\n"), grpc.StatusCode.FAILED_PRECONDITION, "version"),
        (frame(HELLO, HELLO_MAGIC + b"\xff"), grpc.StatusCode.INVALID_ARGUMENT, "UTF-8"),
        (b"\x00\x00\x00\x02Zz", grpc.StatusCode.INVALID_ARGUMENT, "not a frame"),
    ],
)
async def test_a_peer_that_does_not_open_with_a_hello_is_told_why_and_closed(
    redis_store: RedisEventStore,
    registry: RulesetRegistry,
    first: bytes,
    code: grpc.StatusCode,
    says: str,
) -> None:
    async with link_server(redis_store, registry) as (engine, _, port):
        async with raw_peer(port) as peer:
            peer.writer.write(first)
            status = await peer.end()
            assert status.code == code.value[0] and says in status.message, status
        # The engine goes on serving others.
        async with RemoteEngineClient(f"127.0.0.1:{port}") as client:
            assert (await client.create_game("nim", HUMANS, {})).version > 0
        assert engine.gate.started == []


async def test_a_peer_that_never_says_hello_is_closed(
    redis_store: RedisEventStore, registry: RulesetRegistry, monkeypatch: Any
) -> None:
    monkeypatch.setattr("services.engine.transport.link_server.HELLO_TIMEOUT_S", 0.2)
    async with link_server(redis_store, registry) as (_, _, port), raw_peer(port) as peer:
        status = await peer.end()
        assert status.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]


async def test_a_batch_over_the_limit_or_not_parsing_ends_the_connection_running_nothing(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with link_server(redis_store, registry) as (engine, _, port):
        async with raw_peer(port) as peer:
            await peer.hello()
            peer.writer.write(frame(BATCH, b"\x0a" * (300 * 1024)))  # over 256 KiB
            status = await peer.end()
            assert status.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        async with raw_peer(port) as peer:
            await peer.hello()
            await peer.send(BATCH, b"\x0a\xff\xff\xff")  # a length past the end
            status = await peer.end()
            assert status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            assert "does not parse" in status.message
        assert engine.gate.started == []


async def test_a_full_connection_is_not_read_until_a_command_finishes(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Back-pressure: a peer writing commands without end (and never reading) gets
    max_in_flight of them started; the rest wait unread, in TCP's buffers."""
    async with (
        link_server(redis_store, registry, max_in_flight=2) as (engine, _, port),
        raw_peer(port) as peer,
    ):
        await peer.hello()
        for i in range(1, 200):
            peer.writer.write(frame(BATCH, batch(create_request(f"held-{i}", i))))
        await peer.writer.drain()
        await until(lambda: len(engine.gate.started) == 2, "two commands to start")
        await asyncio.sleep(0.3)
        assert len(engine.gate.started) == 2, "more commands started than the bound"
        engine.gate.release.set()
        answered = 0
        while answered < 199:
            answered += len((await peer.answers()).responses)
        assert len(engine.gate.started) == 199


async def test_a_peer_gone_mid_command_leaves_nothing_running(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with link_server(redis_store, registry) as (engine, _, port):
        async with raw_peer(port) as peer:
            await peer.hello()
            await peer.send(BATCH, batch(create_request("held-gone", 1)))
            await until(lambda: engine.gate.started == ["held-gone"], "the command to start")
        await until(lambda: engine.gate.cancelled == ["held-gone"], "the engine to stop it")


async def test_a_request_past_its_own_timeout_is_answered_deadline_exceeded(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with link_server(redis_store, registry) as (engine, _, port), raw_peer(port) as peer:
        await peer.hello()
        await peer.send(BATCH, batch(create_request("held-late", 7, timeout_ms=200)))
        (answer,) = (await peer.answers()).responses
        assert answer.request_id == 7
        assert refusal_code(answer) == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
        assert engine.gate.cancelled == ["held-late"]


async def test_a_link_client_pointed_at_a_grpc_port_fails_unavailable_at_once(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A gateway configured with the engine's gRPC port (health and reflection) for the
    link (a mistake) hears an outage that says so, in well under a call's deadline."""
    server, port = await start_engine_server("127.0.0.1:0")
    async with RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=20) as client:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(grpc.aio.AioRpcError) as wrong:
            await client.create_game("nim", HUMANS, {}, "held-wrong-port")
        assert wrong.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "engine link" in (wrong.value.details() or ""), wrong.value.details()
        assert loop.time() - started < 6
    await server.stop(0)


async def test_a_link_client_with_no_engine_there_fails_unavailable(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with link_server(redis_store, registry) as (_, server, port):
        await server.stop(0)
    async with RemoteEngineClient(f"127.0.0.1:{port}") as client:
        with pytest.raises(grpc.aio.AioRpcError) as down:
            await client.create_game("nim", HUMANS, {})
        assert down.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "cannot connect" in (down.value.details() or "")


@contextmanager
def silent_address() -> Iterator[int]:
    """A loopback port whose connection attempts get no answer (a host gone): a listener
    whose accept queue is full, so the kernel drops further SYNs. Yields the port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    try:
        for _ in range(4):  # fill the queue (its length is a little over the backlog)
            filler = socket.socket()
            filler.setblocking(False)
            with suppress(BlockingIOError):
                filler.connect(("127.0.0.1", port))
            fillers.append(filler)
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


async def test_an_address_that_does_not_answer_is_passed_over_for_the_next(
    redis_store: RedisEventStore, registry: RulesetRegistry, monkeypatch: Any
) -> None:
    """One engine of two gone silent (its SYNs dropped): each new connection tried on it
    first moves on to the other within its share of the connect time, so no call fails
    (a connect that hung for the whole budget failed every call of its stream)."""
    monkeypatch.setattr("services.engine.transport.link_client.CONNECT_TIMEOUT_S", 1.0)
    monkeypatch.setattr("services.engine.transport.link_client.MIN_ATTEMPT_S", 0.2)
    monkeypatch.setattr("services.engine.transport.exchange_client.STREAM_MAX_AGE_S", 0.01)
    with silent_address() as silent:
        async with (
            link_server(redis_store, registry) as (_, _, port),
            RemoteEngineClient(
                f"127.0.0.1:{silent},127.0.0.1:{port}",
                channels=1,
                streams_per_channel=1,
            ) as client,
        ):
            for _ in range(6):  # each on a new connection, to either address first
                assert (await client.create_game("nim", HUMANS, {})).version > 0
                await asyncio.sleep(0.02)


async def test_a_link_target_by_name_is_resolved(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    async with (
        link_server(redis_store, registry) as (_, _, port),
        RemoteEngineClient(f"dns:///localhost:{port}") as client,
    ):
        assert (await client.create_game("nim", HUMANS, {})).version > 0


async def test_a_link_ended_unimplemented_before_its_hello_is_an_outage_not_a_fallback(
    redis_store: RedisEventStore, registry: RulesetRegistry, monkeypatch: Any
) -> None:
    """Whatever answers a link connection UNIMPLEMENTED before its hello (a proxy, a
    wrong port, a future engine) serves no link: the call fails UNAVAILABLE at once, and
    the next calls go on link streams as before. The pool's fallback to Exchange streams
    (for a gRPC engine from before ExchangeBatches) has nothing to fall back on here: it
    left every call of the next minute waiting for its deadline."""
    refused: list[LinkConnection] = []
    hello = LinkConnection._hello

    def unimplemented_once(connection: LinkConnection, kind: int, payload: bytes) -> None:
        if refused:
            hello(connection, kind, payload)
            return
        refused.append(connection)
        connection._end(grpc.StatusCode.UNIMPLEMENTED, "no such method here")

    monkeypatch.setattr(LinkConnection, "_hello", unimplemented_once)
    async with (
        link_server(redis_store, registry) as (_, _, port),
        RemoteEngineClient(
            f"127.0.0.1:{port}", timeout_s=5, channels=1, streams_per_channel=1
        ) as client,
    ):
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(grpc.aio.AioRpcError) as refusal:
            await client.create_game("nim", HUMANS, {})
        assert refusal.value.code() == grpc.StatusCode.UNAVAILABLE
        assert loop.time() - started < 2, "the call waited for its deadline"
        started = loop.time()
        assert (await client.create_game("nim", HUMANS, {})).version > 0
        assert loop.time() - started < 2, "the next call waited for its deadline"
        assert refused


async def test_a_peer_that_half_closes_after_its_finish_is_still_answered(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """``F`` is the stream's half-close; a peer that also shuts its side of the TCP
    connection after it (TCP's own half-close) has said nothing more: what it asked for is
    still answered, then ``E`` code 0. Only an end of the bytes without a finish is a
    client gone."""
    async with link_server(redis_store, registry) as (engine, _, port), raw_peer(port) as peer:
        await peer.hello()
        await peer.send(BATCH, batch(create_request("held-half-closed", 1)))
        await until(lambda: engine.gate.started == ["held-half-closed"], "the command to start")
        await peer.send(FINISH)
        peer.writer.write_eof()
        await asyncio.sleep(0.1)  # the engine has read the end of the bytes
        engine.gate.release.set()
        (answer,) = (await peer.answers()).responses
        assert answer.request_id == 1 and answer.WhichOneof("result") == "create_game"
        assert (await peer.end()).code == 0
        assert engine.gate.cancelled == []


async def test_stopping_resets_a_connection_whose_peer_reads_nothing(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """LinkServer.stop closes what is left after its grace at once: a peer that flooded
    commands and reads none of the answers has its connection reset, rather than left
    open for good with the answers buffered for it (a graceful close waits for them to
    be sent, which a peer that never reads never lets happen)."""
    async with link_server(redis_store, registry) as (_, server, port):
        peer_socket = socket.socket()
        peer_socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        peer_socket.connect(("127.0.0.1", port))
        peer_socket.setblocking(False)
        reader, writer = await asyncio.open_connection(sock=peer_socket)
        peer = RawPeer(reader, writer)
        try:
            await peer.hello()
            (connection,) = server._connections
            transport = connection._transport
            assert transport is not None
            engine_socket = transport.get_extra_info("socket")
            engine_socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            writer.transport.pause_reading()  # a peer reading nothing
            for i in range(60):  # more than the engine reads ahead (INBOX_PAUSE)
                requests = (create_request(f"instant-{i}-{j}", i * 1000 + j) for j in range(1, 500))
                writer.write(frame(BATCH, batch(*requests)))
            await until(lambda: transport.get_write_buffer_size() > 0, "answers held for the peer")
            await server.stop(0)
            await until(
                lambda: peer_socket.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0,
                "the connection to be reset",
                timeout_s=2,
            )
        finally:
            writer.close()
