"""The tournament repository folds only what is new since its last load (a sign-up rush
of 2,000 players folded the whole log at every registration: cubic in the entrants), and
still answers exactly the fold of the whole log: after another process's appends, and
after the log it knew was replaced."""

from __future__ import annotations

from services.engine.adapters import RedisEventStore
from services.tournament import events as ev
from services.tournament.aggregate import fold
from services.tournament.config import TournamentConfig
from services.tournament.model import Format
from services.tournament.repository import TournamentRepository, stream_id

CONFIG = TournamentConfig("t", "nim", {}, Format.SWISS, 2, 2, rounds=3)


async def _register(repo: TournamentRepository, tid: str, name: str) -> None:
    state = await repo.load(tid)
    await repo.append(state, [ev.player_registered(name, ev.BOT)])


async def test_loads_after_other_writers_equal_the_whole_fold(
    redis_store: RedisEventStore,
) -> None:
    mine, theirs = TournamentRepository(redis_store), TournamentRepository(redis_store)
    await mine.create("fold1", CONFIG, "seed")
    for n in range(30):
        await _register(mine if n % 3 else theirs, "fold1", f"p{n:02}")
        loaded = await mine.load("fold1")
        assert loaded == fold(await redis_store.read(stream_id("fold1")))
    assert [e.player for e in loaded.entrants] == [f"p{n:02}" for n in range(30)]
    assert loaded.version == 31


async def test_a_replaced_log_is_folded_again(redis_store: RedisEventStore) -> None:
    repo = TournamentRepository(redis_store)
    await repo.create("fold2", CONFIG, "seed")
    for n in range(3):
        await _register(repo, "fold2", f"old{n}")
    assert len((await repo.load("fold2")).entrants) == 3
    # The log is deleted and written again under the same id (a restore, a retention
    # sweep and a re-created tournament): same versions, other hashes.
    stream_keys = [k async for k in redis_store.client.scan_iter(f"*{stream_id('fold2')}*")]
    await redis_store.client.delete(*stream_keys)
    other = TournamentRepository(redis_store)
    await other.create("fold2", CONFIG, "another seed")
    for n in range(4):
        await _register(other, "fold2", f"new{n}")
    again = await repo.load("fold2")
    assert [e.player for e in again.entrants] == [f"new{n}" for n in range(4)]
    assert again == fold(await redis_store.read(stream_id("fold2")))
