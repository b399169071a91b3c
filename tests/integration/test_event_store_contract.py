"""One contract, two event stores: in-memory and Redis (real server)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from services.engine.adapters import InMemoryEventStore, RedisEventStore
from services.engine.domain.records import CommandKey, CommandRecord, EventMetadata, TurnRequest
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.store_errors import VersionConflict
from services.engine.domain.store_protocol import EventStore

META = EventMetadata(command_id="", seat=0, recorded_at="2024-01-01T00:00:00+00:00")


def meta(command_id: str = "", seat: int = 0) -> EventMetadata:
    return EventMetadata(command_id=command_id, seat=seat, recorded_at=META.recorded_at)


def ev(n: int) -> DomainEvent:
    return DomainEvent("Thing", {"n": n, "nested": {"b": 1, "a": [1, 2]}})


@pytest.fixture(params=["memory", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str
) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield InMemoryEventStore()
        return
    redis_store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    yield redis_store
    await redis_store.close()


def new_game() -> str:
    return uuid.uuid4().hex


async def turn_requests(store: EventStore, store_game: str) -> list[TurnRequest]:
    if isinstance(store, InMemoryEventStore):
        return list(store.turn_requests)
    assert isinstance(store, RedisEventStore)
    entries = await store.client.xrange(store.keys.turns_of(store_game))
    return [TurnRequest.from_fields(fields) for _id, fields in entries]


async def test_append_and_read_back_in_order(store: EventStore) -> None:
    game = new_game()
    assert await store.version(game) == 0
    assert (await store.append(game, 0, [ev(1), ev(2)], meta("c1", -1))).last_version == 2
    assert (await store.append(game, 2, [ev(3)], meta("c2", 1))).last_version == 3
    events = await store.read(game)
    assert [e.version for e in events] == [1, 2, 3]
    assert [e.payload["n"] for e in events] == [1, 2, 3]
    assert events[0].payload == {"n": 1, "nested": {"a": [1, 2], "b": 1}}
    assert events[0].metadata == meta("c1", -1)
    assert events[2].metadata.seat == 1
    assert events[0].type == "Thing" and events[0].schema_version == 1
    assert [e.version for e in await store.read(game, from_version=1, limit=1)] == [2]
    assert await store.version(game) == 3
    assert [g.game_id for g in await store.list_games()] == [game]


async def test_stale_expected_version_conflicts_and_appends_nothing(store: EventStore) -> None:
    game = new_game()
    await store.append(game, 0, [ev(1)], meta())
    with pytest.raises(VersionConflict) as info:
        await store.append(game, 0, [ev(2)], meta())
    assert (info.value.expected, info.value.actual) == (0, 1)
    with pytest.raises(VersionConflict):
        await store.append(game, 5, [ev(2)], meta())
    assert [e.version for e in await store.read(game)] == [1]


async def test_retried_command_id_returns_original_result(store: EventStore) -> None:
    game = new_game()
    await store.append(game, 0, [ev(1)], meta("create"))
    assert (await store.append(game, 1, [ev(2), ev(3)], meta("cmd-1"))).last_version == 3
    # The retry carries the now-stale expected version: still no conflict, no append.
    assert (await store.append(game, 1, [ev(2), ev(3)], meta("cmd-1"))).last_version == 3
    assert await store.version(game) == 3
    record = await store.command_result(game, "cmd-1")
    assert record is not None and (record.first_version, record.last_version) == (2, 3)
    assert await store.command_result(game, "unknown") is None


async def test_commands_are_recorded_under_their_key_with_their_request_hash(
    store: EventStore,
) -> None:
    """The key (sender scope + id) is what deduplicates; the event keeps the bare id."""
    game = new_game()
    await store.append(game, 0, [ev(1)], meta("create"))
    mine = CommandKey("seat:0|cmd-1", "a" * 64)
    theirs = CommandKey("seat:1|cmd-1", "b" * 64)
    first = await store.append(game, 1, [ev(2)], meta("cmd-1", 0), command=mine)
    again = await store.append(game, 2, [ev(2)], meta("cmd-1", 0), command=mine)
    assert again.duplicate and again.request_hash == "a" * 64
    assert (again.first_version, again.last_version) == (first.first_version, 2)
    other = await store.append(game, 2, [ev(3)], meta("cmd-1", 1), command=theirs)
    assert not other.duplicate and other.last_version == 3
    assert await store.command_result(game, "seat:1|cmd-1") == CommandRecord(3, 3, "b" * 64)
    assert await store.command_result(game, "cmd-1") is None
    assert [e.metadata.command_id for e in await store.read(game)] == ["create", "cmd-1", "cmd-1"]


async def test_append_returns_what_a_read_returns(store: EventStore) -> None:
    game = new_game()
    created = await store.append(game, 0, [ev(1)], meta("create"))
    moved = await store.append(game, 1, [ev(2), ev(3)], meta("cmd-1", 1))
    assert (created.first_version, created.last_version) == (1, 1)
    assert (moved.first_version, moved.last_version) == (2, 3)
    assert not created.duplicate and not moved.duplicate
    assert [*created.written, *moved.written] == await store.read(game)
    # A retried command id writes nothing and reports the original versions.
    retried = await store.append(game, 1, [ev(2), ev(3)], meta("cmd-1", 1))
    assert retried.duplicate and retried.written == ()
    assert (retried.first_version, retried.last_version) == (2, 3)
    assert await store.version(game) == 3


async def test_turn_requests_published_with_the_events(store: EventStore) -> None:
    game = new_game()
    request = TurnRequest(game, 1, 1)
    await store.append(game, 0, [ev(1)], meta("c"), turn_requests=[request])
    assert await turn_requests(store, game) == [request]
    # A refused append publishes nothing: it is the same atomic step.
    with pytest.raises(VersionConflict):
        await store.append(game, 0, [ev(2)], meta(), turn_requests=[TurnRequest(game, 0, 2)])
    # A duplicate command publishes nothing either.
    await store.append(game, 0, [ev(1)], meta("c"), turn_requests=[request])
    assert await turn_requests(store, game) == [request]


async def test_read_after_waits_for_new_events(store: EventStore) -> None:
    game = new_game()
    await store.append(game, 0, [ev(1)], meta())
    assert [e.version for e in await store.read_after(game, 0, block_ms=100)] == [1]
    assert await store.read_after(game, 1, block_ms=50) == []
    waiter = asyncio.create_task(store.read_after(game, 1, block_ms=5000))
    await asyncio.sleep(0.05)
    await store.append(game, 1, [ev(2)], meta())
    events = await asyncio.wait_for(waiter, 5)
    assert [e.version for e in events] == [2]


async def test_read_after_many_serves_every_game_of_a_partition(store: EventStore) -> None:
    # Games of one partition (one Redis shard / cluster slot) are read by one call.
    first = new_game()
    partition = store.watch_partition(first)
    games = [first]
    while len(games) < 3:
        game = new_game()
        if store.watch_partition(game) == partition:
            games.append(game)
    for game in games:
        await store.append(game, 0, [ev(1), ev(2)], meta())
    found = await store.read_after_many({games[0]: 0, games[1]: 1, games[2]: 2}, 100, limit=1)
    assert {g: [e.version for e in events] for g, events in found.items()} == {
        games[0]: [1],
        games[1]: [2],
    }
    assert await store.read_after_many({games[2]: 2}, 50) == {}
    waiter = asyncio.create_task(store.read_after_many({games[1]: 2, games[2]: 2}, 5000))
    await asyncio.sleep(0.05)
    await store.append(games[2], 2, [ev(3)], meta())
    found = await asyncio.wait_for(waiter, 5)
    assert {g: [e.version for e in events] for g, events in found.items()} == {games[2]: [3]}


async def test_empty_append_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError):
        await store.append(new_game(), 0, [], meta())


async def test_unknown_game_reads_empty(store: EventStore) -> None:
    game = new_game()
    assert await store.read(game) == []
    assert await store.version(game) == 0


async def test_concurrent_writers_never_share_a_version(store: EventStore) -> None:
    game = new_game()
    await store.append(game, 0, [ev(0)], meta())
    writers = 8

    async def write(i: int) -> int | None:
        try:
            return (await store.append(game, 1, [ev(i)], meta(f"w{i}"))).last_version
        except VersionConflict:
            return None

    results = await asyncio.gather(*(write(i) for i in range(writers)))
    assert sorted(r for r in results if r is not None) == [2]
    assert [e.version for e in await store.read(game)] == [1, 2]
