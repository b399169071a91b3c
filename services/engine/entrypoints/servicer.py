"""The engine's servers for separately running gateways, bot workers and directors: the
engine link (its command side) and gRPC (health and reflection)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from teoti_client.proto import game_service_pb2 as public_pb

from services.engine.domain.engine import Engine
from services.engine.domain.rulesets import default_ruleset
from services.engine.transport.exchange_server import (
    BATCHES_METADATA,
    MAX_IN_FLIGHT,
    ExchangeSession,
)
from services.engine.transport.exchange_server import ENGINE_SERVICE as ENGINE_SERVICE
from services.engine.transport.link_server import LinkServer, start_link_server
from services.engine.transport.proto_convert import (
    add_events,
    parse_object,
    seats_from_engine_proto,
    time_control_from_proto,
)
from services.engine.transport.proto_projection import add_game_view, add_legal_actions
from services.rpc.errors import BadRequest
from services.rpc.generated import engine_service_pb2 as pb
from services.rpc.server import build_server, mark_serving


class EngineServicer:
    """Adapts the engine link's commands to :class:`Engine` calls (errors via
    services.engine.transport.status_mapping): each link connection is one
    :class:`ExchangeSession`."""

    def __init__(self, engine: Engine, max_in_flight: int = MAX_IN_FLIGHT) -> None:
        self._engine = engine
        self._max_in_flight = max_in_flight
        self._sessions: set[ExchangeSession] = set()
        self._draining = False

    async def drain(self) -> None:
        """Tell every link connection, now and from now on, that this engine is stopping
        (its clients move their next commands to another connection, and engine)."""
        self._draining = True
        await asyncio.gather(*(session.drain() for session in list(self._sessions)))

    async def serve_link(self, requests: AsyncIterator[Any], connection: Any, bot_key: str) -> None:
        """One engine link connection's ExchangeBatches stream
        (services.engine.transport.link_server): ``connection`` has what a session uses
        of a stream's context; ``bot_key`` is the credential of its hello, which holds for
        every command on it."""

        async def answer(
            request: pb.EngineServiceExchangeRequest, response: pb.EngineServiceExchangeResponse
        ) -> None:
            command = request.WhichOneof("command")
            if command == "submit_action":
                await self._submit_action(request.submit_action, bot_key, response.submit_action)
            elif command == "create_game":
                await self._create_game(request.create_game, response.create_game)
            elif command == "join_game":
                response.join_game.CopyFrom(await self._join_game(request.join_game))
            elif command == "withdraw_seat":
                response.withdraw_seat.CopyFrom(await self._withdraw_seat(request.withdraw_seat))
            elif command == "resign_seat":
                leave = request.resign_seat
                result = await self._engine.resign_seat(leave.game_id, leave.seat, leave.command_id)
                response.resign_seat.version = result.version
                response.resign_seat.first_version = result.first_version
            elif command == "claim_seat_for_bot":
                claim = request.claim_seat_for_bot
                result = await self._engine.claim_seat_for_bot(
                    claim.game_id, claim.seat, claim.claimed_by, claim.command_id
                )
                response.claim_seat_for_bot.version = result.version
                response.claim_seat_for_bot.first_version = result.first_version
            else:
                raise BadRequest("the request carries no command")

        session = ExchangeSession(connection, answer, self._max_in_flight)
        self._sessions.add(session)
        try:
            # The engine's hello: the client writes nothing before it.
            await connection.send_initial_metadata(((BATCHES_METADATA, "1"),))
            if self._draining:
                await session.drain()
            await session.run(requests)
        finally:
            self._sessions.discard(session)

    async def _create_game(
        self,
        request: pb.EngineServiceCreateGameRequest,
        into: pb.EngineServiceCreateGameResponse,
    ) -> None:
        """The engine's CreateGame reply, written into ``into`` (an Exchange response's
        own field). Raises the engine's domain errors."""
        result = await self._engine.create_game(
            request.ruleset or default_ruleset(),
            seats_from_engine_proto(request.seats),
            parse_object(request.options_json, "options_json"),
            request.command_id,
            time_control_from_proto(request),
            request.rated,
        )
        into.SetInParent()  # present even if every field is its default
        into.game_id = result.game_id
        into.version = result.version
        add_events(into.events, result.written)

    async def _submit_action(
        self,
        request: pb.EngineServiceSubmitActionRequest,
        bot_key: str,
        into: pb.EngineServiceSubmitActionResponse,
    ) -> None:
        """The engine's SubmitAction reply, written into ``into`` (an Exchange response's
        own field). It carries the events appended, or with ``return_view`` the seat's
        view and legal actions after them (services.engine.transport.proto_projection)
        instead, with ``public_reply`` as a serialized GameService SubmitActionResponse
        (issue 35). Raises the engine's domain errors."""
        result = await self._engine.submit_action(
            request.game_id,
            request.seat,
            parse_object(request.action_json, "action_json"),
            request.expected_version if request.HasField("expected_version") else None,
            request.command_id,
            bot_key=bot_key,
        )
        into.SetInParent()
        into.version = result.version
        into.first_version = result.first_version
        if not request.return_view:
            add_events(into.events, result.written)
            return
        # The gateway checked the seat's token; the seat is one of the game's, or the
        # engine would have refused the action. A fresh append left the game in this
        # engine's cache; a command id applied before (possibly by another engine, or
        # lost by Redis since) is answered with the game as the log has it now.
        if result.written:
            snapshot = await self._engine.reached(request.game_id, result.version)
        else:
            snapshot = await self._engine.load(request.game_id)
        if not request.public_reply:
            add_game_view(into.game, snapshot, request.seat)
            add_legal_actions(into.legal_actions, snapshot, request.seat)
            return
        # Serialized once, here: the gateway sends these bytes on to its client as they
        # are (issue 35), and only the same two calls keep them what it would build.
        public = public_pb.SubmitActionResponse(
            version=result.version, first_version=result.first_version
        )
        add_game_view(public.game, snapshot, request.seat)
        add_legal_actions(public.legal_actions, snapshot, request.seat)
        into.public_reply = public.SerializeToString()

    async def _join_game(
        self, request: pb.EngineServiceJoinGameRequest
    ) -> pb.EngineServiceJoinGameResponse:
        result = await self._engine.join_game(
            request.game_id,
            request.seat,
            request.name,
            request.token_hash,
            request.command_id,
            request.player,
        )
        return pb.EngineServiceJoinGameResponse(
            version=result.version, first_version=result.first_version
        )

    async def _withdraw_seat(
        self, request: pb.EngineServiceWithdrawSeatRequest
    ) -> pb.EngineServiceWithdrawSeatResponse:
        result = await self._engine.withdraw_seat(request.game_id, request.seat)
        return pb.EngineServiceWithdrawSeatResponse(
            version=result.version, first_version=result.first_version
        )


