"""Stored ratings per ruleset: the one rating book of rated tournament tables and rated
games outside tournaments (issue 32, docs/ratings.md).

Keys (one hash tag per ruleset, so the update script touches one cluster slot):

- ``<prefix>:{ratings:<ruleset>}:players``  hash, player -> ``{"mu", "sigma", "games"}``
- ``<prefix>:{ratings:<ruleset>}:applied``  set of game ids already rated
- ``<prefix>:{ratings:<ruleset>}:history:<player>``  list, newest first, of the player's
  rated games (:class:`HistoryEntry` JSON), capped near HISTORY_CAP entries

A player is keyed by their rating identity: ``player:<id>`` for a player account
(:func:`account_identity`), a tournament's player name (``bot:<name>`` for its bots).

A game is rated once: the update script compares every player's rating with the one the
new values were computed from (compare-and-set) and refuses a game id already applied,
so two directors rating at once neither lose an update nor count a game twice. The
history entries are written by the same script, so they too exist once per game.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.tournament.ratings import Rating, leaderboard, update_ratings

# KEYS: 1 players hash, 2 applied set, then one history list per player (in ARGV's
# order). ARGV: 1 game id, 2 history cap, then (player, old json or '', new json,
# history entry json) quadruples. Returns 'dup', 'changed' or 'ok'.
_CAS_SCRIPT = """
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'dup' end
for i = 3, #ARGV, 4 do
  local current = redis.call('HGET', KEYS[1], ARGV[i]) or ''
  if current ~= ARGV[i + 1] then return 'changed' end
end
local cap = tonumber(ARGV[2])
for i = 3, #ARGV, 4 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  local history = KEYS[3 + (i - 3) / 4]
  redis.call('LPUSH', history, ARGV[i + 3])
  redis.call('LTRIM', history, 0, cap - 1)
end
redis.call('SADD', KEYS[2], ARGV[1])
return 'ok'
"""
_CAS_SHA = hashlib.sha1(_CAS_SCRIPT.encode()).hexdigest()
MAX_ATTEMPTS = 16
HISTORY_CAP = 1000
"""Rated games kept in a player's history per ruleset (the newest; older ones stay
recomputable from the games' public logs)."""
ACCOUNT_PREFIX = "player:"
"""Rating identities of player accounts start with this (services.players ids)."""


def account_identity(player_id: str) -> str:
    """The rating identity of the player account ``player_id``: ``player:<id>``."""
    return f"{ACCOUNT_PREFIX}{player_id}"


