"""Tournament logs in the existing event store, and the tournament's service-only keys.

Each tournament's log is an event-store stream with id ``t-<tournament id>``: the same
Lua append (expected version, head hash, command ids, hash chain) and the same audit as a
game's. The pairing seed is kept where a game's secret seed is (``NewGame.secret_seed``,
engine-only), player token hashes where a game's seat bindings are (``PrivateRecords``,
keyed by registration index), and the organiser token's hash there too, under the key
``ORGANISER_SLOT`` (-1, never a registration index), written in the creating append.
Besides, under the deployment's prefix:

- ``<prefix>:tournaments``         sorted set of tournament ids by creation ms (List)
- ``<prefix>:tournament:games``    hash, game id -> tournament id (the director's lookup)
- ``<prefix>:players``             hash, player identity (services.players.names) ->
  ``"<SHA-256 hex of the player token> <display form first claimed>"`` (one identity per
  name across tournaments, service-only). Older versions wrote the display form as the
  field and the hash alone as the value; such claims are still honoured under that exact
  name.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.chain import GENESIS_HASH
from services.engine.domain.clock import Clock, iso, system_clock
from services.engine.domain.game_ids import check_game_id
from services.engine.domain.records import (
    SYSTEM_SEAT,
    EventMetadata,
    NewGame,
    PrivateRecords,
    StoredEvent,
)
from services.engine.domain.ruleset import DomainEvent
from services.players.names import name_key
from services.tournament.aggregate import TournamentState, fold
from services.tournament.config import TournamentConfig
from services.tournament.errors import TournamentNotFound, TournamentRefused
from services.tournament.events import tournament_created

STREAM_PREFIX = "t-"
"""Event-store ids of tournament logs start with this (game ids never do)."""

ORGANISER_SLOT = -1
"""The private token-hash key of the organiser token (registration indexes are >= 0)."""

_ID_NAMESPACE = uuid.UUID("3a1f6a52-8a43-4d8e-9c55-2f0c0b7f5e11")


def stream_id(tournament_id: str) -> str:
    """The event-store id of a tournament's log. Raises TournamentNotFound for an id no
    tournament can have (one the key layout refuses: spaces, ``:``, braces, ...)."""
    sid = f"{STREAM_PREFIX}{tournament_id}"
    try:
        return check_game_id(sid)
    except ValueError as exc:
        raise TournamentNotFound(tournament_id) from exc


def token_hash(token: str) -> str:
    """SHA-256 hex of a player token (what the service keeps; never logged)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def tournament_id_for(command_id: str) -> str:
    """A tournament id derived from a create command id (a retried create finds it)."""
    return uuid.uuid5(_ID_NAMESPACE, f"create|{command_id}").hex[:20]


FOLDED_KEPT = 256
"""Tournaments whose folded state a process keeps (least recently loaded dropped first)."""


