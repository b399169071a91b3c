"""Read side: games folded straight from the store (no engine round trip)."""

from __future__ import annotations

from collections.abc import Sequence

from services.engine.domain.audit import AuditReport, audit_log
from services.engine.domain.errors import GameNotFound, InvalidArgument
from services.engine.domain.game import GameSnapshot, fold
from services.engine.domain.game_ids import NOT_A_GAME_PREFIX, check_game_id
from services.engine.domain.records import GameIndexEntry, PrivateRecords, StoredEvent
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache
from services.engine.domain.store_protocol import EventStore


class GameReader:
    """Loads, lists, follows and audits games from an event store."""

    def __init__(
        self,
        store: EventStore,
        registry: RulesetRegistry,
        snapshots: SnapshotCache | None = None,
    ) -> None:
        self.store = store
        self.registry = registry
        self._snapshots = snapshots or SnapshotCache(store, registry)

    @property
    def snapshots(self) -> SnapshotCache:
        """The cache of folded games this reader reads through (its hit counts are
        metrics)."""
        return self._snapshots

    @staticmethod
    def _check(game_id: str) -> None:
        try:
            check_game_id(game_id)
        except ValueError as exc:
            raise GameNotFound(game_id) from exc
        if game_id.startswith(NOT_A_GAME_PREFIX):  # a tournament's log, not a game
            raise GameNotFound(game_id)

    async def load(self, game_id: str) -> GameSnapshot:
        """The current snapshot. Raises GameNotFound, CorruptLog, UnknownRuleset."""
        self._check(game_id)
        return await self._snapshots.load(game_id)

    def cached(self, game_id: str) -> GameSnapshot | None:
        """The game as this process last saw it, without asking the store; possibly
        behind the log (see :meth:`SnapshotCache.cached`), None if not in memory."""
        return self._snapshots.cached(game_id)

    def advance(self, game_id: str, written: Sequence[StoredEvent]) -> GameSnapshot | None:
        """The cached game after events the engine reported appending, without a read;
        None if the store must be read instead (see :meth:`SnapshotCache.advance`)."""
        return self._snapshots.advance(game_id, written)

    def created(
        self, game_id: str, written: Sequence[StoredEvent], private: PrivateRecords
    ) -> GameSnapshot | None:
        """A game the engine just created and reported, without a read; None if the
        store must be read instead (see :meth:`SnapshotCache.created`)."""
        self._check(game_id)
        return self._snapshots.created(game_id, written, private)

    async def load_at(self, game_id: str, version: int) -> GameSnapshot:
        """The game as it was at ``version`` (folded from the log with the service-only
        records, so a seat's view shows it its own secrets; no cache).

        Raises GameNotFound; InvalidArgument if ``version`` is < 2 or past the log's end.
        """
        self._check(game_id)
        events = await self.store.read(game_id, 0, version if version > 0 else -1)
        if not events:
            raise GameNotFound(game_id)
        if version < 2 or len(events) < version:
            end = await self.store.version(game_id)
            raise InvalidArgument(
                f"version {version} is not between 2 and the log's end, {end} (version 1 is "
                "the game's creation, before its setup)"
            )
        return fold(game_id, events, self.registry, await self.store.read_private(game_id))

    async def events(
        self, game_id: str, from_version: int = 0, limit: int = 0
    ) -> list[StoredEvent]:
        """Events after ``from_version``. Raises GameNotFound for an unknown game."""
        self._check(game_id)
        if await self.store.version(game_id) == 0:
            raise GameNotFound(game_id)
        return await self.store.read(game_id, from_version, limit)

    async def list_games(self, after: GameIndexEntry | None, limit: int) -> list[GameIndexEntry]:
        """A page of the games index (see EventStore.list_games)."""
        return await self.store.list_games(after, limit)

    async def audit(self, game_id: str) -> AuditReport:
        """Check the whole log: chain, fold, seed commitment (see :func:`audit_log`)."""
        self._check(game_id)
        head = await self.store.head(game_id)
        events = await self.store.read(game_id)
        if not events and head[0] == 0:
            raise GameNotFound(game_id)
        return audit_log(game_id, events, self.registry, head)
