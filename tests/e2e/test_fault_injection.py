"""kill -9 of the engine, the bot worker, the gateway and Redis, under load (issue 12).

Real ``teoti`` processes split as production runs them, on a real redis-server with an
``everysec`` append-only file. Bot games and games with a person (this test, through the
gateway, retrying like a well-behaved client) run while each process is killed and
restarted in turn; then Redis is killed, either with its AOF intact or with the last part
of it cut (acknowledged writes lost, as after a failover to a lagging replica).

Asserted: every game finishes (nothing left stuck, whatever Redis lost); every log
verifies; no command (seat, command id) was applied twice; with the AOF intact, every
acknowledged command is in the log at the versions its reply gave. Printed: the longest
time the games made no progress, and what a cut AOF lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.embedded_redis import free_port
from services.engine.adapters import RedisEventStore
from services.engine.domain.errors import GameNotFound
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.errors import error_info
from tests.faults import Proc, RedisProcess

SHARDS = 4
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    # The gateway's per-address rate limit: every person of this test is one address.
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
CLIENT_CHANNEL = [
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


@dataclass
class Acked:
    """A command the gateway answered OK: (game, seat, command id) -> (first, last)."""

    commands: dict[tuple[str, int, str], tuple[int, int]] = field(default_factory=dict)


async def _retrying(call: Any, request: Any, wait_s: float = 5.0) -> Any:
    """Send ``request`` until it is answered (a retry is the same request: same id)."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return await call(request, timeout=wait_s)
        except grpc.aio.AioRpcError as error:
            if error.code() not in RETRYABLE or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def _play_person(stub: Any, game: str, token: str, acked: Acked, stop: asyncio.Event) -> None:
    """Seat 0 of ``game`` takes one stone whenever it is to act, until ``stop``.

    It stays at the table after the game ends, and when the game is gone: Redis may
    lose the end of a game (or the whole game) it had acknowledged, and then the game
    waits for this person again (or no longer exists).
    """
    pb = game_service_pb2
    while not stop.is_set():
        try:
            state = await _retrying(stub.GetGame, pb.GetGameRequest(game_id=game))
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND:
                raise
            await asyncio.sleep(0.3)  # lost whole (created in the AOF's cut tail)
            continue
        if state.finished or 0 not in state.seats_to_act:
            await asyncio.sleep(0.05)
            continue
        request = pb.SubmitActionRequest(
            game_id=game,
            seat=0,
            seat_token=token,
            action_json='{"take": 1}',
            command_id=f"person-{uuid.uuid4().hex}",
        )
        try:
            reply = await _retrying(stub.SubmitAction, request)
        except grpc.aio.AioRpcError as error:
            # Refused because the game moved meanwhile: read it again and decide anew.
            info = error_info(error)
            assert info is not None and info.reason != "command_id_reused", error.details()
            assert error.code() in {
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.ABORTED,
            }, (error.code(), error.details())
            continue
        acked.commands[(game, 0, request.command_id)] = (reply.first_version, reply.version)


