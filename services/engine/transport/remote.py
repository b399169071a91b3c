"""EngineClient over the engine link, raising the same domain errors as the engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    ExchangePool,
)
from services.engine.transport.exchange_outbox import FRAMING_BYTES
from services.engine.transport.link_client import LinkStub, LinkTarget
from services.engine.transport.proto_convert import (
    add_seats,
    event_from_proto,
    time_control_to_proto,
)
from services.engine.transport.status_mapping import from_rpc_error
from services.rpc import deadlines
from services.rpc.errors import rpc_error_from_status
from services.rpc.generated import engine_service_pb2 as pb

CHANNELS = 4
"""Link connections per EngineClient, times ``streams_per_channel``: each connection goes
to the next engine the target names, so a gateway spreads its commands over every engine
(docs/operations.md, "Engine link")."""


MAX_COMMAND_BYTES = MAX_CALL_BYTES - FRAMING_BYTES
"""Largest command (a CreateGame, SubmitAction or JoinGame request) sent to an engine:
within what a link connection carries once it is wrapped in an Exchange request
(exchange_client.MAX_CALL_BYTES). A command carries what its caller wrote (an action's
text as the client sent it, other JSON re-encoded canonically), so a public request
within its own limit can exceed this."""

_EXCHANGE_FIELDS = {
    "CreateGame": "create_game",
    "SubmitAction": "submit_action",
    "JoinGame": "join_game",
    "WithdrawSeat": "withdraw_seat",
    "ResignSeat": "resign_seat",
    "ClaimSeatForBot": "claim_seat_for_bot",
}


class RemoteEngineClient:
    """EngineClient talking to ``teoti engine`` over the engine link at ``target`` (an
    async context manager that closes it on exit).

    ``target`` names the engines' link addresses (their ``--link-port``): ``host:port``,
    a list ``a:p,b:p`` or ``dns:///name:port`` (services.engine.transport.link_client.
    parse_target; a name is resolved again for new connections). The client keeps
    ``channels`` x ``streams_per_channel`` link connections, each to the next engine of
    the target, and sends each call, tagged with a request id, on the next one. Engines
    share nothing but Redis (appends are compare-and-set on the game's version), so any
    engine may serve any call. Nothing connects in the constructor. ``timeout_s`` bounds
    each call, or less when the gateway's caller has a sooner deadline
    (:mod:`services.rpc.deadlines`). A call raises the engine's domain errors, and
    grpc.aio.AioRpcError (UNAVAILABLE, DEADLINE_EXCEEDED) for an engine that is down,
    slow or gone mid-call. A command over MAX_COMMAND_BYTES is refused InvalidArgument,
    unsent. Raises ValueError for a target without host:port.

    ``bot_key`` is the bot credential (the bot worker's client only): it goes with every
    link connection (the ``x-teoti-bot-key`` metadata of its hello).
    """

    def __init__(
        self,
        target: str,
        timeout_s: float = 10.0,
        channels: int = CHANNELS,
        bot_key: str = "",
        streams_per_channel: int = STREAMS_PER_CHANNEL,
    ) -> None:
        self._timeout = timeout_s
        self._bot_metadata = ((BOT_KEY_METADATA, bot_key),) if bot_key else None
        link = LinkStub(LinkTarget(target))
        self._exchange = ExchangePool(
            [link] * max(channels, 1), self._bot_metadata, streams_per_channel
        )

    def _command(self, method: str) -> tuple[Any, pb.EngineServiceExchangeRequest]:
        """(``method``'s request to fill in, the Exchange request carrying it): the command
        is built in its Exchange request's own field, so nothing is copied (issue 16)."""
        envelope = pb.EngineServiceExchangeRequest()
        command = getattr(envelope, _EXCHANGE_FIELDS[method])
        command.SetInParent()  # the oneof names it even if every field is its default
        return command, envelope

    async def _send(self, method: str, request: pb.EngineServiceExchangeRequest) -> Any:
        """One attempt of ``method`` with ``request`` (:meth:`_command`'s second) on a
        link connection."""
        response = await self._exchange.call(request, deadlines.timeout(self._timeout))
        if response.WhichOneof("result") == "error":
            raise rpc_error_from_status(response.error)
        return getattr(response, _EXCHANGE_FIELDS[method])

    async def _call(
        self, method: str, command: Any, request: pb.EngineServiceExchangeRequest
    ) -> Any:
        """``method`` with ``command`` (its request), sent as ``request`` (see
        :meth:`_command`); a transport failure raised as
        services.engine.transport.status_mapping maps it."""
        if (size := command.ByteSize()) > MAX_COMMAND_BYTES:
            # Refused here as the bad argument it is: the engine's RESOURCE_EXHAUSTED
            # reads as an outage, and on a stream would end every call on it.
            raise InvalidArgument(
                f"the command is too large for the engine: {size} bytes once encoded, "
                f"at most {MAX_COMMAND_BYTES}"
            )
        try:
            return await self._send(method, request)
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from error

    async def create_game(
        self,
        ruleset: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
        rated: bool = False,
    ) -> CommandResult:
        """See EngineClient.create_game."""
        command, request = self._command("CreateGame")
        command.ruleset = ruleset
        add_seats(command.seats, seats, token_hashes=True)
        command.options_json = canonical_json(dict(options))
        command.command_id = command_id
        if time_control:
            command.time_control.CopyFrom(time_control_to_proto(time_control))
        command.rated = rated
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
        public_reply: bool = False,
        action_json: str = "",
    ) -> CommandResult:
        """See EngineClient.submit_action: with ``return_view`` the engine projects the
        game for ``seat`` and sends no events (``CommandResult.view``; an engine from
        before return_view sends its events and no view, as without it). With
        ``public_reply`` too it sends that as GameService's SubmitActionResponse
        serialized (``CommandResult.public_reply``, no ``view``; an engine from before
        public_reply sends the view). ``action_json`` (the text ``action`` was decoded
        from) is sent as it is, else ``action`` as canonical JSON: the engine decodes
        either to the same action, and a command id's hash is of the decoded action."""
        command, request = self._command("SubmitAction")
        command.game_id = game_id
        command.seat = seat
        # The caller's text when it has one: encoding the action again cost the gateway
        # a canonical_json a move (issue 35).
        command.action_json = action_json or canonical_json(dict(action))
        command.command_id = command_id
        if expected_version is not None:
            command.expected_version = expected_version
        if return_view:
            command.return_view = True
            command.public_reply = public_reply
        reply = await self._call("SubmitAction", command, request)
        if reply.public_reply:  # never empty when sent: it holds the view
            return CommandResult(
                game_id, reply.version, reply.first_version, public_reply=reply.public_reply
            )
        if reply.HasField("game"):
            return CommandResult(game_id, reply.version, reply.first_version, view=reply)
        written = tuple(event_from_proto(event) for event in reply.events)
        return CommandResult(game_id, reply.version, reply.first_version, written)

    async def join_game(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        command_id: str = "",
        player: str = "",
    ) -> CommandResult:
        """See EngineClient.join_game."""
        command, request = self._command("JoinGame")
        command.game_id = game_id
        command.seat = seat
        command.name = name
        command.token_hash = token_hash
        command.command_id = command_id
        command.player = player
        reply = await self._call("JoinGame", command, request)
        return CommandResult(game_id, reply.version, reply.first_version)

    async def withdraw_seat(self, game_id: str, seat: int) -> CommandResult:
        """See EngineClient.withdraw_seat."""
        command, request = self._command("WithdrawSeat")
        command.game_id = game_id
        command.seat = seat
        reply = await self._call("WithdrawSeat", command, request)
        return CommandResult(game_id, reply.version, reply.first_version)

    async def resign_seat(self, game_id: str, seat: int, command_id: str = "") -> CommandResult:
        """See EngineClient.resign_seat."""
        command, request = self._command("ResignSeat")
        command.game_id = game_id
        command.seat = seat
        command.command_id = command_id
        reply = await self._call("ResignSeat", command, request)
        return CommandResult(game_id, reply.version, reply.first_version)

    async def claim_seat_for_bot(
        self, game_id: str, seat: int, claimed_by: int, command_id: str = ""
    ) -> CommandResult:
        """See EngineClient.claim_seat_for_bot."""
        command, request = self._command("ClaimSeatForBot")
        command.game_id = game_id
        command.seat = seat
        command.claimed_by = claimed_by
        command.command_id = command_id
        reply = await self._call("ClaimSeatForBot", command, request)
        return CommandResult(game_id, reply.version, reply.first_version)

    async def close(self) -> None:
        """Close every link connection (calls still pending fail UNAVAILABLE)."""
        await self._exchange.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
