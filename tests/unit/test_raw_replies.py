"""Issue 35: a PlayResponse written around the engine's serialized SubmitActionResponse
(services.gateway.raw_replies) is, byte for byte, what protobuf serializes from the
parsed messages, for small and large request ids and replies; the gRPC server's
response serializer passes such bytes through and serializes messages as before."""

from __future__ import annotations

import pytest
from teoti_client.proto import game_service_pb2 as pb

from services.gateway.raw_replies import play_response, varint
from services.rpc.server import passing_bytes

REQUEST_IDS = (0, 1, 127, 128, 300, 2**32, 2**64 - 1)


def reply_of(actions: int) -> bytes:
    """A serialized SubmitActionResponse with a view and ``actions`` legal actions (its
    size crosses the one- and two-byte length prefixes)."""
    reply = pb.SubmitActionResponse(version=7, first_version=6)
    reply.game.SetInParent()
    reply.game.game_id = "g-1"
    reply.game.state_json = '{"pile":3}'
    for n in range(actions):
        reply.legal_actions.add(action_json=f'{{"take":{n}}}', description=f"take {n}")
    return reply.SerializeToString()


@pytest.mark.parametrize("request_id", REQUEST_IDS)
@pytest.mark.parametrize("actions", [0, 1, 5, 2000])
def test_a_play_response_is_protobufs_own_bytes(request_id: int, actions: int) -> None:
    inner = reply_of(actions)
    built = pb.PlayResponse(
        request_id=request_id, submit_action=pb.SubmitActionResponse.FromString(inner)
    )
    raw = play_response(request_id, inner)
    assert raw == built.SerializeToString()
    assert pb.PlayResponse.FromString(raw) == built


def test_an_empty_reply_still_names_submit_action() -> None:
    raw = play_response(3, b"")
    parsed = pb.PlayResponse.FromString(raw)
    assert parsed.WhichOneof("response") == "submit_action" and parsed.request_id == 3
    assert (
        raw
        == pb.PlayResponse(
            request_id=3, submit_action=pb.SubmitActionResponse()
        ).SerializeToString()
    )


def test_varints() -> None:
    assert [varint(n) for n in (0, 1, 127, 128, 300)] == [
        b"\x00",
        b"\x01",
        b"\x7f",
        b"\x80\x01",
        b"\xac\x02",
    ]
    with pytest.raises(ValueError):
        varint(-1)


def test_the_servers_serializer_passes_bytes_and_serializes_messages() -> None:
    serialize = passing_bytes(pb.PlayResponse.SerializeToString)
    raw = play_response(9, reply_of(2))
    assert serialize(raw) is raw
    message = pb.PlayResponse(request_id=9)
    assert serialize(message) == message.SerializeToString()
