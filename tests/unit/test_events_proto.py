"""Events built in place in a reply (``add_events``) are the bytes ``event_to_proto`` makes."""

from __future__ import annotations

from services.engine.domain.records import EventMetadata, StoredEvent
from services.engine.transport.proto_convert import add_events, event_from_proto, event_to_proto
from services.rpc.generated import engine_service_pb2 as pb

EVENTS = [
    StoredEvent(3, "Took", 1, {"take": 1, "é": ["ü", None]}, EventMetadata("cmd", 1, "t"), "h3"),
    # Every field at its default: the metadata must still be present, as a copy's is.
    StoredEvent(0, "", 0, {}, EventMetadata("", 0, ""), ""),
]


def test_events_added_in_place_serialize_as_copied_ones() -> None:
    copied = pb.EngineServiceSubmitActionResponse(
        version=4, events=[event_to_proto(event) for event in EVENTS]
    )
    built = pb.EngineServiceSubmitActionResponse(version=4)
    add_events(built.events, EVENTS)
    assert built.SerializeToString() == copied.SerializeToString()
    assert all(event.HasField("metadata") for event in built.events)
    assert [event_from_proto(event) for event in built.events] == EVENTS
