"""PlayerService over gRPC: proto <-> services.players.service, errors mapped in
services.engine.transport.status_mapping (refusals carry the rule as ErrorInfo reason).

Every call spends one unit of the caller's rate limit (per address); RegisterPlayer and
CreatePlayerCredential also one of the address's account quota. Calls that act as a
player authenticate ``authorization: Player <credential>`` against Redis each time
(services.players.service.PlayerService.authenticate): a revoke is felt at once.
"""

from __future__ import annotations

from typing import Any

from teoti_client.proto import player_service_pb2 as pb
from teoti_client.proto import player_service_pb2_grpc as pb_grpc

from services.engine.transport.status_mapping import unary_errors
from services.gateway.player_auth import player_credential
from services.players.errors import InvalidPlayer
from services.players.model import CredentialInfo, Player
from services.players.service import PlayerService
from services.rpc.limits import ClientRateLimiter, CreationQuota

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


class PlayerServicer(pb_grpc.PlayerServiceServicer):  # type: ignore[misc]
    """gRPC handlers of PlayerService (see proto/gameserver/v1/player_service.proto).

    Args:
        service: the player accounts.
        limiter: the gateway's rate limit per client (shared with its other services).
        accounts: registrations and credential creations per address.
    """

    def __init__(
        self,
        service: PlayerService,
        limiter: ClientRateLimiter | None = None,
        accounts: CreationQuota | None = None,
    ) -> None:
        self._service = service
        self._limiter = limiter or ClientRateLimiter()
        self._accounts = accounts or CreationQuota()

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
