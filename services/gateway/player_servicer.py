"""PlayerService over gRPC: proto <-> services.players.service, errors mapped in
services.engine.transport.status_mapping (refusals carry the rule as ErrorInfo reason).

Every call spends one unit of the caller's rate limit (per address); RegisterPlayer and
CreatePlayerCredential also one of the address's account quota. Calls that act as a
player authenticate ``authorization: Player <credential>`` against Redis each time
(services.players.service.PlayerService.authenticate): a revoke is felt at once.

WatchPlayer streams the caller's notices from the process's
:class:`~services.notices.hub.NoticeHub` (backlog after ``after``, then live), held to the
same limits as WatchGame (the process's stream budget per address, open streams per
player and per address). It re-checks the credential before each notice it sends, so a
revoked credential gets nothing more: its stream ends at its next notice.

SetPlayerWebhook, GetPlayerWebhook and DeletePlayerWebhook act on the credential the
call carries (services.players.webhook_service), its URL checked by
services.notices.webhook_url with the deployment's ``webhooks_allow_private`` (the
PlayerService's, so both faces apply one rule).
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import AsyncIterator
from typing import Any

from teoti_client.proto import player_service_pb2 as pb
from teoti_client.proto import player_service_pb2_grpc as pb_grpc

from services.engine.domain.errors import InvalidArgument
from services.engine.transport.status_mapping import stream_errors, unary_errors
from services.gateway.player_auth import player_credential
from services.notices.hub import NoticeHub
from services.notices.notice import Notice
from services.notices.webhook_url import WebhookUrlInvalid, check_url
from services.players.errors import InvalidPlayer, InvalidWebhook
from services.players.model import CredentialInfo, Player
from services.players.service import PlayerService
from services.players.webhook_service import WebhookInfo, WebhookService
from services.rpc.limits import (
    ClientRateLimiter,
    CreationQuota,
    StreamBudget,
    WatcherLimit,
    peer_address,
)

PLAYER_SERVICE = "gameserver.v1.PlayerService"

Context = Any  # grpc.aio.ServicerContext; grpc ships no type stubs


def player_to_proto(player: Player) -> pb.Player:
    """The public Player message."""
    return pb.Player(
        player_id=player.player_id, name=player.name, bot=player.bot, created_at=player.created_at
    )


def credential_to_proto(info: CredentialInfo) -> pb.PlayerCredential:
    """A credential's public description (never its secret)."""
    return pb.PlayerCredential(
        credential_id=info.credential_id, label=info.label, created_at=info.created_at
    )


def webhook_to_proto(info: WebhookInfo) -> pb.PlayerWebhook:
    """A credential's webhook and its deliveries (never its secret)."""
    return pb.PlayerWebhook(
        credential_id=info.credential_id,
        url=info.url,
        created_at=info.created_at,
        last_delivered_ms=info.status.last_ok_ms,
        last_error=info.status.last_error,
        failing_since_ms=info.status.failing_since_ms,
        dropped=info.status.dropped,
    )


def webhook_url_check(url: str, allow_private: bool = False) -> None:
    """services.notices.webhook_url's policy as PlayerService refuses a URL: raises
    InvalidWebhook (INVALID_ARGUMENT, the rule broken as its reason)."""
    try:
        check_url(url, allow_private)
    except WebhookUrlInvalid as exc:
        raise InvalidWebhook(exc.rule, exc.message) from exc


class NoticeCursorInvalid(InvalidArgument):
    """WatchPlayer ``after`` that is no notice id (INVALID_ARGUMENT, reason
    ``notice_cursor``): a cursor is "", "0" or an id a notice carried ("<ms>-<n>")."""

    rule = "notice_cursor"


class NoticesUnavailable(InvalidArgument):
    """WatchPlayer on a gateway built without a notice hub (INVALID_ARGUMENT, reason
    ``player_streams_off``): a composition that serves accounts but no streams."""

    rule = "player_streams_off"