@dataclass(frozen=True)
class HistoryEntry:
    """One rated game in a player's history.

    Attributes:
        game_id: the game.
        ruleset: its ruleset.
        before / after: the player's rating before and after it.
        place: the player's finishing place (1 = first; resigned or forfeited seats last).
        at: when the game ended (ISO 8601 UTC, the ending event's ``recorded_at``; "" if
            the caller gave none).
    """

    game_id: str
    ruleset: str
    before: Rating
    after: Rating
    place: int
    at: str

    def to_json(self) -> dict[str, Any]:
        """``{game_id, ruleset, before, after, place, at}`` with ratings as
        ``{mu, sigma, games}``."""
        return {
            "game_id": self.game_id,
            "ruleset": self.ruleset,
            "before": _rating_json(self.before),
            "after": _rating_json(self.after),
            "place": self.place,
            "at": self.at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HistoryEntry:
        """Inverse of :meth:`to_json`. Raises KeyError/ValueError/TypeError."""
        return cls(
            str(data["game_id"]),
            str(data["ruleset"]),
            _from_json(json.dumps(data["before"])),
            _from_json(json.dumps(data["after"])),
            int(data["place"]),
            str(data["at"]),
        )


def _rating_json(rating: Rating) -> dict[str, Any]:
    return {"mu": rating.mu, "sigma": rating.sigma, "games": rating.games}


def _to_json(rating: Rating) -> str:
    return json.dumps(_rating_json(rating), sort_keys=True)


def _from_json(text: str) -> Rating:
    data = json.loads(text)
    return Rating(float(data["mu"]), float(data["sigma"]), int(data["games"]))


class RatingsBook:
    """Ratings per ruleset in Redis (see the module doc for keys and the update rule)."""

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix

    def _keys(self, ruleset: str) -> list[str]:
        tag = f"{self._prefix}:{{ratings:{ruleset}}}"
        return [f"{tag}:players", f"{tag}:applied"]

    def _history_key(self, ruleset: str, player: str) -> str:
        return f"{self._prefix}:{{ratings:{ruleset}}}:history:{player}"

    async def record(
        self,
        ruleset: str,
        game_id: str,
        players: Sequence[str],
        places: Sequence[int],
        at: str = "",
    ) -> bool:
        """Rate one finished game (``places`` per player, 1 = first). Returns False if
        it was rated before. Raises RuntimeError if other updates kept winning."""
        return await self.rate(ruleset, game_id, players, places, at) is not None

    async def rate(
        self,
        ruleset: str,
        game_id: str,
        players: Sequence[str],
        places: Sequence[int],
        at: str = "",
    ) -> dict[str, HistoryEntry] | None:
        """Rate one finished game (``places`` per player, 1 = first; ``at``: when it
        ended, ISO 8601) through :func:`update_ratings`, and add it to each player's
        history. Returns each player's entry, or None if the game was rated before.

        Raises:
            ValueError: as update_ratings (fewer than 2 players, one listed twice).
            RuntimeError: other updates kept winning the compare-and-set.
        """
        keys = self._keys(ruleset)
        histories = [self._history_key(ruleset, player) for player in players]
        for _attempt in range(MAX_ATTEMPTS):
            stored: Any = await self._redis.hmget(keys[0], list(players))
            old = {p: _text(v) if v else "" for p, v in zip(players, stored, strict=True)}
            current = {p: _from_json(v) for p, v in old.items() if v}
            new = update_ratings(current, players, places)
            entries = {
                player: HistoryEntry(
                    game_id, ruleset, current.get(player, Rating()), new[player], place, at
                )
                for player, place in zip(players, places, strict=True)
            }
            args = [game_id, str(HISTORY_CAP)]
            for player in players:
                entry = json.dumps(entries[player].to_json(), sort_keys=True)
                args += [player, old[player], _to_json(new[player]), entry]
            status = await self._run([*keys, *histories], args)
            if status == "dup":
                return None
            if status == "ok":
                return entries
        raise RuntimeError(f"ratings of {ruleset} kept changing while rating {game_id}")

    async def rating(self, ruleset: str, player: str) -> Rating | None:
        """``player``'s rating in ``ruleset`` (a rating identity), None if never rated."""
        stored: Any = await self._redis.hget(self._keys(ruleset)[0], player)
        return _from_json(_text(stored)) if stored else None

    async def ratings(self, ruleset: str) -> dict[str, Rating]:
        """Every rated player of ``ruleset`` (identity -> rating)."""
        stored: Any = await self._redis.hgetall(self._keys(ruleset)[0])
        return {_text(p): _from_json(_text(v)) for p, v in (stored or {}).items()}

    async def history(
        self, ruleset: str, player: str, offset: int = 0, limit: int = 50
    ) -> list[HistoryEntry]:
        """``player``'s rated games of ``ruleset``, newest first, from ``offset``, at
        most ``limit`` (>= 1)."""
        stored: Any = await self._redis.lrange(
            self._history_key(ruleset, player), offset, offset + max(1, limit) - 1
        )
        return [HistoryEntry.from_json(json.loads(_text(item))) for item in stored or []]

    async def _run(self, keys: list[str], args: list[str]) -> str:
        try:
            reply: Any = await self._redis.evalsha(_CAS_SHA, len(keys), *keys, *args)
        except NoScriptError:
            reply = await self._redis.eval(_CAS_SCRIPT, len(keys), *keys, *args)
        return str(reply)

    async def leaderboard(self, ruleset: str, limit: int = 100) -> list[tuple[str, Rating]]:
        """Players of ``ruleset`` best first (see ratings.leaderboard), at most ``limit``."""
        board = leaderboard(await self.ratings(ruleset))
        return board[:limit] if limit > 0 else board


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
