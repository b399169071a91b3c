"""EngineClient over gRPC (EngineService), raising the same domain errors as the engine."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Self

import grpc

from services.engine.domain.bot_credential import BOT_KEY_METADATA
from services.engine.domain.command_result import CommandResult
from services.engine.domain.errors import InvalidArgument
from services.engine.domain.game import SeatSpec
from services.engine.domain.records import canonical_json
from services.engine.domain.timing.time_control import TimeControl
from services.engine.transport.exchange_client import (
    MAX_CALL_BYTES,
    STREAMS_PER_CHANNEL,
    EngineStreamsStub,
    ExchangePool,
)
from services.engine.transport.exchange_outbox import FRAMING_BYTES
from services.engine.transport.link_client import LinkStub, LinkTarget
from services.rpc import deadlines
from services.rpc.convert import add_seats, event_from_proto, time_control_to_proto
from services.rpc.errors import from_rpc_error, rpc_error_from_status
from services.rpc.stubs import load_stubs

CHANNEL_OPTIONS = (
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.initial_reconnect_backoff_ms", 500),
    ("grpc.min_reconnect_backoff_ms", 500),
    ("grpc.max_reconnect_backoff_ms", 1000),
    # Each channel of the pool opens its own connections: without this, grpc shares one
    # connection per address between channels with equal options, and a pool of
    # channels would still be one connection (100 streams) per engine.
    ("grpc.use_local_subchannel_pool", 1),
    # Find a dead engine connection within ~30 s even while no call is in flight.
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
)
"""Calls spread over every address the target resolves to (a ``dns:///`` name of a
headless Service resolves to every engine pod); a restarted engine is found again within
seconds."""

CHANNELS = 4
"""Channels per EngineClient: calls go to them in turn, so a gateway holds CHANNELS
connections to each engine and up to CHANNELS x the engine's streams per connection
(services.rpc.server.MAX_STREAMS_PER_CONNECTION) calls in flight per engine."""


MAX_COMMAND_BYTES = MAX_CALL_BYTES - FRAMING_BYTES
"""Largest command (a CreateGame, SubmitAction or JoinGame request) sent to an engine,
on either transport: within what an Exchange stream carries once it is wrapped in an
Exchange request (exchange_client.MAX_CALL_BYTES). The gateway re-encodes JSON
canonically, so a public request within its own limit can exceed this."""

REFUSED_RETRIES = 6
"""Times a call the engine refused unprocessed (REFUSED_STREAM) is sent again."""
REFUSED_BACKOFF_S = 0.02
"""Mean wait before the first such retry (0.5-1.5x, at random); doubled for each further
one: about 1.3 s over all six."""


def refused_stream(error: grpc.aio.AioRpcError) -> bool:
    """True if the engine refused the call's HTTP/2 stream (RST_STREAM REFUSED_STREAM,
    error code 7) before processing it, so sending it again cannot apply it twice.

    That happens on a fresh connection: calls sent before the engine's SETTINGS frame
    arrived may exceed its streams per connection. grpc reports no HTTP/2 error code,
    only this text in the details of an UNAVAILABLE status.
    """
    return error.code() == grpc.StatusCode.UNAVAILABLE and "error code 7" in (error.details() or "")


def channel_target(target: str) -> str:
    """The gRPC target for ``--engine``.

    ``host:port`` and gRPC targets (``dns:///engines.svc:50052``, ``ipv4:a:p,b:p``) pass
    through; a plain list ``a:p,b:p`` of IP literals becomes ``ipv4:a:p,b:p`` (or
    ``ipv6:``), so several engines can be named without a DNS name resolving to them all.
    """
    if "," not in target or ":///" in target or target.startswith(("ipv4:", "ipv6:")):
        return target
    return ("ipv6:" if "[" in target else "ipv4:") + target


TRANSPORT_ENV = "TEOTI_ENGINE_TRANSPORT"
"""Environment variable choosing the transport when none is given (see TRANSPORTS)."""
TRANSPORTS = ("stream", "unary", "link")
"""``stream``: commands multiplexed on a few EngineService.Exchange streams
(services.engine.transport.exchange_client), the default; ``unary``: one CreateGame/SubmitAction/
JoinGame call each (engines from before Exchange, or to compare); ``link``: the same
streams on the engine link, plain TCP connections to the engines' ``--link-port``
(services.engine.transport.link_client; the target then names link addresses)."""
_EXCHANGE_FIELDS = {
    "CreateGame": "create_game",
    "SubmitAction": "submit_action",
    "JoinGame": "join_game",
    "WithdrawSeat": "withdraw_seat",
}


def transport_choice(transport: str | None = None) -> str:
    """``transport``, else ``$TEOTI_ENGINE_TRANSPORT``, else ``stream``. Raises ValueError
    for a name not in TRANSPORTS."""
    chosen = transport or os.environ.get(TRANSPORT_ENV, "") or TRANSPORTS[0]
    if chosen not in TRANSPORTS:
        raise ValueError(f"engine transport must be one of {', '.join(TRANSPORTS)}, not {chosen!r}")
    return chosen


class RemoteEngineClient:
    """EngineClient talking to ``teoti engine`` at ``target`` (an async context manager
    that closes it on exit).

    ``target`` is ``host:port``, a list ``ip:port,ip:port`` or a gRPC target name (see
    :func:`channel_target`). The client keeps a pool of ``channels`` channels and sends
    each call on the next one; each channel balances round robin over every address
    the target resolves to. Engines share nothing but Redis (appends are compare-and-set
    on the game's version), so any engine may serve any call. Channels are created
    lazily by grpc (nothing connects in the constructor). ``timeout_s`` bounds each
    call, or less when the gateway's caller has a sooner deadline
    (:mod:`services.rpc.deadlines`); transport failures surface as grpc.aio.AioRpcError.
    A command over MAX_COMMAND_BYTES is refused InvalidArgument, unsent.

    ``bot_key`` is the bot credential (the bot worker's client only): it goes with every
    SubmitAction in the ``x-teoti-bot-key`` metadata (with every Exchange stream).

    ``transport`` (see :data:`TRANSPORTS`, :func:`transport_choice`): with ``stream``
    each channel carries ``streams_per_channel`` Exchange streams and each call goes on
    the next stream instead of being a call of its own; with ``link`` the same streams
    are engine link connections (``channels`` x ``streams_per_channel`` of them) to the
    link addresses ``target`` names (services.engine.transport.link_client.parse_target; a name
    is resolved again for new connections), and no gRPC channel is opened. On every
    transport a call raises the same domain errors, and the same grpc.aio.AioRpcError
    (UNAVAILABLE, DEADLINE_EXCEEDED) for an engine that is down, slow or gone mid-call.
    Raises ValueError for an unknown transport, or a link target without host:port.
    """

    def __init__(
        self,
        target: str,
        timeout_s: float = 10.0,
        channels: int = CHANNELS,
        bot_key: str = "",
        transport: str | None = None,
        streams_per_channel: int = STREAMS_PER_CHANNEL,
    ) -> None:
        self.transport = transport_choice(transport)
        stubs = load_stubs()
        self._pb = stubs.engine_pb2
        self._timeout = timeout_s
        self._bot_metadata = ((BOT_KEY_METADATA, bot_key),) if bot_key else None
        self._channels: list[grpc.aio.Channel] = []
        self._exchange: ExchangePool | None = None
        if self.transport == "link":
            # As many connections as the gRPC transport has streams: CHANNELS x
            # streams_per_channel, each to the next engine of the target.
            link = LinkStub(LinkTarget(target))
            self._exchange = ExchangePool(
                [link] * max(channels, 1), self._bot_metadata, streams_per_channel
            )
            self._stubs: Iterator[Any] = itertools.cycle(())
            return
        name = channel_target(target)
        self._channels = [
            grpc.aio.insecure_channel(name, options=CHANNEL_OPTIONS)
            for _ in range(max(channels, 1))
        ]
        engine_stubs = [
            stubs.engine_pb2_grpc.EngineServiceStub(channel) for channel in self._channels
        ]
        self._stubs = itertools.cycle(engine_stubs)
        if self.transport == "stream":
            self._exchange = ExchangePool(
                [EngineStreamsStub(channel) for channel in self._channels],
                self._bot_metadata,
                streams_per_channel,
            )

    def _command(self, method: str) -> tuple[Any, Any]:
        """(``method``'s request to fill in, what :meth:`_call` is given to send): on the
        stream transport the command is built in its Exchange request's own field, so
        nothing is copied into one (issue 16); on the unary one both are the request."""
        if self._exchange is None:
            request = getattr(self._pb, f"EngineService{method}Request")()
            return request, request
        envelope = self._pb.EngineServiceExchangeRequest()
        command = getattr(envelope, _EXCHANGE_FIELDS[method])
        command.SetInParent()  # the oneof names it even if every field is its default
        return command, envelope

    async def _send(self, method: str, request: Any, metadata: Any) -> Any:
        """One attempt of ``method`` with ``request`` (:meth:`_command`'s second): a
        unary call, or a request on an Exchange stream."""
        timeout = deadlines.timeout(self._timeout)
        if self._exchange is None:
            return await getattr(next(self._stubs), method)(
                request, timeout=timeout, metadata=metadata
            )
        response = await self._exchange.call(request, timeout)
        if response.WhichOneof("result") == "error":
            raise rpc_error_from_status(response.error)
        return getattr(response, _EXCHANGE_FIELDS[method])

    async def _call(self, method: str, command: Any, request: Any, metadata: Any = None) -> Any:
        """``method`` with ``command`` (its request), sent as ``request`` (see
        :meth:`_command`), retried while the engine refuses it unprocessed."""
        if (size := command.ByteSize()) > MAX_COMMAND_BYTES:
            # Refused here as the bad argument it is: the engine's RESOURCE_EXHAUSTED
            # reads as an outage, and on a stream would end every call on it.
            raise InvalidArgument(
                f"the command is too large for the engine: {size} bytes once encoded, "
                f"at most {MAX_COMMAND_BYTES}"
            )
        for attempt in range(REFUSED_RETRIES + 1):
            try:
                return await self._send(method, request, metadata)
            except grpc.aio.AioRpcError as error:
                if attempt < REFUSED_RETRIES and refused_stream(error):
                    # Jittered, so calls refused together do not all come back together.
                    await asyncio.sleep(REFUSED_BACKOFF_S * 2**attempt * (0.5 + random.random()))
                    continue
                raise from_rpc_error(error) from error
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def create_game(
        self,
        ruleset: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
    ) -> CommandResult:
        """See EngineClient.create_game."""
        command, request = self._command("CreateGame")
        command.ruleset = ruleset
        add_seats(command.seats, seats, token_hashes=True)
        command.options_json = canonical_json(dict(options))
        command.command_id = command_id
        if time_control:
            command.time_control.CopyFrom(time_control_to_proto(time_control))
        reply = await self._call("CreateGame", command, request)
        written = tuple(event_from_proto(event) for event in reply.events)
        return CommandResult(reply.game_id, reply.version, 1, written)

    async def submit_action(
        self,
        game_id: str,
        seat: int,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        command_id: str = "",
        return_view: bool = False,
    ) -> CommandResult:
        """See EngineClient.submit_action: with ``return_view`` the engine projects the
        game for ``seat`` and sends no events (``CommandResult.view``; an engine from
        before return_view sends its events and no view, as without it)."""
        command, request = self._command("SubmitAction")
        command.game_id = game_id
        command.seat = seat
        command.action_json = canonical_json(dict(action))
        command.command_id = command_id
        if expected_version is not None:
            command.expected_version = expected_version
        if return_view:
            command.return_view = True
        reply = await self._call("SubmitAction", command, request, self._bot_metadata)
        if reply.HasField("game"):
            return CommandResult(game_id, reply.version, reply.first_version, view=reply)
        written = tuple(event_from_proto(event) for event in reply.events)
        return CommandResult(game_id, reply.version, reply.first_version, written)

    async def join_game(
        self, game_id: str, seat: int, name: str, token_hash: str, command_id: str = ""
    ) -> CommandResult:
        """See EngineClient.join_game."""
        command, request = self._command("JoinGame")
        command.game_id = game_id
        command.seat = seat
        command.name = name
        command.token_hash = token_hash
        command.command_id = command_id
        reply = await self._call("JoinGame", command, request)
        return CommandResult(game_id, reply.version, reply.first_version)

    async def withdraw_seat(self, game_id: str, seat: int) -> CommandResult:
        """See EngineClient.withdraw_seat."""
        command, request = self._command("WithdrawSeat")
        command.game_id = game_id
        command.seat = seat
        reply = await self._call("WithdrawSeat", command, request)
        return CommandResult(game_id, reply.version, reply.first_version)

    async def close(self) -> None:
        """Close every stream and channel."""
        if self._exchange is not None:
            await self._exchange.close()
        for channel in self._channels:
            await channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
