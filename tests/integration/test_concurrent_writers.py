"""Concurrent writers on one game never both succeed on the same version (real Redis)."""

from __future__ import annotations

import asyncio
import threading
import uuid

from services.engine.adapters import RedisEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import RuleViolation, VersionConflict
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.records import EventMetadata
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import RulesetRegistry
from tests.game_samples import game_seating

META = "2024-01-01T00:00:00+00:00"


def test_threads_on_separate_connections_race_for_each_version(
    redis_url: str, key_prefix: str
) -> None:
    game = uuid.uuid4().hex
    rounds = 30
    wins: dict[str, list[int]] = {"a": [], "b": []}
    barrier = threading.Barrier(2)

    def writer(name: str) -> None:
        async def main() -> None:
            store = RedisEventStore.from_url(redis_url, prefix=key_prefix)  # own connection pool
            for _ in range(rounds):
                barrier.wait()
                expected = await store.version(game)
                barrier.wait()  # both writers now hold the same expected version
                try:
                    result = await store.append(
                        game, expected, [DomainEvent("W", {"by": name})], EventMetadata("", 0, META)
                    )
                    wins[name].append(result.last_version)
                except VersionConflict:
                    pass
            await store.close()

        asyncio.run(main())

    threads = [threading.Thread(target=writer, args=(n,)) for n in wins]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    async def read_back() -> list[int]:
        store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
        versions = [e.version for e in await store.read(game)]
        await store.close()
        return versions

    versions = asyncio.run(read_back())
    assert versions == list(range(1, rounds + 1))
    assert sorted(wins["a"] + wins["b"]) == versions  # exactly one winner per version


async def test_engines_retry_without_expected_version(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """Two engines on separate connections submitting for the same seat: exactly one applies."""
    engines = [
        Engine(
            RedisEventStore.from_url(redis_url, prefix=key_prefix),
            registry,
            seed_source=fixed_seed("x"),
        )
        for _ in range(2)
    ]
    seats = [SeatSpec(SeatKind.HUMAN, "a"), SeatSpec(SeatKind.HUMAN, "b")]
    game = (await engines[0].create_game("nim", seats, {})).game_id

    async def submit(engine: Engine) -> int | str:
        try:
            return (await engine.submit_action(game, 0, {"take": 1})).version
        except RuleViolation as exc:  # lost the race, re-decided: no longer seat 0's turn
            return exc.rule

    results = await asyncio.gather(*(submit(e) for e in engines))
    assert sorted(map(str, results)) == ["3", "not_your_turn"]
    assert await engines[0].store.version(game) == 3
    for engine in engines:
        await engine.store.close()


async def test_joins_of_different_seats_at_once_all_succeed(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """A join names no version, so another seat's join landing first is no conflict of the
    caller's: every open seat claimed at once is claimed."""
    from services.engine.domain.game_seats import hash_token

    engine = Engine(redis_store, registry, seed_source=fixed_seed("joins"))
    seats = [SeatSpec(SeatKind.HUMAN, "") for _ in range(4)]
    game = (await engine.create_game(game_seating(4), seats, {})).game_id
    rivals = [Engine(redis_store, registry) for _ in range(4)]  # separate caches, as gateways
    tokens = [f"player-{n}-{uuid.uuid4().hex}" for n in range(4)]
    await asyncio.gather(
        *(
            rival.join_game(game, n, f"p{n}", hash_token(tokens[n]))
            for n, rival in enumerate(rivals)
        )
    )
    joined = await engine.load(game)
    assert [s.name for s in joined.seats] == ["p0", "p1", "p2", "p3"]
    assert all(s.token_hash == hash_token(t) for s, t in zip(joined.seats, tokens, strict=True))
