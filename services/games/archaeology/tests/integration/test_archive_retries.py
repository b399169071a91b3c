"""Issue 30 items 11 and 12: an archived game still answers its command ids, and it
grows no key back.

Seen before: after ``teoti archive``, retrying the original CreateGame (same command id,
same tokens) was ABORTED and retrying the last move got ``game_over``, not the original
replies; a cold read of the archived game wrote its ``:snapshot`` key again, for ever,
and its ``:sealed`` key (the secrets, all revealed in the log by the end) stayed.

Played through the engine on the real Redis store: Archaeology (secrets, snapshots every
100 events) with two token-bound human seats, every command under its own command id.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from services.app import StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.adapters import RedisEventStore
from services.engine.adapters.archive import decode_entries, encode_entries
from services.engine.adapters.retention import archive_finished
from services.engine.domain.command_result import CommandResult
from services.engine.domain.engine import Engine
from services.engine.domain.errors import RuleViolation
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry

SEATS = [
    SeatSpec(SeatKind.HUMAN, f"p{i}", hashlib.sha256(f"token-{i}".encode()).hexdigest())
    for i in range(2)
]
RULESET = "archaeology"


class Played:
    """A finished game and the original replies of its commands."""

    def __init__(self, created: CommandResult, moves: list[tuple[int, dict[str, Any], str]]):
        self.created = created
        self.moves = moves  # (seat, action, command id) in order
        self.replies: list[CommandResult] = []


async def _play(engine: Engine, seed: int) -> Played:
    created = await engine.create_game(RULESET, SEATS, {}, command_id="create-1")
    game = created.game_id
    played = Played(created, [])
    rng = random.Random(seed)
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        action = dict(rng.choice(list(snapshot.ruleset.legal_actions(snapshot.state, seat))))
        command_id = f"move-{snapshot.version}"
        played.moves.append((seat, action, command_id))
        played.replies.append(
            await engine.submit_action(game, seat, action, snapshot.version, command_id)
        )
        snapshot = await engine.load(game)
    return played


async def _archive(store: RedisEventStore, registry: RulesetRegistry, game: str) -> None:
    later = datetime.now(UTC) + timedelta(days=2)
    report = await archive_finished(store, registry, timedelta(days=1), later)
    assert report.archived == [game], report


def _versions(result: CommandResult) -> tuple[str, int, int]:
    return result.game_id, result.first_version, result.version


async def _kinds(store: RedisEventStore, game: str) -> list[str]:
    """Kinds of the game's own keys (``events``, ``snapshot``, ...), sorted."""
    pattern = store.keys.events(game).removesuffix(":events") + ":*"
    return sorted([str(k).rsplit(":", 1)[1] async for k in store.client.scan_iter(match=pattern)])


@pytest.fixture
async def played(redis_store: RedisEventStore, registry: RulesetRegistry) -> tuple[Engine, Played]:
    engine = Engine(redis_store, registry)
    return engine, await _play(engine, seed=7)


async def test_an_archived_game_answers_its_command_ids_as_before(
    redis_store: RedisEventStore, registry: RulesetRegistry, played: tuple[Engine, Played]
) -> None:
    engine, game = played
    game_id = game.created.game_id
    await _archive(redis_store, registry, game_id)
    assert "commands" not in await _kinds(redis_store, game_id)  # kept in the archive

    # The engine that played it (game cached, terminal) and a fresh one (cold) alike.
    for retrying in (engine, Engine(redis_store, registry)):
        again = await retrying.create_game(RULESET, SEATS, {}, command_id="create-1")
        assert _versions(again) == _versions(game.created)
        last_three = list(zip(game.moves, game.replies, strict=True))[-3:]
        for (seat, action, command_id), reply in last_three:
            retried = await retrying.submit_action(game_id, seat, action, None, command_id)
            assert _versions(retried) == _versions(reply)
        # A different request under a used id is still refused as one.
        seat, action, command_id = game.moves[-1]
        with pytest.raises(RuleViolation) as refused:
            await retrying.submit_action(game_id, seat, {"other": 1}, None, command_id)
        assert refused.value.rule == "command_id_reused"
        with pytest.raises(RuleViolation) as reused:
            await retrying.create_game(RULESET, SEATS, {"x": 1}, command_id="create-1")
        assert reused.value.rule == "command_id_reused"


