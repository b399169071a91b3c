"""Read side: games folded straight from the store (no engine round trip)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from services.engine.errors import GameNotFound
from services.engine.game import GameSnapshot
from services.engine.rulesets import RulesetRegistry
from services.engine.snapshots import SnapshotCache
from services.engine.store.keys import check_game_id
from services.engine.store.protocol import EventStore
from services.engine.store.records import StoredEvent


class GameReader:
    """Loads, lists and follows games from an event store."""

    def __init__(
        self,
        store: EventStore,
        registry: RulesetRegistry,
        snapshots: SnapshotCache | None = None,
    ) -> None:
        self.store = store
        self.registry = registry
        self._snapshots = snapshots or SnapshotCache(store, registry)

    @staticmethod
    def _check(game_id: str) -> None:
        try:
            check_game_id(game_id)
        except ValueError as exc:
            raise GameNotFound(game_id) from exc

    async def load(self, game_id: str) -> GameSnapshot:
        """The current snapshot. Raises GameNotFound, CorruptLog, UnknownRuleset."""
        self._check(game_id)
        return await self._snapshots.load(game_id)

    async def events(
        self, game_id: str, from_version: int = 0, limit: int = 0
    ) -> list[StoredEvent]:
        """Events after ``from_version``. Raises GameNotFound for an unknown game."""
        self._check(game_id)
        if await self.store.version(game_id) == 0:
            raise GameNotFound(game_id)
        return await self.store.read(game_id, from_version, limit)

    async def watch(
        self, game_id: str, from_version: int = 0, block_ms: int = 1000
    ) -> AsyncIterator[StoredEvent]:
        """Yield every event after ``from_version``, waiting for new ones as they come.

        Stops once the game is terminal and every event was yielded. Raises GameNotFound.
        """
        snapshot = await self.load(game_id)
        for event in snapshot.events:
            if event.version > from_version:
                yield event
        while not snapshot.is_terminal():
            new = await self.store.read_after(game_id, snapshot.version, block_ms)
            snapshot = snapshot.evolve(new)
            for event in new:
                if event.version > from_version:
                    yield event
