"""Event stores: append-only per-game logs with optimistic concurrency."""

from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.memory import InMemoryEventStore
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.records import (
    SYSTEM_SEAT,
    AppendResult,
    CommandKey,
    CommandRecord,
    EventMetadata,
    StoredEvent,
    TurnRequest,
    canonical_json,
)
from services.engine.domain.store_errors import ChainMismatch, VersionConflict
from services.engine.domain.store_protocol import EventStore

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