async def start_engine_server(address: str) -> tuple[grpc.aio.Server, int]:
    """Start the engine's gRPC server on ``address`` (port 0: any): health (the engine's
    readiness, ENGINE_SERVICE SERVING once started) and reflection. The engine's commands
    go on its link (:func:`start_engine_link`). Returns (server, port)."""
    server, port, health = build_server(address, [], [ENGINE_SERVICE])
    await server.start()
    await mark_serving(health, [ENGINE_SERVICE])
    return server, port


async def start_engine_link(
    engine: Engine,
    host: str,
    port: int,
    max_in_flight_per_exchange: int = MAX_IN_FLIGHT,
    stopping: asyncio.Event | None = None,
) -> tuple[LinkServer, int]:
    """Serve the engine link (services.engine.transport.link_server, docs/operations.md "Engine
    link") for ``engine`` on ``host``:``port`` (0: any free port). Returns (server, port).

    Each connection is an ExchangeBatches stream, with ``max_in_flight_per_exchange``
    commands at once; when ``stopping`` is set (stop the server right after), every
    connection is told to drain, so gateways move their commands to other engines during
    the stop's grace instead of losing those in flight when it ends. Raises OSError when
    the address cannot be bound.
    """
    servicer = EngineServicer(engine, max_in_flight_per_exchange)
    server, bound = await start_link_server(servicer.serve_link, host, port)
    if stopping is not None:
        drain = asyncio.create_task(_drain_when(stopping, servicer))
        _DRAINS.add(drain)
        drain.add_done_callback(_DRAINS.discard)
    return server, bound


_DRAINS: set[asyncio.Task[None]] = set()
"""The drain watchers of running servers (held: the loop keeps only weak references)."""


async def _drain_when(stopping: asyncio.Event, servicer: EngineServicer) -> None:
    await stopping.wait()
    await servicer.drain()
