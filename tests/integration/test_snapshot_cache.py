"""The snapshot cache is only a speed-up: stale or separate caches never change outcomes."""

from __future__ import annotations

from services.engine.adapters import RedisEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec, fold
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache


async def test_engines_with_their_own_caches_take_turns_on_one_game(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    stores = [RedisEventStore.from_url(redis_url, prefix=key_prefix) for _ in range(2)]
    engines = [Engine(s, registry, seed_source=fixed_seed("cache")) for s in stores]
    seats = [SeatSpec(SeatKind.HUMAN, "a"), SeatSpec(SeatKind.HUMAN, "b")]
    game = (await engines[0].create_game("nim", seats, {"max_take": 1})).game_id
    # Each engine caches the game, then the other one moves it on: loads must catch up.
    for turn in range(4):
        engine = engines[turn % 2]
        snapshot = await engine.load(game)
        (seat,) = snapshot.seats_to_act()
        await engine.submit_action(game, seat, {"take": 1})
    for engine in engines:
        loaded = await engine.load(game)
        rebuilt = fold(game, await engine.store.read(game), registry)
        assert loaded.version == rebuilt.version == await engine.store.version(game)
        assert loaded.state == rebuilt.state
    for store in stores:
        await store.close()


async def test_cache_evicts_least_recently_loaded(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = Engine(redis_store, registry, seed_source=fixed_seed("lru"))
    seats = [SeatSpec(SeatKind.HUMAN, "a"), SeatSpec(SeatKind.HUMAN, "b")]
    games = [(await engine.create_game("nim", seats, {})).game_id for _ in range(3)]
    cache = SnapshotCache(redis_store, registry, capacity=2)
    for game in games:
        await cache.load(game)
    assert list(cache._games) == games[1:]
    again = await cache.load(games[0])
    assert again.version == await redis_store.version(games[0])
    assert list(cache._games) == [games[2], games[0]]