async def test_an_archived_game_grows_no_key_back_and_needs_no_sealed_key(
    redis_store: RedisEventStore, registry: RulesetRegistry, played: tuple[Engine, Played]
) -> None:
    _engine, game = played
    game_id = game.created.game_id
    before = await Engine(redis_store, registry).load(game_id)
    assert {"sealed", "snapshot"} <= set(await _kinds(redis_store, game_id))
    await _archive(redis_store, registry, game_id)
    assert await _kinds(redis_store, game_id) == ["archive", "head", "tokens"]

    # Cold reads (fresh caches, as another process): the same game, secrets included,
    # rebuilt from the log alone, and still no key written back.
    for _ in range(2):
        cold = await Engine(redis_store, registry).load(game_id)
        assert cold.version == before.version and cold.head_hash == before.head_hash
        assert dict(cold.private.secrets) == dict(before.private.secrets)
        assert dict(cold.private.token_hashes) == dict(before.private.token_hashes)
        assert cold.state == before.state
        assert await _kinds(redis_store, game_id) == ["archive", "head", "tokens"]


async def test_a_pass_tidies_what_older_archives_left(
    redis_store: RedisEventStore, registry: RulesetRegistry, played: tuple[Engine, Played]
) -> None:
    # An archive as the first format wrote it (entries only, ``z1:``), with the sealed
    # key it left and the snapshot key a cold read wrote back since.
    _engine, game = played
    game_id = game.created.game_id
    keys, raw = redis_store.keys, redis_store.client
    stream: Any = await raw.xrange(keys.events(game_id))
    entries = [(str(i), dict(f)) for i, f in stream]
    snapshot: Any = await raw.get(keys.snapshot(game_id))
    assert snapshot
    await raw.set(keys.archive(game_id), encode_entries(entries))
    await raw.delete(keys.events(game_id), keys.commands(game_id), keys.secret(game_id))
    assert str(await raw.get(keys.archive(game_id))).startswith("z1:")
    assert await _kinds(redis_store, game_id) == ["archive", "head", "sealed", "snapshot", "tokens"]
    cold = await Engine(redis_store, registry).load(game_id)  # reads the old format

    later = datetime.now(UTC) + timedelta(days=2)
    report = await archive_finished(redis_store, registry, timedelta(days=1), later)
    assert report.already_archived == 1 and report.tidied == 1, report
    assert await _kinds(redis_store, game_id) == ["archive", "head", "tokens"]
    assert decode_entries(str(await raw.get(keys.archive(game_id)))) == entries
    again = await Engine(redis_store, registry).load(game_id)
    assert again.state == cold.state and dict(again.private.secrets) == dict(cold.private.secrets)
    assert json.loads(snapshot)["version"] <= again.version


async def test_through_the_api_retries_of_an_archived_game_get_their_replies(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    # As seen: CreateGame retried after `teoti archive` was ABORTED, the last move's
    # retry refused game_over.
    tokens = [secrets.token_urlsafe(32) for _ in range(2)]
    seats = [SeatInfo("human", f"p{i}", token=t) for i, t in enumerate(tokens)]
    options = {"max_take": 1}
    async with (
        all_in_one(
            redis_url,
            store=StoreSettings(key_prefix, shards=2),
            registry=registry,
            default_ruleset="nim",
        ) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}") as client,
    ):
        created = await client.create_game(seats, options=options, command_id="c1")
        moves: list[tuple[int, str, Any]] = []
        view = await client.get_game(created.game_id)
        while not view.finished:
            seat = view.seats_to_act[0]
            command_id = f"m{view.version}"
            reply = await client.submit_action(
                created.game_id, seat, tokens[seat], {"take": 1}, command_id=command_id
            )
            moves.append((seat, command_id, reply))
            view = await client.get_game(created.game_id)
        await _archive(stack.store, registry, created.game_id)

        again = await client.create_game(seats, options=options, command_id="c1")
        assert (again.game_id, again.version) == (created.game_id, created.version)
        for seat, command_id, reply in moves[-2:]:
            retried = await client.submit_action(
                created.game_id, seat, tokens[seat], {"take": 1}, command_id=command_id
            )
            assert retried == reply
