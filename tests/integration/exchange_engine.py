"""The engine of the Exchange tests (issue 16): a real engine's link on loopback, a real
Redis, and an engine wrapped so that a create_game whose command id starts with "held"
waits for the test to release it, which makes "in flight" observable (concurrency,
back-pressure, deadlines, cancellation, a stream breaking under a call) without timing
guesses; one whose command id starts with "instant" is answered at once, with no I/O (so
commands sent together are also done together).

Also what the Exchange test modules share: that engine with a link stub for it, a raw
peer writing and reading the link's frames by hand, a held call started through a
client, and the requests written."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from google.rpc import status_pb2

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.command_result import CommandResult
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.time_control import TimeControl
from services.engine.transport.link_client import LinkStub, LinkTarget
from services.engine.transport.link_frames import (
    BATCH,
    END,
    HELLO,
    HELLO_MAGIC,
    FrameReader,
    frame,
)
from services.engine.transport.remote import RemoteEngineClient
from services.rpc.generated import engine_service_pb2 as pb
from tests.engine_serving import engine_served

HUMANS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]


@dataclass
class Gate:
    """What the held create_game calls did: started, cancelled; ``release`` lets them on."""

    release: asyncio.Event = field(default_factory=asyncio.Event)
    started: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)


class GatedEngine(Engine):
    """An Engine whose create_game with a command id "held..." waits for its gate, and
    with "instant..." is answered at once (game id = the command id, version 1)."""

    def __init__(self, store: RedisEventStore, registry: RulesetRegistry) -> None:
        super().__init__(store, registry)
        self.gate = Gate()

    async def create_game(
        self,
        ruleset_name: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
        rated: bool = False,
    ) -> CommandResult:
        if command_id.startswith("instant"):
            return CommandResult(command_id, 1, 1)
        if command_id.startswith("held"):
            self.gate.started.append(command_id)
            try:
                await self.gate.release.wait()
            except asyncio.CancelledError:
                self.gate.cancelled.append(command_id)
                raise
        return await super().create_game(
            ruleset_name, seats, options, command_id, time_control, rated
        )


@asynccontextmanager
async def engine_server(
    store: RedisEventStore,
    registry: RulesetRegistry,
    port: int = 0,
    max_in_flight: int = 100,
    stopping: asyncio.Event | None = None,
) -> AsyncIterator[tuple[GatedEngine, Any, int]]:
    """A gated engine's link (services.engine.transport.link_server) served on
    ``127.0.0.1:port`` (0: any free port). Yields (the engine, its server, the bound
    port)."""
    engine = GatedEngine(store, registry)
    options = {"max_in_flight_per_exchange": max_in_flight, "stopping": stopping}
    async with engine_served(engine, port, **options) as (server, bound):
        try:
            yield engine, server, bound
        finally:
            engine.gate.release.set()  # held calls go on before the server stops


link_server = engine_server
"""The gated engine on its link (the name the link tests use)."""


@asynccontextmanager
async def engine_link(
    store: RedisEventStore,
    registry: RulesetRegistry,
    max_in_flight: int = 100,
    stopping: asyncio.Event | None = None,
) -> AsyncIterator[tuple[GatedEngine, LinkStub]]:
    """:func:`engine_server` with a link stub for it, for tests that hold the streams
    themselves (an ExchangeStream or a pool)."""
    serving = engine_server(store, registry, max_in_flight=max_in_flight, stopping=stopping)
    async with serving as (engine, _, port):
        yield engine, LinkStub(LinkTarget(f"127.0.0.1:{port}"))


class RawPeer:
    """A plain TCP connection to the link, writing and reading frames by hand."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._frames = FrameReader(1 << 24)
        self._read: list[tuple[int, bytes]] = []

    async def send(self, kind: int, payload: bytes = b"") -> None:
        self.writer.write(frame(kind, payload))
        await self.writer.drain()

    async def hello(self, bot_key: str = "") -> None:
        """Send a hello and read the engine's."""
        await self.send(HELLO, HELLO_MAGIC + bot_key.encode())
        assert await self.next() == (HELLO, HELLO_MAGIC)

    async def next(self) -> tuple[int, bytes]:
        """The next frame (AssertionError if the connection closes first; 5 s at most)."""
        while not self._read:
            data = await asyncio.wait_for(self.reader.read(65536), 5)
            assert data, "the engine closed the connection"
            self._read += self._frames.feed(data)
        return self._read.pop(0)

    async def end(self) -> status_pb2.Status:
        """The ``E`` frame's status, after which the engine closes the connection (with a
        reset when bytes this peer sent are left unread: TCP's way)."""
        kind, payload = await self.next()
        assert kind == END, (chr(kind), payload)
        with suppress(ConnectionResetError):
            assert await asyncio.wait_for(self.reader.read(), 5) == b"", "still open after E"
        return status_pb2.Status.FromString(payload)

    async def answers(self) -> pb.EngineServiceExchangeBatchesResponse:
        kind, payload = await self.next()
        assert kind == BATCH, (chr(kind), payload)
        return pb.EngineServiceExchangeBatchesResponse.FromString(payload)


@asynccontextmanager
async def raw_peer(port: int) -> AsyncIterator[RawPeer]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        yield RawPeer(reader, writer)
    finally:
        writer.close()


def batch(*requests: pb.EngineServiceExchangeRequest) -> bytes:
    return bytes(pb.EngineServiceExchangeBatchesRequest(requests=requests).SerializeToString())


async def until(condition: Any, what: str, timeout_s: float = 5.0) -> None:
    """Wait until ``condition()`` is true (AssertionError naming ``what`` after timeout_s)."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout_s, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def start_held(
    client: RemoteEngineClient, engine: GatedEngine, command_id: str
) -> asyncio.Task[CommandResult]:
    """``client``'s create_game of ``command_id`` (a "held..." one) as a task, returned
    once ``engine`` holds it (it is answered after ``engine.gate.release`` is set)."""
    held = asyncio.create_task(client.create_game("nim", HUMANS, {}, command_id))
    await until(lambda: engine.gate.started == [command_id], f"{command_id} to start")
    return held


def refusal_code(answer: pb.EngineServiceExchangeResponse) -> int:
    """The status code (its number, as in google.rpc.Status) of an Exchange answer that is
    a refusal: its ``error`` is a serialized google.rpc.Status."""
    return int(status_pb2.Status.FromString(answer.error).code)


def create_request(
    command_id: str = "", request_id: int = 0, timeout_ms: int = 0
) -> pb.EngineServiceExchangeRequest:
    """An Exchange request to create a game of nim between HUMANS (``request_id`` and
    ``timeout_ms`` 0: left for an ExchangeStream to number, and no timeout)."""
    request = pb.EngineServiceCreateGameRequest(ruleset="nim", command_id=command_id)
    request.seats.add(kind=1, name="ann", token_hash="a" * 64)
    request.seats.add(kind=1, name="bob", token_hash="b" * 64)
    return pb.EngineServiceExchangeRequest(
        create_game=request, request_id=request_id, timeout_ms=timeout_ms
    )
