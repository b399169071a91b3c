"""Fuzz every field of every LobbyService RPC (hypothesis, real server + Redis), with no,
a hostile or a real player credential: the answer is OK or a refusal with an ErrorInfo,
never INTERNAL or UNKNOWN (a bug), and no credential comes back in a refusal."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from teoti_client.proto import lobby_service_pb2 as lpb
from teoti_client.proto import lobby_service_pb2_grpc as lpb_grpc

from services.rpc.errors import error_info
from tests.integration.players.test_player_fuzz import REAL, _real, headers
from tests.integration.test_fuzz_all_rpcs import BUGS, NOT_REFUSALS, message_strategy
from tests.integration.test_fuzz_submit import Server, server  # noqa: F401

SERVICE = lpb.DESCRIPTOR.services_by_name["LobbyService"]
RPCS = [(m.name, getattr(lpb, m.input_type.name)) for m in SERVICE.methods]


@pytest.mark.parametrize(("method", "request_type"), RPCS, ids=[r[0] for r in RPCS])
def test_hostile_lobby_requests_never_get_internal_or_unknown(
    server: Server,  # noqa: F811
    method: str,
    request_type: Any,
) -> None:
    real = _real(server)
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    stub = lpb_grpc.LobbyServiceStub(channel)

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(fields=message_strategy(request_type.DESCRIPTOR), header=headers)
    def run(fields: dict[str, Any], header: str | None) -> None:
        request = request_type(**fields)
        metadata = None
        if header is not None:
            value = f"Player {real}" if header == REAL else header
            metadata = (("authorization", value),)
        try:
            getattr(stub, method)(request, timeout=10, metadata=metadata)
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
            assert code not in BUGS, (method, code, str(request)[:300])
            if code not in NOT_REFUSALS:
                assert error_info(error) is not None, (method, code)  # type: ignore[arg-type]
            assert real not in (error.details() or "")  # type: ignore[attr-defined]

    try:
        run()
    finally:
        channel.close()
