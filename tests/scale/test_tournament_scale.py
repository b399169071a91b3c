"""Scale test of tournaments: 64 bot players at 4-seat tables of the default ruleset over 3 Swiss
rounds on a 3-master Redis Cluster, every part its own process (2 engines, 2 bot
workers, 2 directors, 1 gateway serving TournamentService). While round 1 plays, one
director and one engine get SIGKILL and are restarted. The tournament must finish with
each round's 16 games created exactly once, its log must verify (chain and every
pairing re-derived from the revealed seed), and its standings must recompute from the
log alone.

    .venv/bin/pytest -m slow tests/scale/test_tournament_scale.py -s

``TEOTI_TOURNAMENT_SCALE_TIMEOUT_S`` (default 3600) bounds the run; the figures are
printed (seconds per round, events, games).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.embedded_redis import EmbeddedRedisCluster, free_port
from services.engine.adapters import RedisEventStore
from services.engine.adapters.redis_client import RedisConfig
from services.engine.domain.rulesets import default_ruleset
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.tournament.aggregate import fold
from tests.faults import Proc

pytestmark = pytest.mark.slow

PLAYERS = 64
ROUNDS = 3
TABLE = 4
TIMEOUT_S = float(os.environ.get("TEOTI_TOURNAMENT_SCALE_TIMEOUT_S", "3600"))
ORGANISER = "scale-organiser-0123456789abcdef"


async def retrying(call: Any) -> Any:
    """Run ``call()`` again while the gateway's engine is unreachable (bounded)."""
    for attempt in range(120):
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            if attempt == 119:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable")


async def test_a_64_player_swiss_survives_a_director_and_an_engine_killed(tmp_path: Path) -> None:
    prefix = f"tscale-{uuid.uuid4().hex[:8]}"
    with EmbeddedRedisCluster(masters=3) as cluster:
        config = RedisConfig.cluster(cluster.nodes)
        common = ["--redis-cluster-nodes", cluster.nodes, "--key-prefix", prefix]
        engine_ports = [free_port() for _ in range(2)]
        link_ports = [free_port() for _ in range(2)]
        engines_target = ",".join(f"127.0.0.1:{p}" for p in link_ports)
        gateway_port = free_port()
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
        directors = [
            Proc(["director", "--engine", engines_target, *common], tmp_path / f"director{i}.log")
            for i in range(2)
        ]
        gateway = Proc(
            ["gateway", "--port", str(gateway_port), "--engine", engines_target, *common],
            tmp_path / "gateway.log",
        )
        procs = [*engines, *bots, *directors, gateway]
        store = RedisEventStore.from_config(config, prefix=prefix)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{gateway_port}")
        stub = pb_grpc.TournamentServiceStub(channel)
        try:
            for proc in procs:
                proc.start()
            metrics = await run(stub, store, engines, directors)
        finally:
            for proc in procs:
                proc.stop()
            await channel.close()
            await store.close()
    print(json.dumps(metrics, indent=2))


async def run(
    stub: Any, store: RedisEventStore, engines: list[Proc], directors: list[Proc]
) -> dict[str, Any]:
    started_at = time.monotonic()
    config = pb.TournamentConfig(
        name="scale",
        ruleset=default_ruleset(),
        options_json='{"first_game": true}',
        format=pb.TOURNAMENT_FORMAT_SWISS,
        min_seats=TABLE,
        max_seats=TABLE,
        rounds=ROUNDS,
        rated=True,
    )
    created = await retrying(
        lambda: stub.CreateTournament(
            pb.CreateTournamentRequest(config=config, command_id="s", organiser_token=ORGANISER)
        )
    )
    tid = created.tournament.tournament_id
    for n in range(PLAYERS):
        await retrying(
            lambda n=n: stub.RegisterPlayer(
                pb.RegisterPlayerRequest(
                    tournament_id=tid, player=f"bot-{n:02}", bot=True, organiser_token=ORGANISER
                )
            )
        )
    await retrying(
        lambda: stub.StartTournament(
            pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
        )
    )
    round_done: dict[int, float] = {}
    killed = False
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        got = (
            await retrying(lambda: stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid)))
        ).tournament
        for round_ in got.rounds:
            if round_.finished and round_.round not in round_done:
                round_done[round_.round] = time.monotonic() - started_at
        first = got.rounds[0]
        if not killed and sum(t.finished for t in first.tables) >= 1:
            directors[0].kill9()
            engines[0].kill9()
            killed = True
            await asyncio.sleep(1.0)
            directors[0].start()
            engines[0].start()
        if got.status == "finished":
            break
        assert time.monotonic() < deadline, "the tournament did not finish in time"
        await asyncio.sleep(1.0)

    assert killed
    assert len(got.rounds) == ROUNDS
    games = [t.game_id for r in got.rounds for t in r.tables]
    assert len(games) == len(set(games)) == ROUNDS * PLAYERS // TABLE
    indexed = [g.game_id for g in await store.list_games()]
    assert sorted(indexed) == sorted(games)  # no round's games were created twice
    for round_ in got.rounds:
        assert sorted(p for t in round_.tables for p in t.players) == sorted(
            f"bot-{n:02}" for n in range(PLAYERS)
        )
    verified = await stub.VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid))
    assert verified.chain_ok and verified.pairings_ok and verified.rounds_checked == ROUNDS
    log = await store.read(f"t-{tid}")
    recomputed = [(row.player, row.rank, row.points) for row in fold(log).standings()]
    served = [(row.player, row.rank, row.points) for row in got.standings]
    assert recomputed == served
    board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(ruleset=default_ruleset()))
    assert len(board.rows) == PLAYERS and all(row.games == ROUNDS for row in board.rows)
    return {
        "players": PLAYERS,
        "games": len(games),
        "tournament_events": len(log),
        "game_events": sum([await store.version(g) for g in games]),
        "round_finished_at_s": round_done,
        "total_s": round(time.monotonic() - started_at, 1),
    }
