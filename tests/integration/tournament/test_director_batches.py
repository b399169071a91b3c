"""The director handles the finished games of one read together (issue 16): one look-up
of their tournaments and one ack per stream, however many, every entry acked and
deleted (a malformed one included), and none left pending."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from services.engine.adapters import RedisEventStore
from services.engine.adapters.finished import GameFinished
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from services.tournament.conductor import Conductor
from services.tournament.director import GROUP, Director, GameFinishedQueue
from services.tournament.repository import TournamentRepository


class CountingQueue(GameFinishedQueue):
    """The director's queue, counting its ack round trips."""

    acks: list[tuple[str, int]]

    async def ack_all(self, stream: str, entry_ids: Sequence[str]) -> None:
        self.acks.append((stream, len(entry_ids)))
        await super().ack_all(stream, entry_ids)


class CountingRepository(TournamentRepository):
    """The tournaments' repository, counting its batched look-ups."""

    lookups: list[int]

    async def tournaments_of(self, game_ids: Sequence[str]) -> tuple[str | None, ...]:
        self.lookups.append(len(game_ids))
        return await super().tournaments_of(game_ids)


async def test_one_read_of_finished_games_is_looked_up_and_acked_once(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    keys, client = redis_store.keys, redis_store.client
    queue = CountingQueue(client, keys, f"test-{uuid.uuid4().hex[:8]}")
    queue.acks = []
    repo = CountingRepository(redis_store)
    repo.lookups = []
    engine = InProcessEngineClient(Engine(redis_store, registry))
    director = Director(queue, Conductor(repo, engine, GameReader(redis_store, registry)))
    await queue.ensure_group()
    stream = keys.finished(0)
    games = [g for g in (uuid.uuid4().hex for _ in range(400)) if keys.finished_of(g) == stream]
    for game_id in games[:6]:  # as the append that ends a game writes them
        await client.xadd(stream, GameFinished(game_id, 12).to_fields())  # type: ignore[arg-type]
    await client.xadd(stream, {"not": "a notification"})

    entries = await queue.read([stream], 64, 100)
    assert len(entries) == 7 and sum(note is None for _s, _i, note in entries) == 1
    await director.handle_all(entries)

    assert repo.lookups == [6]  # the malformed entry has no game to look up
    assert queue.acks == [(stream, 7)]
    pending = await client.xpending(stream, GROUP)
    assert pending["pending"] == 0
    assert await client.xlen(stream) == 0
    assert await queue.read([stream], 64, 50) == []