def notice_to_proto(notice: Notice) -> pb.PlayerNotice:
    """The public PlayerNotice message (docs/players.md, "Player streams")."""
    return pb.PlayerNotice(
        id=notice.notice_id,
        v=notice.v,
        kind=notice.kind.value,
        at_ms=notice.at_ms,
        data_json=notice.data_json(),
    )


def check_cursor(after: str) -> str:
    """``after`` if it is "", "0" or a notice id ("<ms>-<n>", each part below 2**64, as
    a Redis stream id, the time below its largest: nothing can come after that id);
    raises NoticeCursorInvalid."""
    match = _CURSOR.fullmatch(after)
    if after and (
        match is None
        or any(int(p) >= 2**64 for p in match.groups() if p)
        or int(match.group(1)) == 2**64 - 1
    ):
        raise NoticeCursorInvalid('after must be a notice id ("<ms>-<n>"), "0" or empty')
    return after


_CURSOR = re.compile(r"([0-9]{1,20})(?:-([0-9]{1,20}))?")


class PlayerServicer(pb_grpc.PlayerServiceServicer):  # type: ignore[misc]
    """gRPC handlers of PlayerService (see proto/gameserver/v1/player_service.proto).

    Args:
        service: the player accounts.
        limiter: the gateway's rate limit per client (shared with its other services).
        accounts: registrations and credential creations per address.
        notices: the process's player-stream hub (None: WatchPlayer is refused,
            ``player_streams_off``).
        watchers: WatchPlayer streams open at once per player and per address (the
            gateway's WatchGame limit object, or one of its own).
        streams: the process's stream budget (shared with WatchGame and Play, and
            between the faces).
    """

    def __init__(
        self,
        service: PlayerService,
        limiter: ClientRateLimiter | None = None,
        accounts: CreationQuota | None = None,
        notices: NoticeHub | None = None,
        watchers: WatcherLimit | None = None,
        streams: StreamBudget | None = None,
    ) -> None:
        self._service = service
        self._limiter = limiter or ClientRateLimiter()
        self._accounts = accounts or CreationQuota()
        self._notices = notices
        self._watchers = watchers or WatcherLimit()
        self._streams = streams or StreamBudget()
        self._webhooks = WebhookService(
            service.repo.webhooks,
            functools.partial(webhook_url_check, allow_private=service.webhooks_allow_private),
        )

    def _admit(self, context: Context) -> None:
        self._limiter.admit(str(context.peer()))

    async def _caller(self, context: Context) -> str:
        """The id of the player whose credential the call carries (NotYourPlayer
        ``player_credential_invalid`` without a valid one)."""
        return await self._service.authenticate(player_credential(context))

    @unary_errors
    async def RegisterPlayer(
        self, request: pb.PlayerServiceRegisterPlayerRequest, context: Context
    ) -> pb.PlayerServiceRegisterPlayerResponse:
        """See the proto."""
        self._admit(context)
        self._accounts.admit(str(context.peer()))
        player, info, credential = await self._service.register(
            request.name,
            request.bot,
            request.command_id,
            request.credential,
            request.credential_label,
        )
        return pb.PlayerServiceRegisterPlayerResponse(
            player=player_to_proto(player),
            credential=credential,
            credential_info=credential_to_proto(info),
        )

    @unary_errors
    async def CreatePlayerCredential(
        self, request: pb.CreatePlayerCredentialRequest, context: Context
    ) -> pb.CreatePlayerCredentialResponse:
        """See the proto."""
        self._admit(context)
        player_id = await self._caller(context)
        self._accounts.admit(str(context.peer()))
        info, credential = await self._service.create_credential(
            player_id, request.label, request.command_id, request.credential
        )
        return pb.CreatePlayerCredentialResponse(
            credential_info=credential_to_proto(info), credential=credential
        )

    @unary_errors
    async def ListPlayerCredentials(
        self, request: pb.ListPlayerCredentialsRequest, context: Context
    ) -> pb.ListPlayerCredentialsResponse:
        """See the proto."""
        self._admit(context)
        player_id = await self._caller(context)
        credentials = await self._service.list_credentials(player_id)
        return pb.ListPlayerCredentialsResponse(
            credentials=[credential_to_proto(c) for c in credentials]
        )

    @unary_errors
    async def RevokePlayerCredential(
        self, request: pb.RevokePlayerCredentialRequest, context: Context
    ) -> pb.RevokePlayerCredentialResponse:
        """See the proto."""
        self._admit(context)
        player_id = await self._caller(context)
        await self._service.revoke(player_id, request.credential_id)
        return pb.RevokePlayerCredentialResponse()

    @unary_errors
    async def GetPlayer(
        self, request: pb.GetPlayerRequest, context: Context
    ) -> pb.GetPlayerResponse:
        """See the proto."""
        self._admit(context)
        if bool(request.player_id) == bool(request.name):
            raise InvalidPlayer("player_lookup", "give exactly one of player_id and name")
        player = await (
            self._service.get(request.player_id)
            if request.player_id
            else self._service.named(request.name)
        )
        return pb.GetPlayerResponse(player=player_to_proto(player))

    @unary_errors
    async def GetMyPlayer(
        self, request: pb.GetMyPlayerRequest, context: Context
    ) -> pb.GetMyPlayerResponse:
        """See the proto."""
        self._admit(context)
        credential = player_credential(context)
        player_id, credential_id = await self._service.whoami(credential)
        player = await self._service.get(player_id)
        return pb.GetMyPlayerResponse(player=player_to_proto(player), credential_id=credential_id)

    @unary_errors
    async def SetPlayerWebhook(
        self, request: pb.SetPlayerWebhookRequest, context: Context
    ) -> pb.SetPlayerWebhookResponse:
        """See the proto."""
        self._admit(context)
        player_id, credential_id = await self._service.whoami(player_credential(context))
        info, secret = await self._webhooks.set(player_id, credential_id, request.url)
        return pb.SetPlayerWebhookResponse(webhook=webhook_to_proto(info), secret=secret)

    @unary_errors
    async def GetPlayerWebhook(
        self, request: pb.GetPlayerWebhookRequest, context: Context
    ) -> pb.GetPlayerWebhookResponse:
        """See the proto."""
        self._admit(context)
        player_id, credential_id = await self._service.whoami(player_credential(context))
        info = await self._webhooks.get(player_id, credential_id)
        return pb.GetPlayerWebhookResponse(webhook=webhook_to_proto(info))

    @unary_errors
    async def DeletePlayerWebhook(
        self, request: pb.DeletePlayerWebhookRequest, context: Context
    ) -> pb.DeletePlayerWebhookResponse:
        """See the proto."""
        self._admit(context)
        player_id, credential_id = await self._service.whoami(player_credential(context))
        await self._webhooks.delete(player_id, credential_id)
        return pb.DeletePlayerWebhookResponse()

    @stream_errors
    async def WatchPlayer(
        self, request: pb.WatchPlayerRequest, context: Context
    ) -> AsyncIterator[pb.WatchPlayerResponse]:
        """See the proto. Raises NotYourPlayer ``player_credential_invalid`` (at the
        start, or before a notice once the credential is revoked), NoticeCursorInvalid,
        TooManyStreams / TooManyWatchers past the limits, WatcherTooSlow."""
        self._admit(context)
        credential = player_credential(context)
        player_id = await self._service.authenticate(credential)
        after = check_cursor(request.after)
        if self._notices is None:
            raise NoticesUnavailable("this gateway serves no player streams")
        address = peer_address(str(context.peer()))
        # Per player, not per credential: a player's devices share one allowance.
        with self._streams.hold(address), self._watchers.hold("player:" + player_id, address):
            await context.send_initial_metadata(())
            notices = self._notices.follow(player_id, after)
            async with contextlib.aclosing(notices):
                async for notice in notices:
                    await self._service.authenticate(credential)  # revoked: ends here
                    yield pb.WatchPlayerResponse(notice=notice_to_proto(notice))
