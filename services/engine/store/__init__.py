"""Event stores: append-only per-game logs with optimistic concurrency."""

from services.engine.store.errors import ChainMismatch, VersionConflict
from services.engine.store.keys import RedisKeys
from services.engine.store.memory import InMemoryEventStore
from services.engine.store.protocol import EventStore
from services.engine.store.records import (
    SYSTEM_SEAT,
    AppendResult,
    CommandKey,
    CommandRecord,
    EventMetadata,
    StoredEvent,
    TurnRequest,
    canonical_json,
)
from services.engine.store.redis_store import RedisEventStore

__all__ = [
    "SYSTEM_SEAT",
    "AppendResult",
    "ChainMismatch",
    "CommandKey",
    "CommandRecord",
    "EventMetadata",
    "EventStore",
    "InMemoryEventStore",
    "RedisEventStore",
    "RedisKeys",
    "StoredEvent",
    "TurnRequest",
    "VersionConflict",
    "canonical_json",
]
