"""Fuzz every field of every LobbyService RPC (hypothesis, real server + Redis), with no,
a hostile or a real player credential: the answer is OK or a refusal with an ErrorInfo,
never INTERNAL or UNKNOWN (a bug), and no credential comes back in a refusal."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from teoti_client.proto import lobby_service_pb2 as lpb
from teoti_client.proto import lobby_service_pb2_grpc as lpb_grpc

from tests.integration.players.test_player_fuzz import fuzz_as_players
from tests.integration.test_fuzz_submit import Server, server  # noqa: F401

SERVICE = lpb.DESCRIPTOR.services_by_name["LobbyService"]
RPCS = [(m.name, getattr(lpb, m.input_type.name)) for m in SERVICE.methods]


@pytest.mark.parametrize(("method", "request_type"), RPCS, ids=[r[0] for r in RPCS])
def test_hostile_lobby_requests_never_get_internal_or_unknown(
    server: Server,  # noqa: F811
    method: str,
    request_type: Any,
) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        fuzz_as_players(server, lpb_grpc.LobbyServiceStub(channel), method, request_type)
