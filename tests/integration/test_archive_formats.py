"""Issue 34: compact archives. A finished game of every registered game with a size target
(its folder's ``samples.py``, ``archive_target``) archives as ``z3`` within it and reads
back exactly, command ids and secrets included; archives written by earlier versions
(``z1``, ``z2``, ``z3``: real blobs, committed in the games' ``tests/archives/``) still
read and verify; a ``z3`` blob whose payload was changed is refused on read.

Played through the engine on the real Redis store by seeded random legal moves, every
move under a random 32-hex command id (as the clients send). The game's own seed is fixed
too (``GAME_SEED``, the archive benchmark's first game): a random-seeded game's length, and
so its archive, varies by more than half (12.2 to 20.3 KB over 26 random games of the
card game at 5 seats), and the targets are for the benchmark's games, not for the longest
random one."""

from __future__ import annotations

import hashlib
import json
import random
import struct
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.app import Stack
from services.client import TeotiClient
from services.embedded_redis import EmbeddedRedisCluster
from services.engine.adapters import RedisEventStore, archive_dicts
from services.engine.adapters.archive import COMPACT_TAG, ArchiveMismatch, decode_archive
from services.engine.adapters.redis_client import RedisConfig
from services.engine.adapters.retention import archive_finished
from services.engine.domain.chain import verify_chain
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from tests.game_samples import archive_fixtures, game_names, samples_of

TARGETS = {
    (name, target[0]): target[1]
    for name in game_names()
    if (target := samples_of(name).archive_target) is not None
}
"""(ruleset, seats) -> the most bytes its archived game's blob may take."""
FIXTURES = archive_fixtures()
"""The committed blobs of earlier versions (``<name>.json`` each, its blobs beside it)."""
GAME_SEED = "archive-benchmark-0"
"""The game seed of every played game: the same game on every run (benchmarks.archive_benchmark's
first; its archive varies only by its random command ids and salts, under 1%)."""


async def _play(engine: Engine, ruleset: str, seats: int, seed: int) -> str:
    specs = [
        SeatSpec(SeatKind.HUMAN, f"p{i}", hashlib.sha256(f"t{seed}-{i}".encode()).hexdigest())
        for i in range(seats)
    ]
    options = dict(samples_of(ruleset).bench_setup(standard=True).options)
    game = (await engine.create_game(ruleset, specs, options, uuid.uuid4().hex)).game_id
    rng = random.Random(seed)
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        action = rng.choice(list(snapshot.ruleset.legal_actions(snapshot.state, seat)))
        await engine.submit_action(game, seat, action, snapshot.version, uuid.uuid4().hex)
        snapshot = await engine.load(game)
    return game


async def _archive(store: RedisEventStore, registry: RulesetRegistry, game: str) -> None:
    later = datetime.now(UTC) + timedelta(days=2)
    report = await archive_finished(store, registry, timedelta(days=1), later)
    assert report.archived == [game] and not report.failed, report


@pytest.mark.slow  # plays whole games (up to about 1,300 events): .ci/run's slow step
@pytest.mark.parametrize(("ruleset", "seats"), sorted(TARGETS))
async def test_a_finished_game_archives_compact_and_reads_back_exactly(
    redis_store: RedisEventStore, registry: RulesetRegistry, ruleset: str, seats: int
) -> None:
    engine = Engine(redis_store, registry, seed_source=lambda: GAME_SEED)
    game = await _play(engine, ruleset, seats, seed=0)
    raw = redis_store.client
    events = await redis_store.read(game)
    commands: Any = await raw.hgetall(redis_store.keys.commands(game))
    private = await redis_store.read_private(game)
    before = await Engine(redis_store, registry).load(game)
    await _archive(redis_store, registry, game)

    blob = await raw.execute_command("GET", redis_store.keys.archive(game), NEVER_DECODE=True)
    assert blob.startswith(COMPACT_TAG) and len(blob) <= TARGETS[(ruleset, seats)], len(blob)
    dict_id = archive_dicts.newest_for(ruleset)
    assert dict_id and archive_dicts.shipped()[dict_id][0] == ruleset

    assert await redis_store.read(game) == events
    assert await redis_store.read(game, 5, 3) == events[5:8]
    assert decode_archive(blob).commands == commands
    for field in list(commands)[::50]:  # and through the store (each call decodes the blob)
        done = await redis_store.command_result(game, field)
        assert done is not None and done.to_text() == commands[field]
    assert await redis_store.read_private(game) == private
    cold = await Engine(redis_store, registry).load(game)
    assert (cold.version, cold.head_hash, cold.state) == (
        before.version,
        before.head_hash,
        before.state,
    )


def _fixture(path: Path) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads(path.read_text())
    return meta


def _blob(path: Path, tag: str) -> bytes:
    """The ``tag`` blob of the fixture ``path`` (``<name>.json``)."""
    return path.with_suffix(f".{tag}").read_bytes()


def _first_fixture() -> Path:
    if not FIXTURES:
        pytest.skip("no game folder commits an archive fixture (tests/archives/)")
    return FIXTURES[0]


