"""Issue 16: the engine's SubmitAction reply carries the events it appended, so a gateway
answering with the seat's new view folds them onto its cached game instead of reading
them back from Redis. Through a real EngineService over gRPC and a real Redis."""

from __future__ import annotations

import dataclasses

import pytest

from services.engine.adapters import RedisEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import CorruptLog
from services.engine.domain.game import SeatKind, SeatSpec, fold
from services.engine.domain.reader import GameReader
from services.engine.domain.records import PrivateRecords
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import start_engine_link
from services.engine.transport.remote import RemoteEngineClient

HUMANS = [SeatSpec(SeatKind.HUMAN, "a"), SeatSpec(SeatKind.HUMAN, "b")]


async def test_the_gateway_folds_the_reported_events_exactly_as_a_read_would(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    engine_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    gateway_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    engine = Engine(engine_store, registry, seed_source=fixed_seed("reported"))
    server, port = await start_engine_link(engine, "127.0.0.1", 0)
    client = RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=30)
    reader = GameReader(gateway_store, registry)  # the gateway's own cache
    try:
        game = (await client.create_game("nim", HUMANS, {"max_take": 3})).game_id
        await reader.load(game)
        seat, move = 0, 0
        while True:
            move += 1
            result = await client.submit_action(game, seat, {"take": 1}, command_id=f"m{move}")
            stored = await gateway_store.read(game, result.first_version - 1)
            assert list(result.written) == stored  # as stored, hash and all
            assert [e.version for e in result.written] == list(
                range(result.first_version, result.version + 1)
            )
            advanced = reader.advance(game, result.written)
            assert advanced is not None
            rebuilt = fold(game, await gateway_store.read(game), registry)
            assert (advanced.version, advanced.head_hash) == (rebuilt.version, rebuilt.head_hash)
            assert advanced.state == rebuilt.state
            assert reader.cached(game) is advanced  # the next load starts from it
            if advanced.is_terminal():
                break
            (seat,) = advanced.seats_to_act()
        # A retried command appends nothing and reports no events: the gateway reads.
        again = await client.submit_action(game, seat, {"take": 1}, command_id=f"m{move}")
        assert again.written == ()
        assert reader.advance(game, again.written) is None
    finally:
        await client.close()
        await server.stop(None)
        await engine_store.close()
        await gateway_store.close()


async def test_events_that_do_not_follow_the_cache_are_not_folded(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    engine = Engine(store, registry, seed_source=fixed_seed("gap"))
    reader = GameReader(store, registry)
    try:
        game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
        first = await engine.submit_action(game, 0, {"take": 1})
        assert reader.advance(game, first.written) is None  # not cached: read instead
        await reader.load(game)  # cached at first.version
        second = await engine.submit_action(game, 1, {"take": 1})
        third = await engine.submit_action(game, 0, {"take": 1})
        assert reader.advance(game, third.written) is None  # a gap: read instead
        forged = [dataclasses.replace(e, hash="0" * 64) for e in second.written]
        with pytest.raises(CorruptLog):
            reader.advance(game, forged)  # never folded off the chain
        assert (await reader.load(game)).version == third.version
    finally:
        await store.close()


async def test_a_new_game_is_folded_from_the_reported_events_as_a_load_would(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """CreateGame's reply carries the events too: the gateway folds the new game with the
    token hashes it sent (what the store keeps beside the log) instead of reading it."""
    engine_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    gateway_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    engine = Engine(engine_store, registry, seed_source=fixed_seed("created"))
    server, port = await start_engine_link(engine, "127.0.0.1", 0)
    client = RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=30)
    reader = GameReader(gateway_store, registry)
    seats = [SeatSpec(SeatKind.HUMAN, "a", "a" * 64), SeatSpec(SeatKind.HUMAN, "b", "b" * 64)]
    bindings = PrivateRecords(token_hashes={0: "a" * 64, 1: "b" * 64})
    try:
        result = await client.create_game("nim", seats, {"max_take": 3}, command_id="new")
        game = result.game_id
        assert list(result.written) == await gateway_store.read(game)
        created = reader.created(game, result.written, bindings)
        assert created is not None and reader.cached(game) is created
        loaded = await GameReader(gateway_store, registry).load(game)
        assert created == loaded
        assert [s.token_hash for s in created.seats] == ["a" * 64, "b" * 64]

        again = await client.create_game("nim", seats, {"max_take": 3}, command_id="new")
        assert again.game_id == game and again.written == ()  # a retry: nothing new
        assert GameReader(gateway_store, registry).created(game, again.written, bindings) is None
        forged = [dataclasses.replace(e, hash="0" * 64) for e in result.written]
        with pytest.raises(CorruptLog):
            GameReader(gateway_store, registry).created(game, forged, bindings)

        # A setup with secrets (commitments) needs the sealed records: read instead.
        sealed = await client.create_game("nim", seats, {"max_take": 3, "lucky": True})
        assert sealed.written
        assert reader.created(sealed.game_id, sealed.written, bindings) is None
    finally:
        await client.close()
        await server.stop(None)
        await engine_store.close()
        await gateway_store.close()
