"""The event store contract shared by the in-memory and Redis implementations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from services.engine.domain.records import (
    AppendResult,
    CommandKey,
    CommandRecord,
    Deadline,
    EventMetadata,
    GameIndexEntry,
    NewGame,
    PrivateRecords,
    Publication,
    StoredEvent,
)
from services.engine.domain.ruleset import DomainEvent


class EventStore(Protocol):
    """Append-only, hash-chained per-game event logs with optimistic concurrency.

    Versions start at 1 for a game's first event and are contiguous; logs are never
    trimmed. A game exists once its first batch has been appended with
    ``expected_version=0``. Each stored event carries the hash chaining it onto the one
    before (``services.engine.domain.chain``); the store computes it on append.
    """

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[DomainEvent],
        metadata: EventMetadata,
        turn_requests: Sequence[Publication] = (),
        prev_hash: str | None = None,
        new_game: NewGame | None = None,
        private: PrivateRecords | None = None,
        command: CommandKey | None = None,
        deadline: Deadline | None = None,
    ) -> AppendResult:
        """Atomically append ``events`` if the log is at ``expected_version``.

        In the same atomic step: check the head hash equals ``prev_hash`` (None: the store
        reads it first; the check still runs), record the command's result under
        ``command.field`` with ``command.request_hash`` (without ``command``: under
        ``metadata.command_id`` if not empty, with no hash) so a retry of that command
        appends nothing and returns the original result and the recorded hash, publish
        ``turn_requests`` on the game's shard (a bot seat's TurnRequest for the bot
        worker, a player seat's PlayerTurn for the notifier, each on its own stream),
        for a new game (``expected_version == 0``) index it and keep
        ``new_game.secret_seed``, and keep ``private`` (the secrets the events commit to,
        new token bindings) in the game's service-only keys: no event is ever stored
        without its secrets; and set (or drop) the game's clock ``deadline``
        (None: leave it as it is).

        Returns the versions the append reached (for a retried command id: the original
        append's, with ``duplicate`` set) and the ``written`` records, which let a writer
        fold what it appended without reading it back (empty for a duplicate). Raises
        VersionConflict if the log is elsewhere, ChainMismatch if the head hash differs,
        ValueError if ``events`` is empty.
        """
        ...

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """Events with version > ``from_version`` in order (at most ``limit`` if > 0)."""
        ...

    async def read_after(
        self, game_id: str, version: int, block_ms: int, limit: int = 0
    ) -> list[StoredEvent]:
        """Events with version > ``version`` (at most ``limit`` if > 0); waits up to
        ``block_ms`` for one if none yet."""
        ...

    async def read_after_many(
        self, positions: Mapping[str, int], block_ms: int, limit: int = 0
    ) -> dict[str, list[StoredEvent]]:
        """For each game of ``positions`` (game id -> version seen), its events after that
        version (at most ``limit`` per game if > 0), waiting up to ``block_ms`` for any
        one; games with nothing new are absent. Every game must share one
        :meth:`watch_partition` (one read serves them all)."""
        ...

    def watch_partition(self, game_id: str) -> int:
        """Games of the same partition can be read together by :meth:`read_after_many`."""
        ...

    async def version(self, game_id: str) -> int:
        """Current version of the game's log (0 if the game does not exist)."""
        ...

    async def head(self, game_id: str) -> tuple[int, str]:
        """The recorded chain head ``(version, hash)``; ``(0, GENESIS_HASH)`` if no game."""
        ...

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        """The versions an already-applied command produced (and its request hash), or
        None. ``command_id`` is the field it was recorded under: ``CommandKey.field``,
        or the bare command id of an append made without a CommandKey."""
        ...

    async def list_games(
        self, after: GameIndexEntry | None = None, limit: int = 0
    ) -> list[GameIndexEntry]:
        """Games ordered by (creation ms, id), strictly after ``after``; ``limit`` > 0 caps."""
        ...

    async def secret_seed(self, game_id: str) -> str | None:
        """The game's secret seed (engine only), or None if not kept."""
        ...

    async def read_private(self, game_id: str) -> PrivateRecords:
        """The game's service-only records: committed secrets and token bindings."""
        ...

    async def save_snapshot(self, game_id: str, data: str) -> None:
        """Keep ``data`` (a serialized snapshot) as the game's cached snapshot."""
        ...

    async def load_snapshot(self, game_id: str) -> str | None:
        """The game's cached snapshot, if any."""
        ...

    async def delete_snapshot(self, game_id: str) -> None:
        """Drop the game's cached snapshot (never changes what loading returns)."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
