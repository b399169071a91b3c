"""What every Redis consumer group of the deployment does alike: create the group where
it is missing, and split its streams into the sets one XREADGROUP may name.

The bot worker's turn requests (services.bot.queue), the director's finished games
(services.tournament.director), the notifier's player turns (services.notices.notifier)
and the table opener's tables (services.opener.streams) are each a group over streams
that live in different hash slots: on a Redis Cluster one command may name one of them
only; on a single Redis one command reads them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from services.engine.adapters.redis_client import RedisClient


async def ensure_group(client: RedisClient, stream: str, group: str) -> None:
    """Create ``group`` on ``stream`` (and the stream) reading from its start, unless it
    exists. Raises redis errors other than BUSYGROUP (an outage, a wrong key type)."""
    try:
        await client.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


async def ensure_groups(client: RedisClient, streams: Sequence[str], group: str) -> None:
    """:func:`ensure_group` on each of ``streams``."""
    for stream in streams:
        await ensure_group(client, stream, group)


def read_batches(client: RedisClient, streams: Sequence[str]) -> list[list[str]]:
    """``streams`` as the lists one XREADGROUP may name: all in one on a single Redis,
    one each on a Redis Cluster (each stream has its own slot). Empty for no streams."""
    if not streams:
        return []
    if isinstance(client, RedisCluster):
        return [[stream] for stream in streams]
    return [list(streams)]
