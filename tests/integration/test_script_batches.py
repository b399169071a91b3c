"""Appends made while another is in flight go out in one round trip, each with its own
outcome (real Redis)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.engine.adapters import RedisEventStore
from services.engine.adapters.finished import GameFinished
from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.script_batches import ScriptBatches
from services.engine.domain.chain import verify_chain
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import VersionConflict
from services.engine.domain.game_ids import NOT_A_GAME_PREFIX
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.records import CommandKey, EventMetadata
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import RulesetRegistry

META = EventMetadata("", 0, "2024-01-01T00:00:00+00:00")


@pytest.fixture
async def counting_store(redis_url: str, key_prefix: str) -> Any:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    store = RedisEventStore(client, RedisKeys(key_prefix))
    yield store
    await store.close()


def round_trips(store: RedisEventStore) -> int:
    """Round trips the store's script lane sent so far."""
    assert store._batches is not None  # a standalone client: appends go through the lane
    return store._batches.round_trips


def thing(n: int) -> list[DomainEvent]:
    return [DomainEvent("Thing", {"n": n})]


async def test_concurrent_appends_share_pipelines_and_each_lands(
    counting_store: RedisEventStore,
) -> None:
    games = [uuid.uuid4().hex for _ in range(40)]
    results = await asyncio.gather(*(counting_store.append(g, 0, thing(1), META) for g in games))
    assert [r.last_version for r in results] == [1] * 40
    assert 1 <= round_trips(counting_store) < 40  # the first went alone, the rest in batches
    for game, result in zip(games, results, strict=True):
        stored = await counting_store.read(game)
        assert stored == list(result.written)
        assert verify_chain(stored, await counting_store.head(game)).ok


async def test_the_append_that_ends_a_game_writes_its_end_notice_in_the_same_script(
    counting_store: RedisEventStore,
) -> None:
    """The notice is written by the append itself (no round trip of its own, no crash in
    between can lose it), once per game, in its shard's stream as the director reads it
    (GameFinished fields); an append that ends nothing, and a retried command, write none."""
    games = [uuid.uuid4().hex for _ in range(20)]
    await asyncio.gather(*(counting_store.append(g, 0, thing(1), META) for g in games))
    ends = [DomainEvent("Thing", {"n": 2}), DomainEvent("SeedRevealed", {"seed": "s"})]
    before = round_trips(counting_store)
    await asyncio.gather(
        *(
            counting_store.append(g, 1, ends, META, command=CommandKey(f"end-{g}", ""))
            for g in games
        )
    )
    assert 1 <= round_trips(counting_store) - before < 20  # the appends' own batches
    await counting_store.append(games[0], 1, ends, META, command=CommandKey(f"end-{games[0]}", ""))
    heard = []
    for stream in counting_store.keys.all_finished():
        for _entry_id, fields in await counting_store.client.xrange(stream):
            heard.append(GameFinished.from_fields(fields))
    assert sorted(heard, key=lambda n: n.game_id) == sorted(
        (GameFinished(g, 3) for g in games), key=lambda n: n.game_id
    )
    for game in games:  # each in its game's shard's stream
        entries = await counting_store.client.xrange(counting_store.keys.finished_of(game))
        assert [fields for _id, fields in entries if fields["game_id"] == game] == [
            {"game_id": game, "version": "3"}
        ]


async def test_a_log_that_is_no_game_publishes_no_end_when_it_reveals_a_seed(
    counting_store: RedisEventStore,
) -> None:
    """A tournament's log reveals its seed too: that is no game's end."""
    log_id = f"{NOT_A_GAME_PREFIX}{uuid.uuid4().hex}"
    reveal = [DomainEvent("SeedRevealed", {"seed": "s"})]
    await counting_store.append(log_id, 0, reveal, META)
    assert [e.type for e in await counting_store.read(log_id)] == ["SeedRevealed"]
    for stream in counting_store.keys.all_finished():
        entries = await counting_store.client.xrange(stream)
        assert all(fields["game_id"] != log_id for _id, fields in entries)