class TournamentRepository:
    """Loads, creates and appends to tournament logs; keeps their service-only keys.

    A load reads only the events after the state this process last folded of that
    tournament (checked to continue it: the event at its version must carry its head
    hash), so an open tournament's sign-up rush, each registration a load and an append,
    does not fold the whole log again each time (2,000 registrations: O(n) reads, not
    O(n^2) events).

    Args:
        store: the deployment's Redis event store (its prefix names the extra keys).
        clock: time recorded on events and the creation index.
    """

    def __init__(self, store: RedisEventStore, clock: Clock = system_clock) -> None:
        self.store = store
        self._redis = store.client
        self._clock = clock
        self._folded: OrderedDict[str, TournamentState] = OrderedDict()
        prefix = store.keys.prefix
        self._index = f"{prefix}:tournaments"
        self._games = f"{prefix}:tournament:games"
        self._players = f"{prefix}:players"

    def now(self) -> str:
        """The clock's time as ISO 8601 UTC text."""
        return iso(self._clock())

    def _metadata(self, command_id: str) -> EventMetadata:
        return EventMetadata(command_id=command_id, seat=SYSTEM_SEAT, recorded_at=self.now())

    async def create(
        self,
        tournament_id: str,
        config: TournamentConfig,
        seed: str,
        command_id: str = "",
        organiser_hash: str = "",
    ) -> TournamentState:
        """Append TournamentCreated (keeping ``seed`` secret, and ``organiser_hash``, the
        SHA-256 hex of the organiser token, service-only) and index the tournament.

        A retried create (same command id) returns the tournament as it is.
        """
        sid = stream_id(tournament_id)
        created_ms = int(self._clock().timestamp() * 1000)
        event = tournament_created(tournament_id, config, seed, self.now())
        await self.store.append(
            sid,
            0,
            [event],
            self._metadata(command_id),
            prev_hash=GENESIS_HASH,
            new_game=NewGame(seed, created_ms),
            private=PrivateRecords(token_hashes={ORGANISER_SLOT: organiser_hash})
            if organiser_hash
            else None,
        )
        await self._redis.zadd(self._index, {tournament_id: created_ms}, nx=True)
        return await self.load(tournament_id)

    async def events(self, tournament_id: str, after: int = 0) -> list[StoredEvent]:
        """The tournament's stored events after version ``after``."""
        return await self.store.read(stream_id(tournament_id), after)

    async def load(self, tournament_id: str) -> TournamentState:
        """The tournament folded from its log. Raises TournamentNotFound."""
        try:
            known = self._folded.get(tournament_id)
            if known is not None:
                # From the known head on: the first event read must be that head.
                newer = await self.events(tournament_id, known.version - 1)
                if (
                    newer
                    and newer[0].version == known.version
                    and (newer[0].hash == known.head_hash)
                ):
                    return self._remember(fold(newer[1:], known))
                self._folded.pop(tournament_id, None)  # not the log it was: fold it all
            stored = await self.events(tournament_id)
        except ValueError as exc:  # an id the key layout refuses
            raise TournamentNotFound(tournament_id) from exc
        if not stored:
            raise TournamentNotFound(tournament_id)
        return self._remember(fold(stored))

    def _remember(self, state: TournamentState) -> TournamentState:
        """Keep ``state`` as its tournament's newest fold known here; returns it."""
        known = self._folded.get(state.tournament_id)
        if known is None or known.version <= state.version:
            self._folded[state.tournament_id] = state
        self._folded.move_to_end(state.tournament_id)
        while len(self._folded) > FOLDED_KEPT:
            self._folded.popitem(last=False)
        return state

    async def append(
        self,
        state: TournamentState,
        events: Sequence[DomainEvent],
        command_id: str = "",
        private: PrivateRecords | None = None,
    ) -> TournamentState:
        """Append ``events`` decided on ``state`` (expected version and head hash checked
        by the store's script). Returns the state after them. Raises VersionConflict
        (someone else appended first: reload and decide again), ChainMismatch."""
        result = await self.store.append(
            stream_id(state.tournament_id),
            state.version,
            events,
            self._metadata(command_id),
            prev_hash=state.head_hash,
            private=private,
        )
        if result.duplicate:
            return await self.load(state.tournament_id)
        return self._remember(fold(result.written, state))

    async def seed(self, tournament_id: str) -> str:
        """The secret pairing seed (service-only). Raises TournamentNotFound."""
        seed = await self.store.secret_seed(stream_id(tournament_id))
        if seed is None:
            raise TournamentNotFound(tournament_id)
        return seed

    async def player_tokens(self, tournament_id: str) -> Mapping[int, str]:
        """Registration index -> player token hash of the tournament's human players."""
        hashes = (await self.store.read_private(stream_id(tournament_id))).token_hashes
        return {index: h for index, h in hashes.items() if index != ORGANISER_SLOT}

    async def organiser_hash(self, tournament_id: str) -> str:
        """SHA-256 hex of the tournament's organiser token ("" if it has none)."""
        hashes = (await self.store.read_private(stream_id(tournament_id))).token_hashes
        return hashes.get(ORGANISER_SLOT, "")

    async def list(
        self, after: tuple[int, str] | None = None, limit: int = 100
    ) -> list[tuple[int, str]]:
        """(created ms, tournament id) in that order, strictly after ``after`` (a page
        cursor: the last entry of the previous page)."""
        start = after[0] if after else "-inf"
        # Ids created in the cursor's ms come first: read past them, then cut.
        reply: Any = await self._redis.zrangebyscore(
            self._index, start, "+inf", start=0, num=limit + 100, withscores=True
        )
        entries = sorted((int(score), str(tid)) for tid, score in reply)
        return [e for e in entries if after is None or e > after][:limit]

    async def bind_games(self, tournament_id: str, game_ids: Sequence[str]) -> None:
        """Record that ``game_ids`` are tables of ``tournament_id`` (idempotent)."""
        if game_ids:
            await self._redis.hset(self._games, mapping=dict.fromkeys(game_ids, tournament_id))

    async def tournament_of(self, game_id: str) -> str | None:
        """The tournament a game is a table of, or None."""
        value: Any = await self._redis.hget(self._games, game_id)
        return str(value) if value else None

    async def tournaments_of(self, game_ids: Sequence[str]) -> tuple[str | None, ...]:
        """:meth:`tournament_of` for each of ``game_ids``, in one pipelined round trip
        (HGETs: the director's Redis user may run HGET, services.engine.adapters.acl)."""
        if not game_ids:
            return ()
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(self._games, game_id)
        values: Any = await pipe.execute()
        return tuple(str(value) if value else None for value in values)

    async def is_claimed(self, player: str) -> bool:
        """Whether a human player token holds the name ``player`` (its identity, or the
        exact name in an older version's claim)."""
        # HGET, not HEXISTS: the director's Redis user may run HGET (services.engine.adapters.acl).
        pipe = self._redis.pipeline(transaction=False)
        pipe.hget(self._players, name_key(player))
        pipe.hget(self._players, player)
        bound: Any = await pipe.execute()
        return any(bound)

    async def claim_name(self, player: str, hashed_token: str) -> str:
        """Bind the identity of the name ``player`` to the player token hashed
        ``hashed_token`` (first use), or check it is that token; returns the display form
        the identity was first claimed with (``player`` itself on first use). Raises
        TournamentRefused ``name_taken``."""
        key = name_key(player)
        await self._redis.hsetnx(self._players, key, f"{hashed_token} {player}")
        pipe = self._redis.pipeline(transaction=False)
        pipe.hget(self._players, key)
        pipe.hget(self._players, player)  # an older version's claim of the exact name
        bound, legacy = await pipe.execute()
        holder, _, display = str(bound).partition(" ")
        if holder != hashed_token or (legacy and player != key and str(legacy) != hashed_token):
            raise TournamentRefused(
                "name_taken", f"the player name {player!r} belongs to another player"
            )
        return display or player
