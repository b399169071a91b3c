"""Game-finished notifications: one short stream entry per game that has just ended.

The engine publishes ``{game_id, version}`` on the game's shard's ``finished`` stream
(:meth:`RedisKeys.finished_of`) right after the append that ends it; consumers (the
tournament directors) read it through a consumer group. Publishing comes after the
append, not inside it, so a crash in between loses the notification: consumers must
also sweep for finished games they have not heard of (the tournament director does).
The streams are capped (MAXLEN ~) so that a deployment running no consumer stays small.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import structlog

from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.redis_client import RedisClient
from services.engine.adapters.script_batches import ScriptBatches

log = structlog.get_logger(__name__)

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


class GameEndPublisher:
    """Publishes :class:`GameFinished` entries (the engine's side).

    Args:
        client: the engine's Redis client.
        keys: key layout of the deployment.
        lane: the store's script lane (``RedisEventStore.lane``), if it has one: the
            notice then shares the appends' round trips instead of taking a pooled
            connection of its own (about 1.5% of a busy ``teoti serve``'s samples with
            10-move games; issue 16). A notice sent twice after a lost reply is harmless:
            the director handles a finished game once however often it hears of it.
    """

    def __init__(
        self, client: RedisClient, keys: RedisKeys, lane: ScriptBatches | None = None
    ) -> None:
        self._redis = client
        self._keys = keys
        self._lane = lane

    async def __call__(self, game_id: str, version: int) -> None:
        """XADD the notification; an outage is logged, not raised (the game has ended
        whatever happens here, and consumers sweep for lost notifications)."""
        stream = self._keys.finished_of(game_id)
        fields = GameFinished(game_id, version).to_fields()
        try:
            if self._lane is not None:
                await self._lane.execute(
                    "XADD", stream, "MAXLEN", "~", STREAM_CAP, "*", *_flat(fields)
                )
                return
            await self._redis.xadd(
                stream,
                dict(fields),  # type: ignore[arg-type]
                maxlen=STREAM_CAP,
                approximate=True,
            )
        except Exception as exc:
            log.warning("game_finished_not_published", game_id=game_id, error=str(exc))


def _flat(fields: Mapping[str, str]) -> list[str]:
    """``{a: 1, b: 2}`` as ``[a, 1, b, 2]`` (XADD's field-value arguments)."""
    return [item for pair in fields.items() for item in pair]
