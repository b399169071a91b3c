"""Stored events as plain JSON objects: the line format of exported logs and fixture logs.

One event is ``{version, type, schema_version, payload, metadata: {command_id, seat,
recorded_at}, hash}`` (every field of :class:`StoredEvent`, nothing else), the same
fields the hash chain covers plus the hash itself (``store.chain``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.engine.domain.records import EventMetadata, StoredEvent


def event_to_json(event: StoredEvent) -> dict[str, Any]:
    """``event`` as a JSON-safe dict (see the module docstring)."""
    return {
        "version": event.version,
        "type": event.type,
        "schema_version": event.schema_version,
        "payload": dict(event.payload),
        "metadata": {
            "command_id": event.metadata.command_id,
            "seat": event.metadata.seat,
            "recorded_at": event.metadata.recorded_at,
        },
        "hash": event.hash,
    }


def event_from_json(data: Mapping[str, Any]) -> StoredEvent:
    """Inverse of :func:`event_to_json`. Raises ValueError naming the missing or bad field."""
    try:
        metadata = data["metadata"]
        payload = data["payload"]
        if not isinstance(payload, Mapping) or not isinstance(metadata, Mapping):
            raise TypeError("payload and metadata must be objects")
        return StoredEvent(
            version=int(data["version"]),
            type=str(data["type"]),
            schema_version=int(data["schema_version"]),
            payload=payload,
            metadata=EventMetadata(
                command_id=str(metadata["command_id"]),
                seat=int(metadata["seat"]),
                recorded_at=str(metadata["recorded_at"]),
            ),
            hash=str(data["hash"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a stored event: {exc!r}") from exc
