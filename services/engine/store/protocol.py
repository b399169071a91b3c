"""The event store contract shared by the in-memory and Redis implementations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from services.engine.ruleset import DomainEvent
from services.engine.store.records import CommandRecord, EventMetadata, StoredEvent, TurnRequest


class EventStore(Protocol):
    """Append-only per-game event logs with optimistic concurrency.

    Versions start at 1 for a game's first event and are contiguous. A game exists once
    its first batch has been appended with ``expected_version=0``.
    """

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[DomainEvent],
        metadata: EventMetadata,
        turn_requests: Sequence[TurnRequest] = (),
    ) -> int:
        """Atomically append ``events`` if the log is at ``expected_version``.

        In the same atomic step: record ``metadata.command_id`` (if not empty) so a retry
        of that command appends nothing and returns the original result, and publish
        ``turn_requests`` to the turn-request stream.

        Returns the log's version after the append (for a retried command id: the version
        the original append reached). Raises VersionConflict if the log is elsewhere,
        ValueError if ``events`` is empty.
        """
        ...

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """Events with version > ``from_version`` in order (at most ``limit`` if > 0)."""
        ...

    async def read_after(self, game_id: str, version: int, block_ms: int) -> list[StoredEvent]:
        """Events with version > ``version``; waits up to ``block_ms`` for one if none yet."""
        ...

    async def version(self, game_id: str) -> int:
        """Current version of the game's log (0 if the game does not exist)."""
        ...

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        """The versions an already-applied command produced, or None."""
        ...

    async def list_games(self) -> list[str]:
        """Ids of every game, oldest first."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
