"""Fuzz every field of every PlayerService RPC (hypothesis, real server + Redis), with no,
a hostile or a real player credential: the answer is OK or a refusal with an ErrorInfo,
never INTERNAL or UNKNOWN (a bug), and no secret comes back in a refusal."""

from __future__ import annotations

import string
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from teoti_client.proto import player_service_pb2 as ppb
from teoti_client.proto import player_service_pb2_grpc as ppb_grpc

from services.rpc.errors import error_info
from tests.integration.test_fuzz_all_rpcs import BUGS, NOT_REFUSALS, message_strategy
from tests.integration.test_fuzz_submit import Server, server  # noqa: F401

SERVICE = ppb.DESCRIPTOR.services_by_name["PlayerService"]
RPCS = [(m.name, getattr(ppb, m.input_type.name)) for m in SERVICE.methods]
REAL = "\x00REAL"
headers = st.one_of(
    st.none(),
    st.just(REAL),
    st.text(alphabet=string.ascii_letters + string.digits + "_- ", max_size=300).map(
        lambda text: f"Player {text}"
    ),
    st.just("Player tpc_" + "A" * 43),
    st.just("Bearer tpc_" + "A" * 43),
)


def _real(target: Server) -> str:
    """A real credential of a player on ``target`` (registered once per server)."""
    cached = getattr(target, "_player_credential", "")
    if cached:
        return str(cached)
    with grpc.insecure_channel(f"127.0.0.1:{target.port}") as channel:
        stub = ppb_grpc.PlayerServiceStub(channel)
        reply = stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="fuzz owner"))
    object.__setattr__(target, "_player_credential", reply.credential)
    return str(reply.credential)


def fuzz_as_players(target: Server, stub: Any, method: str, request_type: Any) -> None:
    """Hypothesis-made ``request_type`` messages sent to ``stub.<method>`` with no, a
    hostile, or a real player credential: never INTERNAL or UNKNOWN, every refusal
    explained (ErrorInfo), the real credential never echoed. Shared by every service a
    player credential reaches (PlayerService, LobbyService)."""
    real = _real(target)

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

    run()


@pytest.mark.parametrize(("method", "request_type"), RPCS, ids=[r[0] for r in RPCS])
def test_hostile_player_requests_never_get_internal_or_unknown(
    server: Server,  # noqa: F811
    method: str,
    request_type: Any,
) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        fuzz_as_players(server, ppb_grpc.PlayerServiceStub(channel), method, request_type)
