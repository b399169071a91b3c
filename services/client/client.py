"""``TeotiClient`` of the server's own tools (``teoti demo``, ``replay``, ``play``, tests).

The calls are ``teoti_client``'s (the standalone client distribution, bundled with the
server); this subclass only decodes into the engine's types: events as ``StoredEvent``
and refusals as the engine's domain errors (RuleViolation, VersionConflict, GameNotFound,
InvalidArgument, NotAuthorized, ...), so server code handles local and remote errors
alike. Transport failures stay ``grpc.aio.AioRpcError``.
"""

from __future__ import annotations

import grpc
from teoti_client.client import GameServiceClient
from teoti_client.proto import game_service_pb2

from services.engine.domain.records import StoredEvent
from services.engine.transport.proto_convert import event_from_proto
from services.engine.transport.status_mapping import from_rpc_error


class TeotiClient(GameServiceClient[StoredEvent]):
    """Async client of ``gameserver.v1.GameService`` at ``target`` (``host:port``).

    Use ``async with TeotiClient(target) as client:``. ``timeout_s`` is the deadline of
    each unary call.
    """

    def _decode_event(self, event: game_service_pb2.Event) -> StoredEvent:
        return event_from_proto(event)

    def _decode_error(self, error: grpc.aio.AioRpcError) -> Exception:
        return from_rpc_error(error)
