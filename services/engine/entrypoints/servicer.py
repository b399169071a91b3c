"""gRPC EngineService: the engine's command side for separately running gateways/bots."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc

from services.engine.domain.bot_credential import BOT_KEY_METADATA
from services.engine.domain.engine import Engine
from services.engine.domain.rulesets import default_ruleset
from services.engine.transport.exchange_server import (
    BATCHES_METADATA,
    MAX_IN_FLIGHT,
    ExchangeSession,
    serialized_or_message,
)
from services.engine.transport.exchange_server import ENGINE_SERVICE as ENGINE_SERVICE
from services.engine.transport.link_server import LinkServer, start_link_server
from services.rpc.convert import (
    add_events,
    parse_object,
    seats_from_engine_proto,
    time_control_from_proto,
)
from services.rpc.errors import BadRequest, unary_errors
from services.rpc.projection import add_game_view, add_legal_actions
from services.rpc.server import MAX_STREAMS_PER_CONNECTION, build_server, mark_serving
from services.rpc.stubs import load_stubs


class EngineServicer:
    """Adapts EngineService requests to :class:`Engine` calls (errors via services.rpc.errors).

    The unary methods, Exchange and ExchangeBatches share one handler per command, so
    all answer alike.
    """

    def __init__(self, engine: Engine, max_in_flight: int = MAX_IN_FLIGHT) -> None:
        self._engine = engine
        self._pb = load_stubs().engine_pb2
        self._max_in_flight = max_in_flight
        self._sessions: set[ExchangeSession] = set()
        self._draining = False
        self._serialized = False

    def add_to(self, server: grpc.aio.Server) -> None:
        """Register EngineService on ``server`` with this servicer, as the generated
        ``add_EngineServiceServicer_to_server`` does, except that ExchangeBatches writes
        its batches as bytes (:func:`serialized_or_message`): the answers are serialized
        once each rather than copied into a batch message (issue 16)."""
        recorder = _Registrations()
        load_stubs().engine_pb2_grpc.add_EngineServiceServicer_to_server(self, recorder)
        handlers = dict(recorder.handlers)
        handlers["ExchangeBatches"] = handlers["ExchangeBatches"]._replace(
            response_serializer=serialized_or_message
        )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(ENGINE_SERVICE, handlers),)
        )
        server.add_registered_method_handlers(ENGINE_SERVICE, handlers)
        self._serialized = True

    async def drain(self) -> None:
        """Tell every Exchange stream, now and from now on, that this engine is stopping
        (its clients move their next commands to another stream, and engine)."""
        self._draining = True
        await asyncio.gather(*(session.drain() for session in list(self._sessions)))

    @unary_errors
    async def CreateGame(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        """See proto GameService.CreateGame."""
        return await self._create_game(request)

    @unary_errors
    async def SubmitAction(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        """See proto GameService.SubmitAction."""
        return await self._submit_action(request, _bot_key(context))

    @unary_errors
    async def JoinGame(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        """See proto GameService.JoinGame."""
        return await self._join_game(request)

    @unary_errors
    async def WithdrawSeat(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        """See proto EngineService.WithdrawSeat."""
        return await self._withdraw_seat(request)

    async def Exchange(
        self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        """See proto EngineService.Exchange (services.engine.transport.exchange_server)."""
        await self._exchange(requests, context, batched=False)

    async def ExchangeBatches(
        self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        """See proto EngineService.ExchangeBatches (services.engine.transport.exchange_server)."""
        await self._exchange(requests, context, batched=True)

    async def serve_link(self, requests: AsyncIterator[Any], connection: Any, bot_key: str) -> None:
        """One engine link connection's ExchangeBatches stream
        (services.engine.transport.link_server:
        ``connection`` has what a session uses of a gRPC context, the credential of its
        hello among it), served as ExchangeBatches is; its answers are written as bytes."""
        await self._exchange(requests, connection, batched=True, serialized=True)

    async def _exchange(
        self,
        requests: AsyncIterator[Any],
        context: grpc.aio.ServicerContext[Any, Any],
        batched: bool,
        serialized: bool | None = None,
    ) -> None:
        bot_key = _bot_key(context)  # a stream is one client's: its credential holds for all

        async def answer(request: Any, response: Any) -> None:
            command = request.WhichOneof("command")
            if command == "submit_action":
                await self._submit_action(request.submit_action, bot_key, response.submit_action)
            elif command == "create_game":
                await self._create_game(request.create_game, response.create_game)
            elif command == "join_game":
                response.join_game.CopyFrom(await self._join_game(request.join_game))
            elif command == "withdraw_seat":
                response.withdraw_seat.CopyFrom(await self._withdraw_seat(request.withdraw_seat))
            else:
                raise BadRequest("the request carries no command")

        session = ExchangeSession(
            context,
            answer,
            self._max_in_flight,
            batched,
            serialized=self._serialized if serialized is None else serialized,
        )
        self._sessions.add(session)
        try:
            if batched:
                await context.send_initial_metadata(((BATCHES_METADATA, "1"),))
            if self._draining:
                await session.drain()
            await session.run(requests)
        finally:
            self._sessions.discard(session)

    async def _create_game(self, request: Any, into: Any = None) -> Any:
        """The engine's CreateGame reply, written into ``into`` (an empty one: an
        Exchange response's own field) or a new one; returns it."""
        result = await self._engine.create_game(
            request.ruleset or default_ruleset(),
            seats_from_engine_proto(request.seats),
            parse_object(request.options_json, "options_json"),
            request.command_id,
            time_control_from_proto(request),
        )
        reply = self._pb.EngineServiceCreateGameResponse() if into is None else into
        reply.SetInParent()  # present even if every field is its default
        reply.game_id = result.game_id
        reply.version = result.version
        add_events(reply.events, result.written)
        return reply

    async def _submit_action(self, request: Any, bot_key: str, into: Any = None) -> Any:
        """The engine's SubmitAction reply, written into ``into`` (an empty one: an
        Exchange response's own field) or a new one; returns it. It carries the events
        appended, or with ``return_view`` the seat's view and legal actions after them
        (services.rpc.projection) instead. Raises the engine's domain errors."""
        result = await self._engine.submit_action(
            request.game_id,
            request.seat,
            parse_object(request.action_json, "action_json"),
            request.expected_version if request.HasField("expected_version") else None,
            request.command_id,
            bot_key=bot_key,
        )
        reply = self._pb.EngineServiceSubmitActionResponse() if into is None else into
        reply.SetInParent()
        reply.version = result.version
        reply.first_version = result.first_version
        if not request.return_view:
            add_events(reply.events, result.written)
            return reply
        # The gateway checked the seat's token; the seat is one of the game's, or the
        # engine would have refused the action. A fresh append left the game in this
        # engine's cache; a command id applied before (possibly by another engine, or
        # lost by Redis since) is answered with the game as the log has it now.
        if result.written:
            snapshot = await self._engine.reached(request.game_id, result.version)
        else:
            snapshot = await self._engine.load(request.game_id)
        add_game_view(reply.game, snapshot, request.seat)
        add_legal_actions(reply.legal_actions, snapshot, request.seat)
        return reply

    async def _join_game(self, request: Any) -> Any:
        result = await self._engine.join_game(
            request.game_id, request.seat, request.name, request.token_hash, request.command_id
        )
        return self._pb.EngineServiceJoinGameResponse(
            version=result.version, first_version=result.first_version
        )

    async def _withdraw_seat(self, request: Any) -> Any:
        result = await self._engine.withdraw_seat(request.game_id, request.seat)
        return self._pb.EngineServiceWithdrawSeatResponse(
            version=result.version, first_version=result.first_version
        )


