"""In-memory event store: same contract as the Redis one, for tests and quick runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from services.engine.ruleset import DomainEvent
from services.engine.store.errors import VersionConflict
from services.engine.store.records import (
    CommandRecord,
    EventMetadata,
    StoredEvent,
    TurnRequest,
    canonical_json,
)


class InMemoryEventStore:
    """Event logs held in dicts, guarded by one lock and one condition for watchers.

    Payloads go through canonical JSON on append, like the Redis store, so both return
    equal records.
    """

    def __init__(self) -> None:
        self._events: dict[str, list[StoredEvent]] = {}
        self._commands: dict[str, dict[str, CommandRecord]] = {}
        self._games: list[str] = []
        self.turn_requests: list[TurnRequest] = []
        self._changed = asyncio.Condition()

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[DomainEvent],
        metadata: EventMetadata,
        turn_requests: Sequence[TurnRequest] = (),
    ) -> int:
        """See EventStore.append."""
        if not events:
            raise ValueError("append needs at least one event")
        async with self._changed:
            commands = self._commands.setdefault(game_id, {})
            if metadata.command_id and metadata.command_id in commands:
                return commands[metadata.command_id].last_version
            log = self._events.get(game_id, [])
            if len(log) != expected_version:
                raise VersionConflict(game_id, expected_version, len(log))
            if expected_version == 0:
                self._games.append(game_id)
                self._events[game_id] = log
            for event in events:
                log.append(
                    StoredEvent(
                        version=len(log) + 1,
                        type=event.type,
                        schema_version=event.schema_version,
                        payload=json.loads(canonical_json(dict(event.payload))),
                        metadata=metadata,
                    )
                )
            if metadata.command_id:
                commands[metadata.command_id] = CommandRecord(expected_version + 1, len(log))
            self.turn_requests.extend(turn_requests)
            self._changed.notify_all()
            return len(log)

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """See EventStore.read."""
        log = self._events.get(game_id, [])[from_version:]
        return log[:limit] if limit > 0 else list(log)

    async def read_after(self, game_id: str, version: int, block_ms: int) -> list[StoredEvent]:
        """See EventStore.read_after."""
        async with self._changed:
            if block_ms > 0 and len(self._events.get(game_id, [])) <= version:
                try:
                    await asyncio.wait_for(
                        self._changed.wait_for(
                            lambda: len(self._events.get(game_id, [])) > version
                        ),
                        block_ms / 1000,
                    )
                except TimeoutError:
                    return []
            return list(self._events.get(game_id, [])[version:])

    async def version(self, game_id: str) -> int:
        """See EventStore.version."""
        return len(self._events.get(game_id, []))

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        """See EventStore.command_result."""
        return self._commands.get(game_id, {}).get(command_id)

    async def list_games(self) -> list[str]:
        """See EventStore.list_games."""
        return list(self._games)

    async def close(self) -> None:
        """Nothing to release."""
