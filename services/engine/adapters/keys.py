"""Redis key layout: every key of a game lives in its shard's Redis Cluster hash tag.

A game's shard is ``k = sha256(game_id) mod shards``; its keys all carry the hash tag
``{s<k>}``, and so does that shard's turn-request stream, so the engine's append (events,
head, command ids, secret seed, games index, turn requests) is one Lua script touching one
slot:

- ``<prefix>:{s<k>}:game:<id>:events``   stream, one entry per event, entry id ``<version>-1``
- ``<prefix>:{s<k>}:game:<id>:head``     hash {version, hash}: the chain's head
- ``<prefix>:{s<k>}:game:<id>:commands`` hash, ``<scope>|<command id>`` ->
  ``"<first>-<last>:<request sha256>"`` (services.engine.domain.commands)
- ``<prefix>:{s<k>}:game:<id>:secret``   the game's seed (only the engine reads it)
- ``<prefix>:{s<k>}:game:<id>:sealed``   hash, secret id -> ``{value, nonce, seats}`` of each
  commitment in the log (service-only: engine writes, gateway reads for seat views)
- ``<prefix>:{s<k>}:game:<id>:tokens``   hash, seat -> SHA-256 hex of its token (the binding)
- ``<prefix>:{s<k>}:game:<id>:snapshot`` cached folded state (deletable at any time; never
  written for an archived game)
- ``<prefix>:{s<k>}:game:<id>:archive``  a finished game's whole log and command ids,
  compressed, once the retention policy moved them out of the events stream and the
  commands hash (``services.engine.adapters.archive``); the sealed hash goes then too (the
  log's reveals rebuild it)
- ``<prefix>:{s<k>}:games``              sorted set of the shard's game ids by creation ms
- ``<prefix>:{s<k>}:turns``              turn requests {game_id, seat, version} (group "bots")
- ``<prefix>:{s<k>}:dead``               turn requests given up on, with the reason
- ``<prefix>:{s<k>}:finished``           games that just ended {game_id, version} (read by
  the tournament directors' group, ``services.engine.adapters.finished``)
- ``<prefix>:{s<k>}:deadlines``          sorted set, game id -> its earliest clock deadline
  (ms); written by the append script, claimed by the timekeeper
  (``services.engine.adapters.deadlines``)

Every process of one deployment must use the same prefix and shard count.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from services.engine.domain.game_ids import check_game_id

DEFAULT_SHARDS = 16
"""Default number of shards (turn-request streams and games indexes)."""

_GAME_KEYS_CACHE = 8192
"""Games whose key prefix is remembered: an append names ten keys of its game, each
otherwise a SHA-256 and a regex match (about 8.5 us a move, issue 16)."""


@dataclass(frozen=True, slots=True)
class RedisKeys:
    """Key names under one prefix (tests use a unique prefix per run) and shard count."""

    prefix: str = "teoti"
    shards: int = DEFAULT_SHARDS

    def shard_of(self, game_id: str) -> int:
        """The shard holding ``game_id`` (stable across processes and runs). Raises
        ValueError for an id :func:`check_game_id` refuses."""
        return _shard(game_id, self.shards)

    def _tag(self, shard: int) -> str:
        return f"{self.prefix}:{{s{shard}}}"

    def _game(self, game_id: str) -> str:
        return _game_prefix(self, game_id)

    def events(self, game_id: str) -> str:
        """The game's event stream."""
        return f"{self._game(game_id)}:events"

    def head(self, game_id: str) -> str:
        """The game's chain head {version, hash}."""
        return f"{self._game(game_id)}:head"

    def commands(self, game_id: str) -> str:
        """The game's command-id hash."""
        return f"{self._game(game_id)}:commands"

    def secret(self, game_id: str) -> str:
        """The game's secret seed."""
        return f"{self._game(game_id)}:secret"

    def sealed(self, game_id: str) -> str:
        """The game's committed secrets (values and nonces)."""
        return f"{self._game(game_id)}:sealed"

    def tokens(self, game_id: str) -> str:
        """The game's seat -> token hash binding."""
        return f"{self._game(game_id)}:tokens"

    def snapshot(self, game_id: str) -> str:
        """The game's cached snapshot."""
        return f"{self._game(game_id)}:snapshot"

    def archive(self, game_id: str) -> str:
        """The game's compressed archived log (finished games past retention)."""
        return f"{self._game(game_id)}:archive"

    def games(self, shard: int) -> str:
        """Index of the shard's games."""
        return f"{self._tag(shard)}:games"

    def games_of(self, game_id: str) -> str:
        """Index holding ``game_id``."""
        return self.games(self.shard_of(game_id))

    def turns(self, shard: int) -> str:
        """The shard's turn-request stream (read by the bot workers' group)."""
        return f"{self._tag(shard)}:turns"

    def turns_of(self, game_id: str) -> str:
        """Turn-request stream of ``game_id``'s shard."""
        return self.turns(self.shard_of(game_id))

    def player_turns(self, shard: int) -> str:
        """The shard's player-turns stream (PlayerTurn entries; read by the notifiers'
        group, services.notices.notifier)."""
        return f"{self._tag(shard)}:player_turns"

    def player_turns_of(self, game_id: str) -> str:
        """Player-turns stream of ``game_id``'s shard."""
        return self.player_turns(self.shard_of(game_id))

    def dead_letters(self, shard: int) -> str:
        """The shard's dead-letter stream."""
        return f"{self._tag(shard)}:dead"

    def finished(self, shard: int) -> str:
        """The shard's game-finished notification stream."""
        return f"{self._tag(shard)}:finished"

    def finished_of(self, game_id: str) -> str:
        """Game-finished stream of ``game_id``'s shard."""
        return self.finished(self.shard_of(game_id))

    def all_finished(self) -> list[str]:
        """Every shard's game-finished stream."""
        return [self.finished(k) for k in range(self.shards)]

    def deadlines(self, shard: int) -> str:
        """The shard's clock deadlines (sorted set: game id -> deadline ms)."""
        return f"{self._tag(shard)}:deadlines"

    def deadlines_of(self, game_id: str) -> str:
        """Deadlines set holding ``game_id``."""
        return self.deadlines(self.shard_of(game_id))

    def all_turns(self) -> list[str]:
        """Every shard's turn-request stream."""
        return [self.turns(k) for k in range(self.shards)]


@lru_cache(maxsize=_GAME_KEYS_CACHE)
def _shard(game_id: str, shards: int) -> int:
    """``sha256(game_id)`` (first 8 bytes, big-endian) mod ``shards``; a refused id raises
    ValueError (not cached)."""
    digest = hashlib.sha256(check_game_id(game_id).encode()).digest()
    return int.from_bytes(digest[:8], "big") % shards


@lru_cache(maxsize=_GAME_KEYS_CACHE)
def _game_prefix(keys: RedisKeys, game_id: str) -> str:
    """``<prefix>:{s<k>}:game:<id>``, the start of every per-game key."""
    return f"{keys._tag(keys.shard_of(game_id))}:game:{game_id}"