@pytest.mark.parametrize("tag", ["z1", "z2", "z3"])
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parents[2].name}/{p.stem}")
async def test_archives_written_by_earlier_versions_still_read_and_verify(
    redis_store: RedisEventStore, registry: RulesetRegistry, path: Path, tag: str
) -> None:
    meta = _fixture(path)
    blob = _blob(path, tag)
    game, (version, head_hash) = meta["game_id"], meta["head"]
    keys = redis_store.keys
    await redis_store.client.set(keys.archive(game), blob)
    await redis_store.client.hset(keys.head(game), mapping={"version": version, "hash": head_hash})

    events = await redis_store.read(game)
    assert len(events) == meta["events"] == version
    assert verify_chain(events, (version, head_hash)).ok
    snapshot = await Engine(redis_store, registry).load(game)
    assert snapshot.is_terminal() and snapshot.head_hash == head_hash
    archive = decode_archive(blob)
    assert len(archive.commands) == (0 if tag == "z1" else meta["commands"])
    for field in list(archive.commands)[:5]:
        assert await redis_store.command_result(game, field) is not None


def _forged(path: Path) -> bytes:
    """The ``z3`` blob of fixture ``path`` with one payload (the last event's) changed,
    recompressed with the same dictionary: a well-formed blob that no longer verifies."""
    blob = _blob(path, "z3")
    frame = blob[len(COMPACT_TAG) :]
    body = archive_dicts.decompress(frame)
    (size,) = struct.unpack_from(">I", body)
    document = json.loads(body[4 : 4 + size])
    payload = json.loads(document["events"][-1][2])
    payload["tampered"] = True  # one payload of the last event changed
    document["events"][-1][2] = json.dumps(payload, separators=(",", ":"), sort_keys=True)
    text = json.dumps(document, separators=(",", ":")).encode()
    return COMPACT_TAG + archive_dicts.compressor(_fixture(path)["ruleset"], 19).compress(
        struct.pack(">I", len(text)) + text + body[4 + size :]
    )


async def test_a_tampered_z3_archive_is_refused_on_read(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    path = _first_fixture()
    meta = _fixture(path)
    forged = _forged(path)
    game = meta["game_id"]
    await redis_store.client.set(redis_store.keys.archive(game), forged)
    with pytest.raises(
        ArchiveMismatch, match=f"z3 archive does not verify.*version {meta['head'][0]}"
    ):
        await redis_store.read(game)
    with pytest.raises(ArchiveMismatch):
        await Engine(redis_store, registry).load(game)


async def test_a_tampered_archive_is_answered_data_loss(stack: Stack) -> None:
    """Through the gateway: GetGame, ListEvents and VerifyGame of a game whose ``z3``
    archive was changed answer DATA_LOSS (reason ``archive_mismatch``), never the log."""
    path = _first_fixture()
    meta = _fixture(path)
    game, (version, head_hash) = meta["game_id"], meta["head"]
    store = stack.store
    await store.client.set(store.keys.archive(game), _forged(path))
    await store.client.hset(
        store.keys.head(game), mapping={"version": str(version), "hash": head_hash}
    )
    async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
        for call in (client.get_game(game), client.events(game), client.verify(game)):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() == grpc.StatusCode.DATA_LOSS
            assert "archive_mismatch" in (refused.value.details() or "")


async def test_a_log_z3_cannot_hold_exactly_is_archived_as_z2(
    redis_store: RedisEventStore,
) -> None:
    path = _first_fixture()
    meta = _fixture(path)
    archive = decode_archive(_blob(path, "z2"))
    game = meta["game_id"]
    keys, raw = redis_store.keys, redis_store.client
    for entry_id, fields in archive.entries:
        extra = {"origin": "import"} if entry_id == "2-1" else {}
        await raw.xadd(keys.events(game), {**fields, **extra}, id=entry_id)
    version, head_hash = meta["head"]
    await raw.hset(keys.head(game), mapping={"version": str(version), "hash": head_hash})
    moved = await redis_store.archive(game)
    assert moved.version == meta["head"][0] and 0 < moved.blob_bytes < moved.logged_bytes
    blob = await raw.get(keys.archive(game))
    assert str(blob).startswith("z2:")
    assert (await redis_store.read(game))[1].version == 2


@pytest.mark.slow  # starts a Redis Cluster: .ci/run's slow step
async def test_a_redis_cluster_stores_and_reads_the_binary_archive(
    cluster: EmbeddedRedisCluster, registry: RulesetRegistry
) -> None:
    """The cluster client's pipelines also read the blob undecoded (NEVER_DECODE)."""
    store = RedisEventStore.from_config(
        RedisConfig.cluster(cluster.nodes), prefix=f"test-{uuid.uuid4().hex[:8]}", shards=4
    )
    try:
        path = _first_fixture()
        meta = _fixture(path)
        archive = decode_archive(_blob(path, "z2"))
        game, (version, head_hash) = meta["game_id"], meta["head"]
        for entry_id, fields in archive.entries:
            await store.client.xadd(store.keys.events(game), fields, id=entry_id)  # type: ignore[arg-type]
        await store.client.hset(
            store.keys.head(game), mapping={"version": str(version), "hash": head_hash}
        )
        for field, record in archive.commands.items():
            await store.client.hset(store.keys.commands(game), field, record)
        before = await store.read(game)
        moved = await store.archive(game)
        assert moved.version == version and moved.blob_bytes < 20_000
        assert not await store.client.exists(store.keys.events(game))
        assert await store.read(game) == before
        assert verify_chain(await store.read(game), (version, head_hash)).ok
        field = next(iter(archive.commands))
        done = await store.command_result(game, field)
        assert done is not None and done.to_text() == archive.commands[field]
        snapshot = await Engine(store, registry).load(game)
        assert snapshot.is_terminal() and snapshot.head_hash == head_hash
    finally:
        await store.close()
