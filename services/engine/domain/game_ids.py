"""Game ids: which strings name a game, and which logs are not games.

A game id is a domain name before it is a key: the engine refuses an id here before any
store sees it, and the Redis layout (:mod:`services.engine.adapters.keys`) builds its
key names and hash tags from ids this module accepted.
"""

from __future__ import annotations

import re

_GAME_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")

NOT_A_GAME_PREFIX = "t-"
"""Logs whose id starts with this are not games (tournament logs, services.tournament):
their appends name none of a shard's shared keys (games index, turn requests, deadlines;
services.engine.adapters.redis_store), and listing games skips any an older version indexed."""


def check_game_id(game_id: str) -> str:
    """Return ``game_id`` if it is safe inside a key and hash tag (1-80 of ``A-Z a-z 0-9
    _ . -``); else raise ValueError."""
    if not _GAME_ID_RE.match(game_id):
        raise ValueError(f"invalid game id {game_id!r}")
    return game_id
