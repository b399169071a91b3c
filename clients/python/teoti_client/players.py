"""Typed access to ``gameserver.v1.PlayerService``: player accounts and credentials.

A player credential (``tpc_...``, shown once) travels as the call's metadata
``authorization: Player <credential>``; :class:`PlayerCalls` adds it to the calls that
need it. :class:`~teoti_client.client.GameServiceClient` exposes these calls as its own
methods (``register_player``, ``my_player`` ...), on its one channel.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc

from teoti_client.errors import decode_error, error_info
from teoti_client.proto import player_service_pb2 as pb
from teoti_client.proto import player_service_pb2_grpc as pb_grpc


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    """A player's public profile: ``player_id`` (what a seat names), ``name`` (display
    form as first registered), ``bot`` (a bot account), ``created_at`` (ISO 8601 UTC)."""

    player_id: str
    name: str
    bot: bool
    created_at: str


@dataclass(frozen=True, slots=True)
class PlayerCredentialInfo:
    """One of your credentials, never its secret: ``credential_id`` (what revoking
    names), ``label`` ("phone", "bot"), ``created_at`` (ISO 8601 UTC)."""

    credential_id: str
    label: str
    created_at: str


@dataclass(frozen=True, slots=True)
class RegisteredPlayer:
    """RegisterPlayer's answer: the ``player``, its first ``credential`` (keep it
    secret; shown this once, "" on a retry of a server-made one) and that credential's
    ``credential_info``."""

    player: PlayerProfile
    credential: str = field(repr=False)  # a secret: never in a repr, a log or a traceback
    credential_info: PlayerCredentialInfo


@dataclass(frozen=True, slots=True)
class PlayerNotice:
    """One notice of a player's stream (WatchPlayer): ``notice_id`` (``"<ms>-<n>"``, what
    resuming names), ``v`` (its schema version), ``kind`` (``"your_turn"``,
    ``"game_started"``...; skip one you do not know), ``at_ms`` (when it was posted, ms
    since the epoch) and ``data`` (its fields, e.g. a ``your_turn``'s ``game_id``,
    ``ruleset``, ``seat``, ``version`` and ``deadline_ms``)."""

    notice_id: str
    v: int
    kind: str
    at_ms: int
    data: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class PlayerWebhookInfo:
    """One credential's webhook (never its secret) and how its deliveries stand:
    ``credential_id`` (the credential that set it), ``url``, ``created_at`` (ISO 8601
    UTC), ``last_delivered_ms`` (when a notice was last answered 2xx, ms since the epoch;
    0: never), ``last_error`` (what the last failed try got; "" since a success),
    ``failing_since_ms`` (when the current failures began; 0: not failing) and
    ``dropped`` (notices given up after every retry failed)."""

    credential_id: str
    url: str
    created_at: str
    last_delivered_ms: int = 0
    last_error: str = ""
    failing_since_ms: int = 0
    dropped: int = 0


WATCH_TOO_SLOW = "watch_too_slow"
"""The refusal of a stream the client fell too far behind on (it resumes)."""


def player_metadata(credential: str) -> tuple[tuple[str, str], ...]:
    """The call metadata that acts as the player holding ``credential``."""
    return (("authorization", f"Player {credential}"),)


def _profile(message: pb.Player) -> PlayerProfile:
    return PlayerProfile(message.player_id, message.name, message.bot, message.created_at)


def _credential(message: pb.PlayerCredential) -> PlayerCredentialInfo:
    return PlayerCredentialInfo(message.credential_id, message.label, message.created_at)


def _webhook(message: pb.PlayerWebhook) -> PlayerWebhookInfo:
    return PlayerWebhookInfo(
        message.credential_id,
        message.url,
        message.created_at,
        message.last_delivered_ms,
        message.last_error,
        message.failing_since_ms,
        message.dropped,
    )


Caller = Callable[[Any, Any, tuple[tuple[str, str], ...]], Awaitable[Any]]
"""Makes one unary call (method, request, metadata), decoding refusals."""


class PlayerCalls:
    """Every PlayerService call, made through ``call`` on ``channel``'s stub."""

    def __init__(self, channel: grpc.aio.Channel, call: Caller) -> None:
        self._stub = pb_grpc.PlayerServiceStub(channel)
        self._call = call

    async def register(
        self,
        name: str,
        bot: bool = False,
        label: str = "",
        command_id: str = "",
        credential: str = "",
    ) -> RegisteredPlayer:
        """Register ``name``; see :meth:`GameServiceClient.register_player`."""
        request = pb.PlayerServiceRegisterPlayerRequest(
            name=name,
            bot=bot,
            credential_label=label,
            command_id=command_id,
            credential=credential,
        )
        reply: pb.PlayerServiceRegisterPlayerResponse = await self._call(
            self._stub.RegisterPlayer, request, ()
        )
        return RegisteredPlayer(
            _profile(reply.player), reply.credential, _credential(reply.credential_info)
        )

    async def create_credential(
        self, credential: str, label: str = "", command_id: str = "", chosen: str = ""
    ) -> tuple[PlayerCredentialInfo, str]:
        """Another credential for the player holding ``credential``: (info, secret)."""
        request = pb.CreatePlayerCredentialRequest(
            label=label, command_id=command_id, credential=chosen
        )
        reply: pb.CreatePlayerCredentialResponse = await self._call(
            self._stub.CreatePlayerCredential, request, player_metadata(credential)
        )
        return _credential(reply.credential_info), reply.credential

    async def list_credentials(self, credential: str) -> list[PlayerCredentialInfo]:
        """The credentials of the player holding ``credential``, oldest first."""
        reply: pb.ListPlayerCredentialsResponse = await self._call(
            self._stub.ListPlayerCredentials,
            pb.ListPlayerCredentialsRequest(),
            player_metadata(credential),
        )
        return [_credential(c) for c in reply.credentials]

    async def revoke_credential(self, credential: str, credential_id: str) -> None:
        """Revoke the credential ``credential_id`` of the player holding ``credential``."""
        await self._call(
            self._stub.RevokePlayerCredential,
            pb.RevokePlayerCredentialRequest(credential_id=credential_id),
            player_metadata(credential),
        )

    async def get(self, player_id: str = "", name: str = "") -> PlayerProfile:
        """A player's public profile, by id or by name (exactly one)."""
        reply: pb.GetPlayerResponse = await self._call(
            self._stub.GetPlayer, pb.GetPlayerRequest(player_id=player_id, name=name), ()
        )
        return _profile(reply.player)

    async def me(self, credential: str) -> tuple[PlayerProfile, str]:
        """(profile, credential id) of the player holding ``credential``."""
        reply: pb.GetMyPlayerResponse = await self._call(
            self._stub.GetMyPlayer, pb.GetMyPlayerRequest(), player_metadata(credential)
        )
        return _profile(reply.player), reply.credential_id

    async def set_webhook(self, credential: str, url: str) -> tuple[PlayerWebhookInfo, str]:
        """Set (or replace) the webhook of ``credential`` to ``url``: (the webhook, its
        signing secret, shown this once)."""
        reply: pb.SetPlayerWebhookResponse = await self._call(
            self._stub.SetPlayerWebhook,
            pb.SetPlayerWebhookRequest(url=url),
            player_metadata(credential),
        )
        return _webhook(reply.webhook), reply.secret

    async def get_webhook(self, credential: str) -> PlayerWebhookInfo:
        """The webhook of ``credential`` (GameNotFound ``webhook_not_found`` if none)."""
        reply: pb.GetPlayerWebhookResponse = await self._call(
            self._stub.GetPlayerWebhook, pb.GetPlayerWebhookRequest(), player_metadata(credential)
        )
        return _webhook(reply.webhook)

    async def delete_webhook(self, credential: str) -> None:
        """Drop the webhook of ``credential`` (GameNotFound ``webhook_not_found`` if none)."""
        await self._call(
            self._stub.DeletePlayerWebhook,
            pb.DeletePlayerWebhookRequest(),
            player_metadata(credential),
        )

    async def watch(
        self, credential: str, after: str = "", opened: Callable[[], None] | None = None
    ) -> AsyncIterator[PlayerNotice]:
        """The notices of the player holding ``credential`` after the id ``after`` ("":
        every one kept), then each new one, until the caller stops; resumed after the
        last one yielded when the server drops a slow stream (``watch_too_slow``).
        ``opened`` is called each time the server has answered the stream's opening
        (before any notice). Raises NotAuthorized ``player_credential_invalid`` (also
        once revoked)."""
        request = pb.WatchPlayerRequest(after=after)
        while True:
            try:
                call = self._stub.WatchPlayer(request, metadata=player_metadata(credential))
                if opened is not None:
                    # The server sends its headers once it admitted the stream and is
                    # about to read the inbox: what is posted from now on is delivered.
                    await call.initial_metadata()
                    opened()
                async for reply in call:
                    notice = reply.notice
                    request.after = notice.id
                    yield PlayerNotice(
                        notice.id, notice.v, notice.kind, notice.at_ms, json.loads(notice.data_json)
                    )
                return
            except grpc.aio.AioRpcError as error:
                info = error_info(error)
                if info is not None and info.reason == WATCH_TOO_SLOW:
                    continue  # resume after the last notice yielded
                raise decode_error(error) from error
