"""The Redis event log: chain checked on append and audit, secret seed, upcasting,
snapshots as a pure cache, idempotency without expiry, one hash tag per game (real Redis)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from services.engine.adapters import RedisEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.fairness import rng_for
from services.engine.domain.reader import GameReader
from services.engine.domain.records import EventMetadata, NewGame, TurnRequest
from services.engine.domain.ruleset import DomainEvent, SetupRequest
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache
from services.engine.domain.store_errors import ChainMismatch
from tests.integration.helpers import HUMANS, play_to_end


def make_engine(store: RedisEventStore, registry: RulesetRegistry, every: int = 100) -> Engine:
    return Engine(
        store,
        registry,
        seed_source=fixed_seed("secret-seed-1"),
        snapshots=SnapshotCache(store, registry, snapshot_every=every),
    )


async def rewrite(store: RedisEventStore, game: str, events: list[dict[str, str]]) -> None:
    """What an attacker with Redis access can do: rebuild the stream with other entries."""
    key = store.keys.events(game)
    await store.client.delete(key)
    for version, fields in enumerate(events, start=1):
        await store.client.xadd(key, fields, id=f"{version}-1")


async def raw(store: RedisEventStore, game: str) -> list[dict[str, str]]:
    return [fields for _id, fields in await store.client.xrange(store.keys.events(game))]


async def test_finished_game_reveals_a_seed_that_matches_its_commitment(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = make_engine(redis_store, registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 2})).game_id
    created = (await redis_store.read(game))[0]
    assert created.schema_version == 5 and "seed" not in created.payload
    assert created.payload["seed_commitment"] == hashlib.sha256(b"secret-seed-1").hexdigest()
    everything = json.dumps(await raw(redis_store, game))
    assert "secret-seed-1" not in everything  # not in the log until the end
    assert await redis_store.secret_seed(game) == "secret-seed-1"

    await play_to_end(engine, game)
    events = await redis_store.read(game)
    assert events[-1].type == "SeedRevealed" and events[-1].payload == {"seed": "secret-seed-1"}
    assert events[-2].type == "GameWon"
    assert events[-1].metadata == events[-2].metadata  # one atomic append
    report = await GameReader(redis_store, registry).audit(game)
    assert report.ok and report.seed_revealed and report.seed_verified, report.problems
    assert report.head_hash == (await redis_store.head(game))[1]


async def test_audit_names_the_first_edited_removed_or_reordered_event(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = make_engine(redis_store, registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 1})).game_id
    for _ in range(4):
        snapshot = await engine.load(game)
        await engine.submit_action(game, snapshot.seats_to_act()[0], {"take": 1})
    reader = GameReader(redis_store, registry)
    original = await raw(redis_store, game)
    assert (await reader.audit(game)).ok

    edited = [dict(f) for f in original]
    edited[3]["payload"] = edited[3]["payload"].replace('"count":1', '"count":2')
    await rewrite(redis_store, game, edited)
    report = await reader.audit(game)
    assert not report.ok and report.first_bad_version == 4

    await rewrite(redis_store, game, original[:2] + original[3:])
    assert (await reader.audit(game)).first_bad_version == 3

    await rewrite(redis_store, game, [original[0], original[1], original[3], original[2]])
    assert (await reader.audit(game)).first_bad_version == 3

    await rewrite(redis_store, game, original[:-1])  # the head key still names version 6
    assert (await reader.audit(game)).first_bad_version == 6

    await rewrite(redis_store, game, original)
    assert (await reader.audit(game)).ok


async def test_append_refuses_a_log_whose_tail_was_removed(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = make_engine(redis_store, registry)
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    await engine.submit_action(game, 0, {"take": 1})
    last_id = (await redis_store.client.xrevrange(redis_store.keys.events(game), count=1))[0][0]
    await redis_store.client.xdel(redis_store.keys.events(game), last_id)
    meta = EventMetadata("", 1, "2024-01-01T00:00:00+00:00")
    with pytest.raises(ChainMismatch):
        await redis_store.append(
            game, 3, [DomainEvent("StonesTaken", {"seat": 1, "count": 1})], meta
        )
    head = await redis_store.head(game)
    with pytest.raises(ChainMismatch):
        await redis_store.append(game, 3, [DomainEvent("X", {})], meta, prev_hash="f" * 64)
    assert head == await redis_store.head(game)
    report = await GameReader(redis_store, registry).audit(game)
    assert not report.ok and report.first_bad_version == 3


async def _game_after_a_move(
    store: RedisEventStore, registry: RulesetRegistry
) -> tuple[str, str, list[str]]:
    """A Nim game after its first move: (its id, its stream's key, the stream's ids)."""
    engine = make_engine(store, registry)
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    await engine.submit_action(game, 0, {"take": 1})
    key = store.keys.events(game)
    return game, key, [entry_id for entry_id, _ in await store.client.xrange(key)]


async def stored_state(store: RedisEventStore, game: str) -> tuple[object, ...]:
    """Everything an append writes for a game: stream, head and command ids."""
    client = store.client
    return (
        await client.xrange(store.keys.events(game)),
        await client.hgetall(store.keys.head(game)),
        await client.hgetall(store.keys.commands(game)),
    )


@pytest.mark.parametrize("deleted", ["last", "middle", "all"])
async def test_append_refuses_a_stream_short_of_its_head_and_writes_nothing(
    redis_store: RedisEventStore, registry: RulesetRegistry, deleted: str
) -> None:
    # The script checks the stream by its length (issue 35): an entry deleted anywhere,
    # not only the last, or the whole stream (the head left), is refused before any write,
    # also with a command id (its dedup check comes first and finds nothing).
    game, key, ids = await _game_after_a_move(redis_store, registry)
    assert len(ids) >= 2 and ids[-1] == f"{len(ids)}-1"
    if deleted == "all":
        await redis_store.client.delete(key)
    else:
        await redis_store.client.xdel(key, ids[-1] if deleted == "last" else ids[0])
    version, head_hash = await redis_store.head(game)
    before = await stored_state(redis_store, game)
    meta = EventMetadata("retry-me", 1, "2024-01-01T00:00:00+00:00")
    assert version == len(ids)
    with pytest.raises(ChainMismatch, match=f"head at {version}"):
        await redis_store.append(
            game,
            version,
            [DomainEvent("StonesTaken", {"seat": 1, "count": 1})],
            meta,
            prev_hash=head_hash,
        )
    assert await stored_state(redis_store, game) == before


async def test_append_refuses_a_stream_whose_ids_run_past_its_head_and_writes_nothing(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    # The stream's length still equals the head's version (an entry deleted, one added by
    # hand with a later id): the script's XLEN check passes and its first XADD is refused
    # by Redis; that is reported as the log off its head (ChainMismatch), not a server bug.
    game, key, ids = await _game_after_a_move(redis_store, registry)
    await redis_store.client.xdel(key, ids[0])
    await redis_store.client.xadd(key, {"type": "Forged"}, id=f"{len(ids) + 5}-1")
    version, head_hash = await redis_store.head(game)
    assert version == len(ids) == await redis_store.client.xlen(key)
    before = await stored_state(redis_store, game)
    with pytest.raises(ChainMismatch, match="ids past version"):
        await redis_store.append(
            game,
            version,
            [DomainEvent("StonesTaken", {"seat": 1, "count": 1})],
            EventMetadata("", 1, "2024-01-01T00:00:00+00:00"),
            prev_hash=head_hash,
        )
    assert await stored_state(redis_store, game) == before


async def test_old_game_created_v1_with_a_clear_seed_is_upcast_and_playable(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    game = "legacy-game-1"
    v1 = DomainEvent(
        "GameCreated",
        {
            "ruleset": "nim",
            "seats": [{"kind": "human", "name": "ann"}, {"kind": "human", "name": "bob"}],
            "options": {"max_take": 3},
            "seed": "old-seed",
        },
        schema_version=1,
    )
    (setup,) = registry.get("nim").setup(
        SetupRequest(2, {"max_take": 3}, ("ann", "bob")), rng_for("old-seed", 0)
    )
    meta = EventMetadata("", -1, "2023-01-01T00:00:00+00:00")
    await redis_store.append(game, 0, [v1, setup], meta, new_game=NewGame("", 0))
    engine = make_engine(redis_store, registry)
    snapshot = await engine.load(game)
    assert snapshot.seed_commitment == hashlib.sha256(b"old-seed").hexdigest()
    assert snapshot.revealed_seed == "old-seed"
    assert [s.is_open for s in snapshot.seats] == [True, True]
    await play_to_end(engine, game, take=3)
    report = audit_log(game, await redis_store.read(game), registry, await redis_store.head(game))
    assert report.ok and report.seed_verified, report.problems


async def _game_of_six_takes(engine: Engine) -> str:
    """A Nim game's id after six moves of one stone each."""
    game = (await engine.create_game("nim", HUMANS, {"max_take": 1})).game_id
    for _ in range(6):
        snapshot = await engine.load(game)
        await engine.submit_action(game, snapshot.seats_to_act()[0], {"take": 1})
    return game


