"""A move's answer sent as the bytes the engine serialized (issue 35).

With ``public_reply`` the engine answers a SubmitAction ``return_view`` with the
public ``gameserver.v1.SubmitActionResponse`` already serialized
(EngineServiceSubmitActionResponse.public_reply). The gRPC face sends those bytes as
they are: as SubmitAction's response, and inside a PlayResponse, whose encoding is the
concatenation of its fields' encodings: ``request_id`` (a varint) then ``submit_action``
(tag, length, the engine's bytes). :func:`play_response` writes that, so the gateway
neither parses the view nor serializes it again (py-spy gave protobuf 7.5 % of the
gateway's CPU). The field numbers are read from the generated descriptor, not written
here; tests/unit/test_raw_replies.py checks the bytes against protobuf's own.

The server's response serializer passes ``bytes`` through as they are
(services.rpc.server.PreparedMethods), for this module's answers only.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from teoti_client.proto import game_service_pb2 as pb

_WIRE_VARINT = 0
_WIRE_LENGTH_DELIMITED = 2


def varint(value: int) -> bytes:
    """``value`` (0 .. 2**64 - 1) as a protobuf base-128 varint. Raises ValueError for a
    negative value (no field written here is signed)."""
    if value < 0:
        raise ValueError(f"a varint of a negative value: {value}")
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


_FIELDS = pb.PlayResponse.DESCRIPTOR.fields_by_name
_REQUEST_ID = _FIELDS["request_id"]
_SUBMIT_ACTION = _FIELDS["submit_action"]
if _REQUEST_ID.type != FieldDescriptor.TYPE_UINT64 or _SUBMIT_ACTION.message_type is None:
    raise ImportError("PlayResponse's request_id or submit_action changed type: see raw_replies")
if _REQUEST_ID.number > _SUBMIT_ACTION.number:
    # protobuf writes fields in number order: ours must match its bytes.
    raise ImportError("PlayResponse's request_id no longer comes before submit_action")
REQUEST_ID_TAG = _tag(_REQUEST_ID.number, _WIRE_VARINT)
SUBMIT_ACTION_TAG = _tag(_SUBMIT_ACTION.number, _WIRE_LENGTH_DELIMITED)


def play_response(request_id: int, submit_action: bytes) -> bytes:
    """A serialized ``gameserver.v1.PlayResponse`` answering ``request_id`` with
    ``submit_action``, a serialized SubmitActionResponse: the bytes
    ``PlayResponse(request_id=..., submit_action=...).SerializeToString()`` gives,
    without parsing ``submit_action``. Raises ValueError for a negative request id."""
    size = varint(len(submit_action))
    if not request_id:  # proto3: a field at its default is not written
        return b"".join((SUBMIT_ACTION_TAG, size, submit_action))
    return b"".join((REQUEST_ID_TAG, varint(request_id), SUBMIT_ACTION_TAG, size, submit_action))
