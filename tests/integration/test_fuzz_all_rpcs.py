"""Fuzz every field of every GameService RPC, and raw bytes (hypothesis, real server + Redis).

Whatever a client sends, the answer is OK or a status telling it what to do (a refusal
with an ErrorInfo, or RESOURCE_EXHAUSTED / UNAVAILABLE / DEADLINE_EXCEEDED for a
long-running watch); never INTERNAL or UNKNOWN, which mean a bug. Requests are built from
each request message's descriptor, so a field added later is fuzzed too. The examples
per RPC are few enough that the whole module runs in well under a minute.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from teoti_client.proto import game_service_pb2

from services.rpc.errors import error_info
from tests.integration.test_fuzz_submit import Server, hostile_text, server  # noqa: F401

BUGS = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
NOT_REFUSALS = {
    grpc.StatusCode.OK,
    grpc.StatusCode.DEADLINE_EXCEEDED,  # a watch of a running game ends by our timeout
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # a request over the size limit
}
EXAMPLES = 40

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
}
GAME = "\x00GAME"
TOKEN = "\x00TOKEN"


def _text_for(name: str) -> st.SearchStrategy[str]:
    """Hostile text, plus the real game id / token now and then so checks past the
    lookup run too, and a 60 KB id (it must not be echoed into trailers)."""
    extra: list[st.SearchStrategy[str]] = [st.just("g" * 60_000), st.just('{"type": []}')]
    if name == "game_id":
        extra.append(st.just(GAME))
    if name in ("seat_token", "token"):
        extra.append(st.just(TOKEN))
    if name.endswith("_json"):
        extra += [st.just('{"take": "\\ud800"}'), st.just('{"k": "\\udfff\\ud800"}')]
        extra.append(st.just("1" * 5000))
    return st.one_of(hostile_text, *extra)


def message_strategy(descriptor: Any, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Field values for a message ``descriptor`` (each field present or absent)."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        value: st.SearchStrategy[Any]
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth > 1:
                continue
            value = message_strategy(field.message_type, depth + 1)
        elif field.type == FieldDescriptor.TYPE_STRING:
            value = _text_for(field.name)
        elif field.type == FieldDescriptor.TYPE_BOOL:
            value = st.booleans()
        elif field.type == FieldDescriptor.TYPE_ENUM:
            value = st.integers(-3, 10)  # proto3 enums are open: unknown numbers arrive
        elif field.type in _INT_RANGES:
            low, high = _INT_RANGES[field.type]
            value = st.one_of(st.integers(max(-3, low), 200), st.integers(low, high))
        else:
            continue
        if field.is_repeated:
            value = st.lists(value, max_size=5)
        fields[field.name] = value
    return st.fixed_dictionaries({}, optional=fields)


def _substitute(value: Any, target: Server) -> Any:
    if isinstance(value, dict):
        return {key: _substitute(item, target) for key, item in value.items()}
    if isinstance(value, list):
        return [_substitute(item, target) for item in value]
    if value == GAME:
        return target.game_id
    if value == TOKEN:
        return target.token
    return value


def _rpcs() -> list[tuple[str, Any, bool]]:
    """(method name, request class, server-streaming) of every GameService RPC."""
    pb = game_service_pb2
    service = pb.DESCRIPTOR.services_by_name["GameService"]
    return [
        (
            method.name,
            getattr(pb, method.input_type.name),
            bool(getattr(method, "server_streaming", False)),
        )
        for method in service.methods
    ]


RPCS = _rpcs()
CLIENT_STREAMING = {
    method.name
    for method in game_service_pb2.DESCRIPTOR.services_by_name["GameService"].methods
    if method.client_streaming
}
"""Methods whose requests are streamed (Play): their refusals come in PlayResponse.error."""


def _play(target: Server, request: Any) -> grpc.StatusCode:
    """Send ``request`` on a Play stream; the worst code among the stream's and the
    per-request errors (a refusal must carry an ErrorInfo there too)."""
    code = grpc.StatusCode.OK
    for response in target.stub.Play(iter([request]), timeout=10):
        if response.HasField("error"):
            code = next(c for c in grpc.StatusCode if c.value[0] == response.error.code)
            if code not in BUGS:
                infos = [d for d in response.error.details if d.type_url.endswith("ErrorInfo")]
                assert infos, (code, response.error.message)
            assert len(response.error.message) < 1000
        else:
            assert response.WhichOneof("response") is not None
    return code


def _call(target: Server, method: str, streaming: bool, request: Any) -> grpc.StatusCode:
    """Call ``method``; the final status (a stream is read until it ends or times out)."""
    call = getattr(target.stub, method)
    try:
        if method in CLIENT_STREAMING:
            return _play(target, request)
        if streaming:
            for _ in call(request, timeout=0.5):
                pass
        else:
            call(request, timeout=10)
    except grpc.RpcError as error:
        code: grpc.StatusCode = error.code()  # type: ignore[attr-defined]
        if code not in NOT_REFUSALS and code not in BUGS:
            assert error_info(error) is not None, (method, code, error.details())  # type: ignore[attr-defined]
            assert len(error.details() or "") < 1000  # type: ignore[attr-defined]
        return code
    return grpc.StatusCode.OK


def test_every_rpc_is_fuzzed() -> None:
    assert {name for name, _, _ in RPCS} >= {
        "CreateGame",
        "GetGame",
        "GetGameAt",
        "ListGames",
        "JoinGame",
        "ListLegalActions",
        "SubmitAction",
        "WatchGame",
        "ListEvents",
        "VerifyGame",
    }


@pytest.mark.parametrize(("method", "request_type", "streaming"), RPCS, ids=[r[0] for r in RPCS])
def test_hostile_fields_never_get_internal_or_unknown(
    server: Server,  # noqa: F811
    method: str,
    request_type: Any,
    streaming: bool,
) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(fields=message_strategy(request_type.DESCRIPTOR))
    def run(fields: dict[str, Any]) -> None:
        request = request_type(**_substitute(fields, server))
        code = _call(server, method, streaming, request)
        assert code not in BUGS, (method, code, str(request)[:300])

    run()


@pytest.mark.parametrize(("method", "request_type", "streaming"), RPCS, ids=[r[0] for r in RPCS])
def test_raw_bytes_never_get_internal_or_unknown(
    server: Server,  # noqa: F811
    method: str,
    request_type: Any,
    streaming: bool,
) -> None:
    """Bytes that are no protobuf message (or a truncated one) are INVALID_ARGUMENT."""
    del request_type
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")

    @settings(
        max_examples=EXAMPLES // 2,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(data=st.one_of(st.binary(max_size=300), st.just(b"\xff\xff\xff\xff"), st.just(b"\x0a")))
    def run(data: bytes) -> None:
        path = f"/gameserver.v1.GameService/{method}"
        try:
            if method in CLIENT_STREAMING:
                pb = game_service_pb2
                play = channel.stream_stream(path, response_deserializer=pb.PlayResponse.FromString)
                for response in play(iter([data]), timeout=10):
                    assert response.error.code not in {c.value[0] for c in BUGS}, data[:40]
            elif streaming:
                for _ in channel.unary_stream(path)(data, timeout=0.5):
                    pass
            else:
                channel.unary_unary(path)(data, timeout=10)
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
            assert code not in BUGS, (method, code, error.details(), data[:40])  # type: ignore[attr-defined]

    try:
        run()
    finally:
        channel.close()


def test_a_malformed_message_is_invalid_argument(server: Server) -> None:  # noqa: F811
    with (
        grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
        pytest.raises(grpc.RpcError) as info,
    ):
        channel.unary_unary("/gameserver.v1.GameService/GetGame")(b"\x0a\xff", timeout=10)
    error: Any = info.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).reason == "malformed_request"


def test_a_60kb_game_id_is_refused_with_small_trailers(server: Server) -> None:  # noqa: F811
    pb = game_service_pb2
    for call in (
        lambda: server.stub.JoinGame(pb.JoinGameRequest(game_id="g" * 60_000, name="x")),
        lambda: server.stub.GetGame(pb.GetGameRequest(game_id="g" * 60_000)),
        lambda: server.stub.ListEvents(pb.ListEventsRequest(game_id="g" * 60_000)),
    ):
        with pytest.raises(grpc.RpcError) as info:
            call()
        error: Any = info.value
        assert error.code() in {grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT}
        assert sum(len(v) for _, v in error.trailing_metadata()) < 2000


def test_the_fuzz_findings_of_issue_12_are_refusals(server: Server) -> None:  # noqa: F811
    pb = game_service_pb2
    cases = [
        (
            lambda: server.stub.ListEvents(
                pb.ListEventsRequest(game_id=server.game_id, from_version=-2)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            lambda: server.stub.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=server.game_id,
                    seat=0,
                    seat_token=server.token,
                    action_json='{"type": []}',
                )
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
        ),
        (
            lambda: server.stub.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=server.game_id,
                    seat=0,
                    seat_token=server.token,
                    action_json='{"take": "\\ud800"}',
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            lambda: server.stub.CreateGame(
                pb.CreateGameRequest(
                    seats=[pb.Seat(kind=pb.SEAT_KIND_BOT, name="b")] * 2,
                    options_json='{"x": "\\ud800"}',
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ]
    for call, code in cases:
        with pytest.raises(grpc.RpcError) as info:
            call()
        error: Any = info.value
        assert error.code() == code, error.details()
