"""Cached folded games: an in-process LRU, backed by snapshots kept in the store.

Events are immutable once appended, so a snapshot at version v plus the events after v
is exactly the fold of the whole log. Both caches are only a speed-up: an empty cache, a
cache in another process, an evicted entry or a deleted stored snapshot all give the same
games. A writer that loaded a stale snapshot still fails its expected-version append.

Stored snapshots (rulesets with the optional ``snapshot``/``restore`` methods) are written
every ``snapshot_every`` events so loading a long game reads one snapshot and a short
tail; a stored snapshot that cannot be read, or whose head hash the tail does not chain
onto, is ignored and the log is folded from the start.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import structlog

from services.engine.domain.commitments import committed_parts
from services.engine.domain.engine_events import SEAT_JOINED
from services.engine.domain.errors import CorruptLog
from services.engine.domain.game import GameSnapshot, fold
from services.engine.domain.game_seats import SeatSpec
from services.engine.domain.leaving import NO_LEAVERS, SeatControl
from services.engine.domain.records import (
    PrivateRecords,
    SecretValue,
    StoredEvent,
    canonical_json,
)
from services.engine.domain.ruleset import supports_snapshots
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.store_protocol import EventStore
from services.engine.domain.timing.seat_clocks import ClockState

DEFAULT_CAPACITY = 2048
DEFAULT_SNAPSHOT_EVERY = 100
SNAPSHOT_FORMAT = 4
DEFAULT_CHECK_DECIDED_EVERY = 64
_READABLE_FORMATS = (2, 3, SNAPSHOT_FORMAT)
"""Format 3 added ``clock`` (a game's seat clocks); format 2 snapshots have none. Format
4 added ``control`` (who plays each seat, services.engine.domain.leaving); before it only
a clock's events handed seats over, so a format 3 snapshot's clock gives it."""
log = structlog.get_logger(__name__)


def encode_snapshot(snapshot: GameSnapshot) -> str | None:
    """The stored form of ``snapshot`` (JSON text), or None if its ruleset cannot save state."""
    ruleset: Any = snapshot.ruleset
    if not supports_snapshots(ruleset):
        return None
    return canonical_json(
        {
            "format": SNAPSHOT_FORMAT,
            "game_id": snapshot.game_id,
            "ruleset": snapshot.ruleset_name,
            "seats": [seat.private_json() for seat in snapshot.seats],
            "options": dict(snapshot.options),
            "seed_commitment": snapshot.seed_commitment,
            "version": snapshot.version,
            "head_hash": snapshot.head_hash,
            "revealed_seed": snapshot.revealed_seed,
            "state": ruleset.snapshot(snapshot.state),
            "secrets": {k: json.loads(v.to_json()) for k, v in snapshot.private.secrets.items()},
            "token_hashes": {str(k): v for k, v in snapshot.private.token_hashes.items()},
            "commitments": dict(snapshot.commitments),
            "revealed": sorted(snapshot.revealed),
            "clock": snapshot.clock.to_json() if snapshot.clock is not None else None,
            "control": snapshot.control.to_json(),
            # Optional within format 4: no snapshot stored before it can be of a rated
            # game (GameCreated v5 brought them).
            "rated": snapshot.rated,
        }
    )


def decode_snapshot(text: str, registry: RulesetRegistry) -> GameSnapshot:
    """Inverse of :func:`encode_snapshot`. Raises ValueError/KeyError/TypeError if unreadable."""
    data = json.loads(text)
    if data.get("format") not in _READABLE_FORMATS:
        raise ValueError(f"snapshot format {data.get('format')!r}")
    ruleset: Any = registry.get(str(data["ruleset"]))
    if not supports_snapshots(ruleset):
        raise ValueError(f"ruleset {data['ruleset']} cannot restore snapshots")
    clock = ClockState.from_json(data["clock"]) if data.get("clock") else None
    if data.get("control") is not None:
        control = SeatControl.from_json(data["control"])
    elif clock is not None:
        control = SeatControl(clock.taken_over, clock.forfeited)
    else:
        control = NO_LEAVERS
    return GameSnapshot(
        str(data["game_id"]),
        str(data["ruleset"]),
        ruleset,
        tuple(SeatSpec.from_json(seat) for seat in data["seats"]),
        dict(data["options"]),
        str(data["seed_commitment"]),
        int(data["version"]),
        ruleset.restore(data["state"]),
        str(data["head_hash"]),
        data.get("revealed_seed"),
        PrivateRecords(
            {k: SecretValue.from_json(canonical_json(v)) for k, v in data["secrets"].items()},
            {int(k): str(v) for k, v in data["token_hashes"].items()},
        ),
        {str(k): int(v) for k, v in data["commitments"].items()},
        frozenset(str(k) for k in data["revealed"]),
        clock,
        control,
        bool(data.get("rated", False)),
    )


def _needs_private(events: Sequence[StoredEvent]) -> bool:
    """True if folding ``events`` needs the service-only records (a commitment to fold
    whole, or a seat bound to a token)."""
    return any(e.type == SEAT_JOINED or committed_parts(e.payload) for e in events)


def _check_every() -> int:
    """``$TEOTI_CHECK_DECIDED_EVERY``: fold one append in this many a second time to
    check the decided state (0: never); 64 by default (about 0.1% of a move)."""
    text = os.environ.get("TEOTI_CHECK_DECIDED_EVERY", "")
    try:
        return max(0, int(text)) if text else DEFAULT_CHECK_DECIDED_EVERY
    except ValueError:
        return DEFAULT_CHECK_DECIDED_EVERY


class SnapshotCache:
    """LRU of the latest known snapshot per game id, backed by the store's snapshots.

    Args:
        store: where the logs (and stored snapshots) live.
        registry: rulesets to fold with.
        capacity: games kept in memory; the least recently loaded is evicted first.
        snapshot_every: store a snapshot once the log is this many events past the last
            stored one (0: never store snapshots, nor read them).
        save: False to read stored snapshots but never write one. The gateway and the bot
            worker run so: the engine trusts a stored snapshot's state (it checks only
            that the log's tail chains onto it), so only the engine, the one writer of
            the log, writes snapshots, and the others' Redis users may only read them.
    """

    def __init__(
        self,
        store: EventStore,
        registry: RulesetRegistry,
        capacity: int = DEFAULT_CAPACITY,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        save: bool = True,
    ) -> None:
        self._store = store
        self._registry = registry
        self._capacity = capacity
        self._every = snapshot_every
        self._save = save
        self.check_decided_every = _check_every()
        """One append in this many with a decided state is folded too, and compared
        (:meth:`appended`; 0: none)."""
        self._games: OrderedDict[str, GameSnapshot] = OrderedDict()
        self._stored_at: dict[str, int] = {}
        # Lookups answered from memory or not (read by the metrics endpoint, issue 34).
        self.hits = 0
        self.misses = 0
        self._appends_decided = 0
        self.decided_mismatches = 0
        """Appends whose decided state differed from the fold of their records."""

    async def load(self, game_id: str) -> GameSnapshot:
        """The game at its latest stored version.

        Raises GameNotFound (empty log), CorruptLog, UnknownRuleset (from ``fold``).
        """
        cached = self._games.get(game_id)
        if cached is None:
            self.misses += 1
            cached = await self._stored(game_id)
        else:
            self.hits += 1
        newer: list[StoredEvent] = []
        if cached is not None:
            # Read from the cached head itself: the log must still hold it, with its hash.
            # If it does not, the store lost writes this cache saw (a failover to a lagging
            # replica, an AOF cut short) or the log was replaced: the cache is dropped and
            # the game folded again from what the store has, never left ahead of it.
            tail = await self._store.read(game_id, cached.version - 1)
            if tail and tail[0].version == cached.version and tail[0].hash == cached.head_hash:
                newer = tail[1:]
            else:
                log.warning(
                    "cached_game_not_in_store",
                    game_id=game_id,
                    cached_version=cached.version,
                    store_version=tail[-1].version if tail else None,
                )
                self.forget(game_id)
                cached = None
        if cached is None:
            events = await self._store.read(game_id)
            private = await self._store.read_private(game_id) if events else None
            snapshot = fold(game_id, events, self._registry, private or PrivateRecords())
        else:
            private = await self._store.read_private(game_id) if _needs_private(newer) else None
            snapshot = cached.evolve(newer, private) if newer else cached
        self._remember(game_id, snapshot)
        await self._maybe_store(snapshot)
        return snapshot

    def cached(self, game_id: str) -> GameSnapshot | None:
        """The game as this process last saw it, without asking the store (no I/O).

        It may be behind the log (another process may have appended since), so it is
        only for callers that cannot be misled by that: a writer whose append checks the
        version anyway, or a check that a newer log could only confirm.
        """
        snapshot = self._games.get(game_id)
        if snapshot is not None:
            self.hits += 1
            self._games.move_to_end(game_id)
        else:
            self.misses += 1
        return snapshot

    async def appended(
        self,
        game_id: str,
        before: GameSnapshot | None,
        written: Sequence[StoredEvent],
        private: PrivateRecords | None = None,
        decided: Any = None,
    ) -> GameSnapshot:
        """Remember the game after events this process just appended, with no read.

        ``before`` is the snapshot the append chained onto (None for a new game) and
        ``written`` the records the store reported writing (``AppendResult.written``),
        which are exactly what a read would return, and ``private`` the service-only
        records the append kept with them. The store hashed those records itself, onto
        ``before``'s head, in this process (``store.chain.chained``), so they are folded
        without hashing them a second time (about 4 us an event, issue 16); every later
        load from the log checks the chain as always.

        ``decided`` (not None): the ruleset's state after ``written`` as the command's
        decision reached it; the ruleset's events are then not folded again (issue 35:
        5-6% of a move), see :meth:`GameSnapshot.evolve`. One append in
        :attr:`check_decided_every` is folded all the same and compared: a ruleset whose
        decision and fold disagree (a bug: the ruleset contract, tests/unit/
        test_ruleset_contract.py, forbids it) is logged as ``decided_state_differs`` and
        the fold, what an auditor of the log gets, is kept. Returns the new snapshot.
        """
        if before is None:
            snapshot = fold(game_id, written, self._registry, private or PrivateRecords())
        elif decided is None:
            snapshot = before.evolve(written, private, hashed_here=True)
        else:
            snapshot = before.evolve(written, private, hashed_here=True, decided=decided)
            self._appends_decided += 1
            if self.check_decided_every and not (self._appends_decided % self.check_decided_every):
                folded = before.evolve(written, private, hashed_here=True)
                if folded.state != decided:
                    log.error(
                        "decided_state_differs",
                        game_id=game_id,
                        ruleset=before.ruleset_name,
                        version=folded.version,
                    )
                    self.decided_mismatches += 1
                    snapshot = folded
        self._remember(game_id, snapshot)
        await self._maybe_store(snapshot)
        return snapshot

    def advance(self, game_id: str, written: Sequence[StoredEvent]) -> GameSnapshot | None:
        """The cached game after ``written``, events another process (the engine) just
        appended and reported, with no read; None when that cannot be done without the
        store: the game is not cached, the cache is not right before ``written[0]``, or
        folding them needs the service-only records (a seat joined, a commitment). The
        cached game itself when it already ends with ``written`` (a shared cache).

        The events must chain onto the cached head (CorruptLog otherwise, as on a load).
        """
        cached = self._games.get(game_id)
        if cached is None or not written:
            return None
        if cached.version == written[-1].version and cached.head_hash == written[-1].hash:
            return cached  # this cache is the engine's own (one process): already folded
        if written[0].version != cached.version + 1 or _needs_private(written):
            return None
        snapshot = cached.evolve(written)
        self._remember(game_id, snapshot)
        return snapshot

    def created(
        self, game_id: str, written: Sequence[StoredEvent], private: PrivateRecords
    ) -> GameSnapshot | None:
        """A game another process (the engine) just created, folded from ``written``, the
        events it reported appending, with ``private``, the token bindings the creator
        sent it, with no read; None when that cannot be done without the store: nothing
        reported (a retried creation), ``written`` does not start the log, or folding it
        needs records the creator does not hold (a commitment: the setup's secrets).

        The events are checked as on a load (chain from the genesis hash; CorruptLog).
        """
        if not written or written[0].version != 1 or _needs_private(written):
            return None
        snapshot = fold(game_id, written, self._registry, private)
        self._remember(game_id, snapshot)
        return snapshot

    async def _stored(self, game_id: str) -> GameSnapshot | None:
        """The stored snapshot, if readable (its tail is checked, not folded, here)."""
        if self._every <= 0:
            return None
        text = await self._store.load_snapshot(game_id)
        if text is None:
            return None
        try:
            snapshot = decode_snapshot(text, self._registry)
            self._stored_at[game_id] = snapshot.version
            newer = await self._store.read(game_id, snapshot.version, 1)
            if newer:
                snapshot.evolve(newer)  # the tail must chain onto the snapshot's head
            return snapshot
        except (ValueError, KeyError, TypeError, CorruptLog) as exc:
            log.warning("stored_snapshot_ignored", game_id=game_id, error=repr(exc))
            return None

    async def _maybe_store(self, snapshot: GameSnapshot) -> None:
        if self._every <= 0 or not self._save:
            return
        if snapshot.version - self._stored_at.get(snapshot.game_id, 0) < self._every:
            return
        text = encode_snapshot(snapshot)
        self._stored_at[snapshot.game_id] = snapshot.version
        if text is not None:
            await self._store.save_snapshot(snapshot.game_id, text)

    def forget(self, game_id: str) -> None:
        """Drop the in-memory entry (the next load reads the store)."""
        self._games.pop(game_id, None)
        self._stored_at.pop(game_id, None)

    def _remember(self, game_id: str, snapshot: GameSnapshot) -> None:
        current = self._games.get(game_id)
        if current is None or current.version <= snapshot.version:
            self._games[game_id] = snapshot
        self._games.move_to_end(game_id)
        while len(self._games) > self._capacity:
            evicted, _ = self._games.popitem(last=False)
            self._stored_at.pop(evicted, None)