async def test_stored_snapshots_are_only_a_cache(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = make_engine(redis_store, registry, every=3)
    game = await _game_of_six_takes(engine)
    await engine.load(game)
    stored = await redis_store.load_snapshot(game)
    assert stored is not None and json.loads(stored)["version"] >= 6

    reads: list[int] = []
    original_read = redis_store.read

    async def counting_read(game_id: str, from_version: int = 0, limit: int = 0):  # type: ignore[no-untyped-def]
        reads.append(from_version)
        return await original_read(game_id, from_version, limit)

    redis_store.read = counting_read  # type: ignore[method-assign]
    from_snapshot = await SnapshotCache(redis_store, registry, snapshot_every=3).load(game)
    assert 0 not in reads  # one snapshot and a short tail, never the whole log
    redis_store.read = original_read  # type: ignore[method-assign]

    await redis_store.delete_snapshot(game)
    from_log = await SnapshotCache(redis_store, registry, snapshot_every=0).load(game)
    assert from_log == from_snapshot

    await redis_store.save_snapshot(game, '{"format": 1, "garbage": true}')
    assert await SnapshotCache(redis_store, registry).load(game) == from_log


async def test_a_read_only_snapshot_cache_reads_stored_snapshots_but_writes_none(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The gateway's and bot worker's cache (save=False): their Redis users may not write."""
    game = await _game_of_six_takes(make_engine(redis_store, registry, every=0))
    reader = SnapshotCache(redis_store, registry, snapshot_every=3, save=False)
    loaded = await reader.load(game)
    assert await redis_store.load_snapshot(game) is None

    await SnapshotCache(redis_store, registry, snapshot_every=3).load(game)  # the engine's
    assert await redis_store.load_snapshot(game) is not None
    assert await SnapshotCache(redis_store, registry, save=False).load(game) == loaded


async def test_command_ids_stay_idempotent_for_the_whole_game(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = make_engine(redis_store, registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 1})).game_id
    first = await engine.submit_action(game, 0, {"take": 1}, command_id="first")
    for _ in range(5):
        snapshot = await engine.load(game)
        await engine.submit_action(game, snapshot.seats_to_act()[0], {"take": 1})
    before = await redis_store.read(game)
    assert await engine.submit_action(game, 0, {"take": 1}, command_id="first") == first
    assert await redis_store.read(game) == before
    assert await redis_store.client.ttl(redis_store.keys.commands(game)) == -1  # never expires


async def test_every_key_of_a_game_and_its_turn_requests_share_one_hash_tag(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = make_engine(redis_store, registry, every=1)
    seats = [HUMANS[0], HUMANS[1].__class__(HUMANS[1].kind.__class__("bot"), "bot")]
    game = (await engine.create_game("nim", seats, {})).game_id
    await engine.submit_action(game, 0, {"take": 1}, command_id="a")
    keys = redis_store.keys
    tag = f"{{s{keys.shard_of(game)}}}"
    names = [
        keys.events(game),
        keys.head(game),
        keys.commands(game),
        keys.secret(game),
        keys.snapshot(game),
        keys.games_of(game),
        keys.turns_of(game),
    ]
    assert all(re.findall(r"\{[^}]*\}", name) == [tag] for name in names)
    for name in names:
        assert await redis_store.client.exists(name), name
    entries = await redis_store.client.xrange(keys.turns_of(game))
    assert [TurnRequest.from_fields(f) for _id, f in entries] == [TurnRequest(game, 1, 3)]
