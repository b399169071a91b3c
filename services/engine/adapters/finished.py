"""Game-finished notifications: one short stream entry per game that has just ended.

The store's append that ends a game (the one revealing its seed) adds
``{game_id, version}`` to the game's shard's ``finished`` stream
(:meth:`RedisKeys.finished_of`) in the same script (services.engine.adapters.redis_store
``APPEND_SCRIPT``), so no crash can end a game without its notice; consumers (the
tournament directors, which hand the games no tournament owns to the rater) read it
through a consumer group. The streams are capped (MAXLEN ~) so that a deployment
running no consumer stays small: a consumer down for longer than the cap lasts loses
the oldest (the directors' sweep still finds their tournaments' tables).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

STREAM_CAP = 100_000
"""Approximate entries kept per shard's stream."""


@dataclass(frozen=True, slots=True)
class GameFinished:
    """A game ended at log ``version``."""

    game_id: str
    version: int

    def to_fields(self) -> dict[str, str]:
        """Flat string fields as stored in the stream."""
        return {"game_id": self.game_id, "version": str(self.version)}

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> GameFinished:
        """Inverse of :meth:`to_fields`. Raises KeyError/ValueError."""
        return cls(fields["game_id"], int(fields["version"]))
