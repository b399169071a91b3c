"""Conversions between protobuf messages and engine values (JSON text <-> mappings)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from services.engine.errors import InvalidArgument
from services.engine.game import SeatKind, SeatSpec
from services.engine.store.records import StoredEvent, canonical_json
from services.rpc.stubs import load_stubs

_KIND_TO_PROTO = {SeatKind.HUMAN: 1, SeatKind.BOT: 2}
_PROTO_TO_KIND = {v: k for k, v in _KIND_TO_PROTO.items()}


def parse_object(text: str, what: str) -> dict[str, Any]:
    """Decode a JSON object (empty text: {}). Raises InvalidArgument naming ``what``."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(f"{what} is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise InvalidArgument(f"{what} must be a JSON object")
    return value


def seats_from_proto(seats: Sequence[Any]) -> list[SeatSpec]:
    """SeatSpecs from ``Seat`` messages. Raises InvalidArgument for an unspecified kind."""
    result = []
    for index, seat in enumerate(seats):
        kind = _PROTO_TO_KIND.get(int(seat.kind))
        if kind is None:
            raise InvalidArgument(f"seat {index}: kind must be HUMAN or BOT")
        result.append(SeatSpec(kind, seat.name))
    return result


def seats_to_proto(seats: Sequence[SeatSpec]) -> list[Any]:
    """``Seat`` messages from SeatSpecs."""
    pb = load_stubs().game_pb2
    return [pb.Seat(kind=_KIND_TO_PROTO[s.kind], name=s.name) for s in seats]


def event_to_proto(event: StoredEvent) -> Any:
    """An ``Event`` message from a stored event (payload as canonical JSON)."""
    pb = load_stubs().game_pb2
    return pb.Event(
        version=event.version,
        type=event.type,
        schema_version=event.schema_version,
        payload_json=canonical_json(dict(event.payload)),
        metadata=pb.EventMetadata(
            command_id=event.metadata.command_id,
            seat=event.metadata.seat,
            recorded_at=event.metadata.recorded_at,
        ),
    )
