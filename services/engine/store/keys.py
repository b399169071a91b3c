"""Redis key layout.

Every key of one game carries the Redis Cluster hash tag ``{<game_id>}`` so a game's
stream and command hash live in one slot and one Lua script may touch both:

- ``<prefix>:{<game_id>}:events``   stream, one entry per event, entry id ``<version>-1``
- ``<prefix>:{<game_id>}:commands`` hash, command_id -> ``"<first>-<last>"`` versions
- ``<prefix>:games``                sorted set of game ids scored by creation time (ms)
- ``<prefix>:turn-requests``        stream of {game_id, seat, version} for the bot worker

The last two are global, so today the append script needs a standalone Redis (or a
cluster where they happen to share the slot). Per-shard turn-request streams and a
separately maintained games index are a later issue for cluster mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_GAME_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")


def check_game_id(game_id: str) -> str:
    """Return ``game_id`` if it is safe inside a key and hash tag; else raise ValueError."""
    if not _GAME_ID_RE.match(game_id):
        raise ValueError(f"invalid game id {game_id!r}")
    return game_id


@dataclass(frozen=True, slots=True)
class RedisKeys:
    """Key names under one prefix (tests use a unique prefix per run)."""

    prefix: str = "teoti"

    def events(self, game_id: str) -> str:
        """The game's event stream."""
        return f"{self.prefix}:{{{check_game_id(game_id)}}}:events"

    def commands(self, game_id: str) -> str:
        """The game's command-id hash."""
        return f"{self.prefix}:{{{check_game_id(game_id)}}}:commands"

    @property
    def games(self) -> str:
        """Index of all games."""
        return f"{self.prefix}:games"

    @property
    def turn_requests(self) -> str:
        """Stream read by the bot worker's consumer group."""
        return f"{self.prefix}:turn-requests"
