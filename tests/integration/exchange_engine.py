"""The engine of the Exchange tests (issue 16): a real EngineService over gRPC on
loopback, a real Redis, and an engine wrapped so that a create_game whose command id
starts with "held" waits for the test to release it, which makes "in flight" observable
(concurrency, back-pressure, deadlines, cancellation, a stream breaking under a call)
without timing guesses; one whose command id starts with "instant" is answered at once,
with no I/O (so commands sent together are also done together)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc

from services.engine.client import CommandResult
from services.engine.engine import Engine
from services.engine.game import SeatKind, SeatSpec
from services.engine.rulesets import RulesetRegistry
from services.engine.servicer import start_engine_server
from services.engine.store.redis_store import RedisEventStore
from services.engine.timing.time_control import TimeControl
from services.rpc.generated import engine_service_pb2 as pb

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

    gate: Gate

    async def create_game(
        self,
        ruleset_name: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
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
        return await super().create_game(ruleset_name, seats, options, command_id, time_control)


@asynccontextmanager
async def engine_server(
    store: RedisEventStore,
    registry: RulesetRegistry,
    port: int = 0,
    max_in_flight: int = 100,
    stopping: asyncio.Event | None = None,
) -> AsyncIterator[tuple[GatedEngine, grpc.aio.Server, int]]:
    """A gated engine served on ``127.0.0.1:port`` (0: any free port)."""
    engine = GatedEngine(store, registry)
    engine.gate = Gate()
    server, bound = await start_engine_server(
        engine, f"127.0.0.1:{port}", max_in_flight_per_exchange=max_in_flight, stopping=stopping
    )
    try:
        yield engine, server, bound
    finally:
        engine.gate.release.set()
        await server.stop(0)


async def until(condition: Any, what: str, timeout_s: float = 5.0) -> None:
    """Wait until ``condition()`` is true (AssertionError naming ``what`` after timeout_s)."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout_s, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def create_request(command_id: str = "") -> pb.EngineServiceExchangeRequest:
    request = pb.EngineServiceCreateGameRequest(ruleset="nim", command_id=command_id)
    request.seats.add(kind=1, name="ann", token_hash="a" * 64)
    request.seats.add(kind=1, name="bob", token_hash="b" * 64)
    return pb.EngineServiceExchangeRequest(create_game=request)