class _Registrations:
    """Stands for a server to the generated registration: keeps its method handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass  # the same handlers come to add_registered_method_handlers

    def add_registered_method_handlers(self, name: str, handlers: dict[str, Any]) -> None:
        self.handlers = handlers


def _bot_key(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The bot credential a call carries ("" for none): only the bot worker sends one."""
    for key, value in context.invocation_metadata() or ():
        if key == BOT_KEY_METADATA and isinstance(value, str):
            return value
    return ""


ENGINE_CONNECTION_AGE_MS = 60_000
"""How long a client connection to an engine lives before the engine asks the client to
reconnect (in-flight calls get 10 s more to finish)."""


async def start_engine_server(
    engine: Engine,
    address: str,
    max_streams_per_connection: int = MAX_STREAMS_PER_CONNECTION,
    max_in_flight_per_exchange: int = MAX_IN_FLIGHT,
    stopping: asyncio.Event | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Start an EngineService server on ``address`` (port 0: any). Returns (server, port).

    ``max_streams_per_connection`` is the calls one gateway connection may have open at
    once; a gateway's calls beyond it wait in its client, they do not fail (an Exchange
    stream is one call for as long as it is open). ``max_in_flight_per_exchange`` is the
    commands of one Exchange stream worked on at once. When ``stopping`` is set (stop the
    server right after), every Exchange stream is told to drain, so gateways move their
    commands to other engines during the stop's grace instead of losing those in flight
    when it ends.

    Connections are closed (gracefully) after ENGINE_CONNECTION_AGE_MS, so clients
    resolve the engines' name again and spread onto engines added since (a headless
    Service's DNS name lists every pod; see docs/operations.md, "Gateway to engine").
    """
    servicer = EngineServicer(engine, max_in_flight_per_exchange)
    server, port, health = build_server(
        address,
        [servicer.add_to],
        [ENGINE_SERVICE],
        max_streams_per_connection=max_streams_per_connection,
        max_connection_age_ms=ENGINE_CONNECTION_AGE_MS,
    )
    await server.start()
    await mark_serving(health, [ENGINE_SERVICE])
    if stopping is not None:
        drain = asyncio.create_task(_drain_when(stopping, servicer))
        _DRAINS.add(drain)
        drain.add_done_callback(_DRAINS.discard)
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

    Each connection is an ExchangeBatches stream answered as on EngineService, with
    ``max_in_flight_per_exchange`` commands at once; when ``stopping`` is set, every
    connection is told to drain, as the gRPC streams are. Raises OSError when the address
    cannot be bound.
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
