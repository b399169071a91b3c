"""Stored ratings per ruleset: the rating projection of rated tournament tables.

Keys (one hash tag per ruleset, so the update script touches one cluster slot):

- ``<prefix>:{ratings:<ruleset>}:players``  hash, player -> ``{"mu", "sigma", "games"}``
- ``<prefix>:{ratings:<ruleset>}:applied``  set of game ids already rated

A game is rated once: the update script compares every player's rating with the one the
new values were computed from (compare-and-set) and refuses a game id already applied,
so two directors rating at once neither lose an update nor count a game twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.tournament.ratings import Rating, leaderboard, update_ratings

# KEYS: 1 players hash, 2 applied set. ARGV: 1 game id, then (player, old json or '',
# new json) triples. Returns 'dup', 'changed' or 'ok'.
_CAS_SCRIPT = """
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'dup' end
for i = 2, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[1], ARGV[i]) or ''
  if current ~= ARGV[i + 1] then return 'changed' end
end
for i = 2, #ARGV, 3 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2]) end
redis.call('SADD', KEYS[2], ARGV[1])
return 'ok'
"""
_CAS_SHA = hashlib.sha1(_CAS_SCRIPT.encode()).hexdigest()
MAX_ATTEMPTS = 16


def _to_json(rating: Rating) -> str:
    return json.dumps(
        {"mu": rating.mu, "sigma": rating.sigma, "games": rating.games}, sort_keys=True
    )


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

    async def record(
        self, ruleset: str, game_id: str, players: Sequence[str], places: Sequence[int]
    ) -> bool:
        """Rate one finished game (``places`` per player, 1 = first). Returns False if
        it was rated before. Raises RuntimeError if other updates kept winning."""
        keys = self._keys(ruleset)
        for _attempt in range(MAX_ATTEMPTS):
            stored: Any = await self._redis.hmget(keys[0], list(players))
            old = {p: str(v) if v else "" for p, v in zip(players, stored, strict=True)}
            current = {p: _from_json(v) for p, v in old.items() if v}
            new = update_ratings(current, players, places)
            args = [game_id]
            for player in players:
                args += [player, old[player], _to_json(new[player])]
            status = await self._run(keys, args)
            if status == "dup":
                return False
            if status == "ok":
                return True
        raise RuntimeError(f"ratings of {ruleset} kept changing while rating {game_id}")

    async def _run(self, keys: list[str], args: list[str]) -> str:
        try:
            reply: Any = await self._redis.evalsha(_CAS_SHA, len(keys), *keys, *args)
        except NoScriptError:
            reply = await self._redis.eval(_CAS_SCRIPT, len(keys), *keys, *args)
        return str(reply)

    async def leaderboard(self, ruleset: str, limit: int = 100) -> list[tuple[str, Rating]]:
        """Players of ``ruleset`` best first (see ratings.leaderboard), at most ``limit``."""
        stored: Any = await self._redis.hgetall(self._keys(ruleset)[0])
        ratings = {str(p): _from_json(str(v)) for p, v in (stored or {}).items()}
        board = leaderboard(ratings)
        return board[:limit] if limit > 0 else board

    async def rating(self, ruleset: str, player: str) -> Rating:
        """``player``'s rating in ``ruleset`` (a new player's default if never rated)."""
        stored: Any = await self._redis.hget(self._keys(ruleset)[0], player)
        if not stored:
            return Rating()
        return _from_json(stored.decode() if isinstance(stored, bytes) else str(stored))