async def _wait(predicate: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.slow
@pytest.mark.parametrize("aof", ["intact", "cut"])
async def test_kill_9_of_every_process_and_of_redis_under_load(
    tmp_path: Path, registry: RulesetRegistry, aof: str
) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    prefix = f"faults-{uuid.uuid4().hex[:8]}"
    engine_port, link_port, gateway_port = free_port(), free_port(), free_port()
    common = ["--redis-url", redis.url, "--key-prefix", prefix, "--shards", str(SHARDS)]
    nim = ["--extra-ruleset", "nim=tests.nim:NimRuleset"]
    engine = Proc(
        ["engine", "--port", str(engine_port), "--link-port", str(link_port), *common, *nim],
        tmp_path / "engine.log",
    )
    # The product's defaults (--claim-idle-ms 30000, --reconcile-s 5, --max-deliveries
    # 5): docs/operations.md gives the recovery figure measured with them (issue 30
    # item 6; a figure measured with 2 s was 10x better than what operators got).
    bot_args = ["bot", "--engine", f"127.0.0.1:{link_port}", *common, *nim]
    bot = Proc(bot_args, tmp_path / "bot.log")
    gateway = Proc(
        [
            *("gateway", "--port", str(gateway_port)),
            *("--engine", f"127.0.0.1:{link_port}", *common, *nim),
        ],
        tmp_path / "gateway.log",
    )
    store = RedisEventStore.from_url(redis.url, prefix=prefix, shards=SHARDS)
    reader = GameReader(store, registry)
    pb = game_service_pb2
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{gateway_port}", options=CLIENT_CHANNEL)
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    acked = Acked()
    stop = asyncio.Event()
    people: list[asyncio.Task[None]] = []
    try:
        for proc in (engine, bot, gateway):
            proc.start()
        bots = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"b{i}") for i in range(3)]
        games: list[str] = []
        tokens: dict[str, str] = {}
        creating = asyncio.Event()

        async def create(i: int) -> None:
            """Game ``i``: all bots (even), or a person (this test) against a bot (odd)."""
            token = f"tok-{i}-0123456789abcdefghij"  # 128 bits' worth of length, as required
            person = pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="p", token=token)
            seats = bots if i % 2 == 0 else [person, bots[0]]
            request = pb.CreateGameRequest(
                ruleset="nim", seats=seats, options_json='{"max_take": 1}', command_id=f"c{i}"
            )
            game = (await _retrying(stub.CreateGame, request, 10)).game_id
            games.append(game)
            if i % 2:
                tokens[game] = token
                task = _play_person(stub, game, token, acked, stop)
                people.append(asyncio.create_task(task))

        async def keep_creating() -> None:
            """Load all through the faults: a new game every 0.3 s until told to stop."""
            i = 0
            while not creating.is_set():
                await create(i)
                i += 1
                await asyncio.sleep(0.3)

        for i in range(-8, 0):
            await create(i)
        creator = asyncio.create_task(keep_creating())

        progress: list[tuple[float, int]] = []
        versions: list[tuple[float, dict[str, int]]] = []

        async def heads() -> dict[str, int]:
            pipe = store.client.pipeline(transaction=False)
            known = list(games)
            for game in known:
                pipe.hget(store.keys.head(game), "version")
            replies = await pipe.execute()
            return {g: int(v or 0) for g, v in zip(known, replies, strict=True)}

        async def sample() -> None:
            while not stop.is_set():
                with contextlib.suppress(Exception):  # Redis down: no sample
                    now, seen = time.monotonic(), await heads()
                    versions.append((now, seen))
                    progress.append((now, sum(seen.values())))
                await asyncio.sleep(0.1)

        sampler = asyncio.create_task(sample())
        for proc in (engine, bot, gateway):
            await asyncio.sleep(1.5)
            proc.kill9()
            proc.start()
        await asyncio.sleep(1.5)
        redis_down = time.monotonic()
        redis.kill9()
        lost_bytes = redis.cut_aof(0.8) if aof == "cut" else 0
        await asyncio.sleep(3.0)  # a 3 s Redis outage
        redis.start()
        redis_up = time.monotonic()
        await asyncio.sleep(2.0)
        creating.set()
        await creator

        async def running() -> list[str]:
            """Games not finished, as ``id@version to-act``; a game Redis lost (its
            creation was in the cut tail) is not running: it no longer exists."""
            waiting = []
            for game in games:
                try:
                    snapshot = await reader.load(game)
                except GameNotFound:
                    continue
                if not snapshot.is_terminal():
                    waiting.append(f"{game}@{snapshot.version} {snapshot.seats_to_act()}")
            return waiting

        async def all_finished() -> bool:
            try:
                return not await running()
            except Exception:
                return False

        try:
            await _wait(all_finished, 120, "every game to finish (none stuck)")
        except AssertionError:
            turns = [await store.client.xrange(stream) for stream in store.keys.all_turns()]
            failed = [repr(t.exception())[:300] for t in people if t.done() and t.exception()]
            pending = sum(1 for t in people if not t.done())
            for line in await running():
                game = line.split("@")[0]
                if game in tokens:
                    try:
                        await stub.SubmitAction(
                            pb.SubmitActionRequest(
                                game_id=game,
                                seat=0,
                                seat_token=tokens[game],
                                action_json='{"take": 1}',
                            ),
                            timeout=5,
                        )
                        failed.append(f"{game}: a move now works")
                    except grpc.aio.AioRpcError as error:
                        failed.append(f"{game}: {error.code()} {error.details()}")
            failed.append(f"{pending} person tasks still running")
            raise AssertionError(
                f"stuck: {await running()}; turn requests: {turns}; person tasks: {failed}"
            ) from None
        stop.set()
        await asyncio.gather(*people, sampler)
    finally:
        stop.set()
        creating.set()
        for task in people:
            task.cancel()
        await asyncio.gather(*people, return_exceptions=True)
        await channel.close()
        for proc in (bot, gateway, engine):
            proc.stop()

    # The longest stretch without progress once Redis was back (a 3 s outage).
    before = [v for t, v in progress if t < redis_down]
    resumed = next((t for t, v in progress if t > redis_up and v > before[-1]), None)
    stall = (resumed - redis_down) if resumed else float("nan")
    print(
        f"aof={aof}: cut {lost_bytes} bytes; {len(games)} games; they moved again "
        f"{stall:.2f} s after Redis went down for 3 s ({stall - 3:.2f} s after it was back)"
    )

    # Per game (issue 30 item 6): the longest a game that was running when Redis came
    # back went without a move since then (until the version it ended at).
    final = versions[-1][1]
    longest, slowest = 0.0, ""
    for game, last in final.items():
        since, at = redis_up, None
        for t, seen in versions:
            if t < redis_up or game not in seen:
                continue
            if at is None:
                at = seen[game]
            if at == last:
                break
            if seen[game] != at:
                if t - since > longest:
                    longest, slowest = t - since, game
                since, at = t, seen[game]
    print(
        f"aof={aof}: the longest a game waited for its next move after Redis was back: "
        f"{longest:.2f} s ({slowest})"
    )
    assert longest < 12, (longest, slowest)  # a reconciler pass (5 s), with room

    lost = 0
    lost_games = 0
    for game in games:
        try:
            report = await reader.audit(game)
        except GameNotFound:
            lost_games += 1
            lost += sum(1 for key in acked.commands if key[0] == game)
            continue
        assert report.ok and report.seed_verified, (game, report.problems)
        batches: dict[tuple[int, str], list[int]] = {}
        for event in await store.read(game):
            if event.metadata.command_id:
                key = (event.metadata.seat, event.metadata.command_id)
                batches.setdefault(key, []).append(event.version)
        for key, versions in batches.items():  # each command applied once, contiguously
            assert versions == list(range(versions[0], versions[-1] + 1)), (game, key)
        for (acked_game, seat, command_id), (first, last) in acked.commands.items():
            if acked_game != game:
                continue
            versions = batches.get((seat, command_id))
            if versions is None or (versions[0], versions[-1]) != (first, last):
                lost += 1
    print(
        f"aof={aof}: {len(acked.commands)} acknowledged person commands, {lost} lost; "
        f"{lost_games} of {len(games)} games lost whole"
    )
    if aof == "intact":
        assert lost == 0 and lost_games == 0
    for shard in range(SHARDS):
        assert await store.client.xlen(store.keys.dead_letters(shard)) == 0
    await store.close()
    redis.stop()
