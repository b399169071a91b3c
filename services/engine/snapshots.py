"""An in-process cache of folded games, so loading a game reads only its new events.

Events are immutable once appended, so a cached snapshot at version v plus the events
after v is exactly the fold of the whole log. The cache is only a speed-up: an empty
cache, a cache in another process, or an evicted entry all give the same snapshots.
A writer that loaded a stale snapshot still fails its expected-version append and retries.
"""

from __future__ import annotations

from collections import OrderedDict

from services.engine.game import GameSnapshot, fold
from services.engine.rulesets import RulesetRegistry
from services.engine.store.protocol import EventStore

DEFAULT_CAPACITY = 2048


class SnapshotCache:
    """LRU of the latest known snapshot per game id.

    Args:
        store: where the logs live.
        registry: rulesets to fold with.
        capacity: games kept; the least recently loaded is evicted first.
    """

    def __init__(
        self, store: EventStore, registry: RulesetRegistry, capacity: int = DEFAULT_CAPACITY
    ) -> None:
        self._store = store
        self._registry = registry
        self._capacity = capacity
        self._games: OrderedDict[str, GameSnapshot] = OrderedDict()

    async def load(self, game_id: str) -> GameSnapshot:
        """The game at its latest stored version.

        Raises GameNotFound (empty log), CorruptLog, UnknownRuleset (from ``fold``).
        """
        cached = self._games.get(game_id)
        if cached is None:
            snapshot = fold(game_id, await self._store.read(game_id), self._registry)
        else:
            newer = await self._store.read(game_id, cached.version)
            snapshot = cached.evolve(newer) if newer else cached
        self._remember(game_id, snapshot)
        return snapshot

    def _remember(self, game_id: str, snapshot: GameSnapshot) -> None:
        current = self._games.get(game_id)
        if current is None or current.version <= snapshot.version:
            self._games[game_id] = snapshot
        self._games.move_to_end(game_id)
        while len(self._games) > self._capacity:
            self._games.popitem(last=False)