async def test_one_batch_on_one_game_has_one_winner_and_dedups_a_command(
    counting_store: RedisEventStore,
) -> None:
    game = uuid.uuid4().hex
    await counting_store.append(game, 0, thing(0), META)
    outcomes = await asyncio.gather(
        *(counting_store.append(game, 1, thing(n), META) for n in range(10)),
        return_exceptions=True,
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
    assert all(isinstance(o, VersionConflict) for o in outcomes if isinstance(o, BaseException))
    command = CommandKey("seat:0|same", "h" * 64)
    # Five sends of one command, each decided at its own instant (as the engine stamps
    # each call): byte-identical ones would be one write's retries, reported as written.
    sends = [EventMetadata("", 0, f"2024-01-01T00:00:0{n}+00:00") for n in range(5)]
    retries = await asyncio.gather(
        *(counting_store.append(game, 2, thing(9), meta, command=command) for meta in sends)
    )
    assert {(r.first_version, r.last_version) for r in retries} == {(3, 3)}
    assert sum(not r.duplicate for r in retries) == 1
    assert await counting_store.version(game) == 3


async def test_a_flushed_script_cache_falls_back_to_eval_for_every_call(
    counting_store: RedisEventStore,
) -> None:
    await counting_store.client.script_flush()
    games = [uuid.uuid4().hex for _ in range(12)]
    results = await asyncio.gather(*(counting_store.append(g, 0, thing(1), META) for g in games))
    assert [r.last_version for r in results] == [1] * 12
    assert [await counting_store.version(g) for g in games] == [1] * 12


async def test_a_call_given_up_before_its_batch_is_never_sent(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    key = f"test-batches-{uuid.uuid4().hex}"
    script = "return redis.call('INCR', KEYS[1])"
    sha = await client.script_load(script)
    batches = ScriptBatches(client)
    first = asyncio.ensure_future(batches.evalsha(sha, 1, key))
    await asyncio.sleep(0)  # the first is in flight: the next ones wait for it
    dropped = asyncio.ensure_future(batches.evalsha(sha, 1, key))
    kept = asyncio.ensure_future(batches.evalsha(sha, 1, key))
    await asyncio.sleep(0)
    dropped.cancel()
    assert await first == 1
    assert await kept == 2
    assert dropped.cancelled()
    assert await client.get(key) == "2"
    await client.delete(key)
    await client.aclose()


# The script lane: one connection of its own, every call sent from a lane task, one
# deadline per round trip, one retry on a fresh connection.

SLOW_INCR = """
local n = redis.call('INCR', KEYS[1])
local t = redis.call('TIME')
local until_us = t[1] * 1000000 + t[2] + tonumber(ARGV[1]) * 1000
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_us
return n
"""
"""INCR KEYS[1], then keep Redis busy ARGV[1] ms; returns the count."""


def named_client(url: str, **options: Any) -> tuple[aioredis.Redis, str]:
    """A client whose connections carry a name of their own (CLIENT LIST finds them)."""
    name = f"lane-{uuid.uuid4().hex[:12]}"
    return aioredis.Redis.from_url(url, decode_responses=True, client_name=name, **options), name


async def lane_connections(admin: aioredis.Redis, name: str) -> list[dict[str, Any]]:
    """CLIENT LIST entries named ``name`` whose last command was EVALSHA (the lane's)."""
    clients: list[dict[str, Any]] = await admin.client_list()
    return [c for c in clients if c.get("name") == name and c.get("cmd") == "evalsha"]


async def lanes_left_after_close(admin: aioredis.Redis, name: str) -> list[dict[str, Any]]:
    """:func:`lane_connections` once the server has noticed closes (a moment after them),
    or what is still open after half a second."""
    for _ in range(50):
        if not await lane_connections(admin, name):
            break
        await asyncio.sleep(0.01)
    return await lane_connections(admin, name)


async def store_with_lane(
    url: str, key_prefix: str
) -> tuple[RedisEventStore, aioredis.Redis, str, dict[str, Any]]:
    """A store on a named client that has appended a game's first event, an admin
    client, the name, and the lane's CLIENT LIST entry."""
    client, name = named_client(url)
    admin = aioredis.Redis.from_url(url, decode_responses=True)
    store = RedisEventStore(client, RedisKeys(key_prefix))
    await store.append(uuid.uuid4().hex, 0, thing(0), META)
    [lane] = await lane_connections(admin, name)
    return store, admin, name, lane


async def test_a_batch_returns_each_reply_in_order_and_each_call_its_own_error(
    redis_url: str,
) -> None:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    sha = await client.script_load("return {KEYS[1], ARGV[1], tonumber(ARGV[2])}")
    batches = ScriptBatches(client)
    unknown = "0" * 40
    calls = [
        batches.evalsha(unknown if n % 3 == 1 else sha, 1, f"key-{n}", f"välue-{n}", n)
        for n in range(12)
    ]
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for n, outcome in enumerate(outcomes):
        if n % 3 == 1:
            assert isinstance(outcome, NoScriptError), outcome
        else:
            assert outcome == [f"key-{n}", f"välue-{n}", n]  # decoded as the client does
    assert outcomes[0] == await client.evalsha(sha, 1, "key-0", "välue-0", 0)
    await batches.aclose()
    await client.aclose()


async def test_a_caller_cancelled_mid_call_does_not_break_the_next_call(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    key = f"test-lane-{uuid.uuid4().hex}"
    sha = await client.script_load(SLOW_INCR)
    batches = ScriptBatches(client)
    given_up = asyncio.ensure_future(batches.evalsha(sha, 1, key, 100))
    await asyncio.sleep(0.03)  # sent, and Redis is running it
    given_up.cancel()
    assert await batches.evalsha(sha, 1, key, 0) == 2  # its own reply, not the first's
    assert given_up.cancelled()
    assert await client.get(key) == "2"
    await client.delete(key)
    await batches.aclose()
    await client.aclose()


async def test_a_killed_lane_connection_is_retried_once_and_the_append_lands_once(
    redis_url: str, key_prefix: str
) -> None:
    store, admin, name, lane = await store_with_lane(redis_url, key_prefix)
    game = uuid.uuid4().hex
    await store.append(game, 0, thing(0), META)
    assert await admin.client_kill_filter(_id=lane["id"]) == 1
    command = CommandKey("seat:0|after-kill", "k" * 64)
    result = await store.append(game, 1, thing(1), META, command=command)
    assert (result.first_version, result.last_version, result.duplicate) == (2, 2, False)
    assert [e.version for e in await store.read(game)] == [1, 2]
    [again] = await lane_connections(admin, name)
    assert again["id"] != lane["id"]  # a fresh connection
    await store.close()
    await admin.aclose()


async def test_a_stalled_redis_fails_the_call_with_a_timeout_within_two_deadlines(
    redis_url: str,
) -> None:
    deadline_s = 0.2
    client, _name = named_client(redis_url, socket_timeout=deadline_s)
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    sha = await client.script_load("return 1")
    batches = ScriptBatches(client)
    assert await batches.evalsha(sha, 0) == 1  # connected
    await admin.client_pause(1500, all=True)
    started = time.monotonic()
    with pytest.raises(RedisTimeoutError):
        await batches.evalsha(sha, 0)
    elapsed = time.monotonic() - started
    assert elapsed < 2 * deadline_s + 0.3, elapsed  # the try and its one retry
    await asyncio.sleep(1.5 - elapsed)
    assert await batches.evalsha(sha, 0) == 1  # Redis is back: so is the lane
    await batches.aclose()
    await client.aclose()
    await admin.aclose()


async def test_the_lane_logs_in_as_the_clients_acl_user(redis_url: str, key_prefix: str) -> None:
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    user, password = f"lane-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    await admin.acl_setuser(
        user, enabled=True, passwords=[f"+{password}"], keys=["*"], commands=["+@all"]
    )
    parts = urlsplit(redis_url)
    url = urlunsplit(parts._replace(netloc=f"{user}:{password}@{parts.netloc}"))
    client, name = named_client(url)
    store = RedisEventStore(client, RedisKeys(key_prefix))
    game = uuid.uuid4().hex
    assert (await store.append(game, 0, thing(0), META)).last_version == 1
    [lane] = await lane_connections(admin, name)
    assert lane["user"] == user
    await store.close()
    await admin.acl_deluser(user)
    await admin.aclose()


async def test_closing_the_store_closes_the_lane_connection(
    redis_url: str, key_prefix: str
) -> None:
    store, admin, name, _lane = await store_with_lane(redis_url, key_prefix)
    await store.close()
    assert await lanes_left_after_close(admin, name) == []
    await admin.aclose()


async def test_an_argument_that_cannot_be_sent_fails_only_its_own_call(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    sha = await client.script_load("return ARGV[1]")
    batches = ScriptBatches(client)
    outcomes = await asyncio.gather(
        batches.evalsha(sha, 0, "a"),
        batches.evalsha(sha, 0, None),
        batches.evalsha(sha, 0, "c"),
        batches.evalsha(sha, 0, None),
        return_exceptions=True,
    )
    assert outcomes[0] == "a" and outcomes[2] == "c"
    assert isinstance(outcomes[1], TypeError) and isinstance(outcomes[3], TypeError)
    await batches.aclose()
    await client.aclose()


BUSY_MS = """
local t = redis.call('TIME')
local until_us = t[1] * 1000000 + t[2] + tonumber(ARGV[1]) * 1000
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_us
return 1
"""
"""Keep Redis busy ARGV[1] ms."""


async def append_retried_after_it_ran(
    redis_url: str, key_prefix: str, command: CommandKey | None
) -> tuple[Any, list[int], int]:
    """Append version 2 of a game while Redis is busy past the lane's deadline: the first
    try runs once Redis is free (its reply comes too late), the retry on a fresh
    connection runs after it. Returns the append's outcome (or error), the versions
    stored, and the lane's round trips for that append."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True, socket_timeout=0.5)
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    store = RedisEventStore(client, RedisKeys(key_prefix))
    game = uuid.uuid4().hex
    await store.append(game, 0, thing(0), META)
    _version, head_hash = await store.head(game)
    before = round_trips(store)
    await admin.ping()  # connected: the busy script goes out at once, not after a login
    busy = asyncio.ensure_future(admin.eval(BUSY_MS, 0, 750))
    await asyncio.sleep(0.05)  # Redis runs the busy script: the append waits behind it
    outcome: Any
    try:
        outcome = await store.append(game, 1, thing(1), META, prev_hash=head_hash, command=command)
    except Exception as exc:
        outcome = exc
    await busy
    versions = [e.version for e in await store.read(game)]
    tries = round_trips(store) - before
    await store.close()
    await admin.aclose()
    return outcome, versions, tries


async def test_an_append_whose_retry_finds_it_landed_is_a_success_not_a_conflict(
    redis_url: str, key_prefix: str
) -> None:
    outcome, versions, tries = await append_retried_after_it_ran(redis_url, key_prefix, None)
    assert tries == 2  # the try that ran late, then the retry
    assert versions == [1, 2]  # written once
    assert not isinstance(outcome, BaseException), outcome  # and reported as written
    assert (outcome.first_version, outcome.last_version, outcome.duplicate) == (2, 2, False)
    assert [e.version for e in outcome.written] == [2]


async def test_an_append_with_a_command_id_whose_retry_finds_it_landed_is_written(
    redis_url: str, key_prefix: str
) -> None:
    """Under a command id the retry's run answers "dup": the command's events are this
    append's own, so it is reported as written (not as a duplicate with no events, which
    left the engine's cache behind and sent no end notice for a game's last move)."""
    command = CommandKey("seat:0|landed", "l" * 64)
    outcome, versions, tries = await append_retried_after_it_ran(redis_url, key_prefix, command)
    assert tries == 2  # the try that ran late, then the retry
    assert versions == [1, 2]  # written once
    assert not isinstance(outcome, BaseException), outcome
    assert (outcome.first_version, outcome.last_version, outcome.duplicate) == (2, 2, False)
    assert [e.version for e in outcome.written] == [2]


async def test_a_lane_closed_while_it_connects_leaves_no_connection_open(redis_url: str) -> None:
    client, name = named_client(redis_url)
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    sha = await admin.script_load("return 1")
    outcomes: list[Any] = []
    for turns in range(8):  # closed at each step of connecting, sending and reading
        batches = ScriptBatches(client)
        call = asyncio.ensure_future(batches.evalsha(sha, 0))
        for _ in range(turns):
            await asyncio.sleep(0)
        await batches.aclose()
        outcomes.append(*await asyncio.gather(call, return_exceptions=True))
    assert 1 in outcomes  # some closes came after the call had gone out (it still ends)
    assert await lanes_left_after_close(admin, name) == []
    await client.aclose()
    await admin.aclose()


async def move_retried_after_it_ran(
    redis_url: str,
    key_prefix: str,
    registry: RulesetRegistry,
    max_take: int,
    take_all: bool = False,
    command_id: str = "",
) -> tuple[Any, list[Any], int, list[tuple[str, int]]]:
    """A Nim move (one stone, or ``take_all``: the game's last move) submitted while
    Redis is busy past the lane's deadline, as :func:`append_retried_after_it_ran` does
    for an append. Returns the move's outcome (or error), the game's events, the
    version before the move and the end notices the engine sent (game id, version)."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True, socket_timeout=0.5)
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    store = RedisEventStore(client, RedisKeys(key_prefix))
    engine = Engine(store, registry, seed_source=fixed_seed("landed"))
    seats = [SeatSpec(SeatKind.HUMAN, name, hash_token(name * 20)) for name in "ab"]
    game = (await engine.create_game("nim", seats, {"max_take": max_take})).game_id
    before = await engine.load(game)
    await admin.ping()  # connected: the busy script goes out at once, not after a login
    busy = asyncio.ensure_future(admin.eval(BUSY_MS, 0, 750))
    await asyncio.sleep(0.05)
    outcome: Any
    try:
        action = {"take": before.state.pile if take_all else 1}
        outcome = await engine.submit_action(
            game, before.seats_to_act()[0], action, command_id=command_id
        )
    except Exception as exc:
        outcome = exc
    await busy
    events = await store.read(game)
    notices = await admin.xrange(store.keys.finished_of(game))
    finished = [
        (n.game_id, n.version)
        for n in (GameFinished.from_fields(fields) for _id, fields in notices)
        if n.game_id == game
    ]
    await store.close()
    await admin.aclose()
    return outcome, events, before.version, finished


async def test_a_move_whose_append_is_retried_after_it_landed_is_applied_once(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    # Without a command id the engine would take the retry's conflict for another
    # writer's win, decide the move again on the new log and refuse it (not its turn).
    outcome, events, before, _ = await move_retried_after_it_ran(
        redis_url, key_prefix, registry, max_take=3
    )
    assert not isinstance(outcome, BaseException), outcome
    assert outcome.version == events[-1].version  # the move, reported
    assert [e.type for e in events[before:]] == [e.type for e in outcome.written]


async def test_a_last_move_with_a_command_id_retried_after_it_landed_ends_the_game_once(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """The retry of a game's last move answers "dup": the engine still reports the move's
    events, and the game's end notice is in its shard's stream once (the append that ran
    wrote it; the retry's "dup" writes nothing)."""
    outcome, events, before, finished = await move_retried_after_it_ran(
        redis_url, key_prefix, registry, max_take=20, take_all=True, command_id="last-move"
    )
    assert not isinstance(outcome, BaseException), outcome
    assert events[-1].type == "SeedRevealed" and outcome.version == events[-1].version
    assert [e.version for e in outcome.written] == [e.version for e in events[before:]]
    assert [version for _, version in finished] == [events[-1].version]


ECHO_BUSY = """
if tonumber(ARGV[2]) > 0 then
  local t = redis.call('TIME')
  local until_us = t[1] * 1000000 + t[2] + tonumber(ARGV[2])
  repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_us
end
return ARGV[1]
"""
"""Keep Redis busy ARGV[2] us, then return ARGV[1]."""


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
@pytest.mark.parametrize("deadline_s", [0.03, 0.25])
async def test_under_kills_pauses_cancels_and_timeouts_each_reply_is_its_callers(
    redis_url: str, deadline_s: float
) -> None:
    client, name = named_client(redis_url, socket_timeout=deadline_s)
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    sha = await client.script_load(ECHO_BUSY)
    batches = ScriptBatches(client)
    rng = random.Random(f"chaos-{deadline_s}")
    stop = time.monotonic() + 3
    answered: list[tuple[str, Any]] = []
    failures: list[BaseException] = []

    async def caller(n: int) -> None:
        while time.monotonic() < stop:
            token = f"{n}-{uuid.uuid4().hex}"
            call = asyncio.ensure_future(
                batches.evalsha(sha, 0, token, rng.choice([0, 0, 0, 200, 2000, 20000]))
            )
            if rng.random() < 0.1:
                await asyncio.sleep(rng.random() * 0.01)
                call.cancel()
            try:
                answered.append((token, await call))
            except (asyncio.CancelledError, RedisConnectionError, RedisTimeoutError) as exc:
                failures.append(exc)

    async def chaos() -> None:
        while time.monotonic() < stop:
            await asyncio.sleep(rng.random() * 0.05)
            for lane in await lane_connections(admin, name):
                if rng.random() < 0.5:
                    await admin.client_kill_filter(_id=lane["id"])
            if rng.random() < 0.05:
                await admin.client_pause(rng.choice([30, 80]), all=True)

    await asyncio.gather(chaos(), *(caller(n) for n in range(20)))
    assert answered  # some calls got through the chaos
    assert all(reply == token for token, reply in answered)  # each its own reply
    # The lane is not stuck. The chaos's last CLIENT PAUSE (up to 80 ms) may outlast a
    # call's two 30 ms tries, and a loaded machine may miss a 30 ms deadline once more.
    await admin.client_unpause()
    assert await _eventually_answered(batches, sha, "after") == "after"
    await batches.aclose()
    await client.aclose()
    await admin.aclose()


async def _eventually_answered(batches: ScriptBatches, sha: str, token: str) -> Any:
    """The lane's reply to an echo within 5 calls (a timed-out call is tried again)."""
    for _ in range(4):
        with contextlib.suppress(RedisTimeoutError):
            return await batches.evalsha(sha, 0, token, 0)
    return await batches.evalsha(sha, 0, token, 0)
