"""In-memory event store: same contract as the Redis one, for tests and quick runs."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from services.engine.domain.chain import GENESIS_HASH, chained
from services.engine.domain.game_ids import NOT_A_GAME_PREFIX
from services.engine.domain.records import (
    AppendResult,
    CommandKey,
    CommandRecord,
    Deadline,
    EventMetadata,
    GameIndexEntry,
    NewGame,
    PlayerTurn,
    PrivateRecords,
    Publication,
    StoredEvent,
    TurnRequest,
)
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.store_errors import ChainMismatch, VersionConflict


class InMemoryEventStore:
    """Event logs held in dicts, guarded by one lock and one condition for watchers.

    Payloads go through canonical JSON on append and are hashed like the Redis store's,
    so both return equal records.
    """

    def __init__(self) -> None:
        self._events: dict[str, list[StoredEvent]] = {}
        self._commands: dict[str, dict[str, CommandRecord]] = {}
        self._games: list[GameIndexEntry] = []
        self._secrets: dict[str, str] = {}
        self._private: dict[str, PrivateRecords] = {}
        self._snapshots: dict[str, str] = {}
        self.turn_requests: list[TurnRequest] = []
        self.player_turns: list[PlayerTurn] = []
        """The player seats' turns published, as the Redis player-turns streams."""
        self.deadlines: dict[str, int] = {}
        """Game id -> its earliest clock deadline (ms), as the Redis deadlines sets."""
        self._changed = asyncio.Condition()

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
        """See EventStore.append."""
        if not events:
            raise ValueError("append needs at least one event")
        async with self._changed:
            commands = self._commands.setdefault(game_id, {})
            key = command.field if command else metadata.command_id
            if key and key in commands:
                done = commands[key]
                return AppendResult(done.first_version, done.last_version, (), done.request_hash)
            log = self._events.get(game_id, [])
            if len(log) != expected_version:
                raise VersionConflict(game_id, expected_version, len(log))
            head = log[-1].hash if log else GENESIS_HASH
            if prev_hash is not None and prev_hash != head:
                raise ChainMismatch(game_id, f"head hash is {head}")
            if expected_version == 0:
                self._games.append(GameIndexEntry(new_game.created_ms if new_game else 0, game_id))
                self._games.sort()
                self._events[game_id] = log
                if new_game and new_game.secret_seed:
                    self._secrets[game_id] = new_game.secret_seed
            written = tuple(
                record for _payload, record in chained(expected_version, events, metadata, head)
            )
            log.extend(written)
            if private is not None:
                self._private[game_id] = self._private.get(game_id, PrivateRecords()).merged(
                    private
                )
            if key:
                commands[key] = CommandRecord(
                    expected_version + 1, len(log), command.request_hash if command else ""
                )
            for request in turn_requests:
                if isinstance(request, PlayerTurn):
                    self.player_turns.append(request)
                else:
                    self.turn_requests.append(request)
            if deadline is not None:
                if deadline.at_ms is None:
                    self.deadlines.pop(game_id, None)
                else:
                    self.deadlines[game_id] = deadline.at_ms
            self._changed.notify_all()
            return AppendResult(expected_version + 1, len(log), written)

    async def read(self, game_id: str, from_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """See EventStore.read."""
        log = self._events.get(game_id, [])[max(from_version, 0) :]
        return log[:limit] if limit > 0 else list(log)

    async def read_after(
        self, game_id: str, version: int, block_ms: int, limit: int = 0
    ) -> list[StoredEvent]:
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
            events = self._events.get(game_id, [])[max(version, 0) :]
            return events[:limit] if limit > 0 else list(events)

    async def read_after_many(
        self, positions: Mapping[str, int], block_ms: int, limit: int = 0
    ) -> dict[str, list[StoredEvent]]:
        """See EventStore.read_after_many."""

        def newer() -> dict[str, list[StoredEvent]]:
            found = {}
            for game, version in positions.items():
                events = self._events.get(game, [])[version:]
                if events:
                    found[game] = events[:limit] if limit > 0 else list(events)
            return found

        async with self._changed:
            if block_ms > 0 and not newer():
                try:
                    await asyncio.wait_for(
                        self._changed.wait_for(lambda: bool(newer())), block_ms / 1000
                    )
                except TimeoutError:
                    return {}
            return newer()

    def watch_partition(self, game_id: str) -> int:
        """See EventStore.watch_partition (one partition: nothing is sharded here)."""
        return 0

    async def head(self, game_id: str) -> tuple[int, str]:
        """See EventStore.head."""
        log = self._events.get(game_id, [])
        return (len(log), log[-1].hash) if log else (0, GENESIS_HASH)

    async def version(self, game_id: str) -> int:
        """See EventStore.version."""
        return len(self._events.get(game_id, []))

    async def command_result(self, game_id: str, command_id: str) -> CommandRecord | None:
        """See EventStore.command_result."""
        return self._commands.get(game_id, {}).get(command_id)

    async def list_games(
        self, after: GameIndexEntry | None = None, limit: int = 0
    ) -> list[GameIndexEntry]:
        """See EventStore.list_games."""
        games = [
            g
            for g in self._games
            if (after is None or g > after) and not g.game_id.startswith(NOT_A_GAME_PREFIX)
        ]
        return games[:limit] if limit > 0 else games

    async def secret_seed(self, game_id: str) -> str | None:
        """See EventStore.secret_seed."""
        return self._secrets.get(game_id)

    async def read_private(self, game_id: str) -> PrivateRecords:
        """See EventStore.read_private."""
        return self._private.get(game_id, PrivateRecords())

    async def save_snapshot(self, game_id: str, data: str) -> None:
        """See EventStore.save_snapshot."""
        self._snapshots[game_id] = data

    async def load_snapshot(self, game_id: str) -> str | None:
        """See EventStore.load_snapshot."""
        return self._snapshots.get(game_id)

    async def delete_snapshot(self, game_id: str) -> None:
        """See EventStore.delete_snapshot."""
        self._snapshots.pop(game_id, None)

    async def close(self) -> None:
        """Nothing to release."""
