"""Every process's ``/metrics`` after real games (issue 34, docs/operations.md "Metrics"):
a real ``teoti serve`` and the split engine + gateway + bot worker, their metrics ports
scraped and parsed by prometheus_client's own parser; each counter moved by exactly the
calls and moves made, and no label carries a game id, a token or an address."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc

from tests.faults import Proc, engine_serving
from tests.metrics_scrape import Samples, leaked, moved, scrape, value
from tests.web_serve import free_port, teoti_serve

SUBMIT = "gameserver.v1.GameService/SubmitAction"
CREATE = "gameserver.v1.GameService/CreateGame"
LABELS = {"face", "method", "code", "reason", "outcome", "result", "le"}
"""The labels of the service's own metrics (``teoti_*``): all bounded."""


class Players:
    """Two humans' moves in one Nim game, over gRPC (seat 0) and, when given a web
    address, over the web face (seat 1)."""

    def __init__(self, stub: Any, web: str | None = None) -> None:
        self.stub = stub
        self.web = web
        self.moves = {"grpc": 0, "web": 0}
        self.game_id = ""
        self.tokens: dict[int, str] = {}

    async def create(self) -> int:
        """Create the game (a stone a move); returns its version."""
        seats = [pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=name) for name in ("ana", "ben")]
        created = await self.stub.CreateGame(
            pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take": 1}')
        )
        self.game_id = created.game_id
        self.tokens = {seat.seat: seat.token for seat in created.seat_tokens}
        return int(created.version)

    async def play_out(self, http: httpx.AsyncClient | None = None) -> int:
        """Play until the game ends; returns its final version."""
        while True:
            game = await self.stub.GetGame(pb.GetGameRequest(game_id=self.game_id))
            if game.finished:
                return int(game.version)
            seat = game.seats_to_act[0]
            if seat == 1 and http is not None:
                await self.web_move(http, seat, '{"take": 1}', expect=200)
                self.moves["web"] += 1
            else:
                await self.grpc_move(seat, '{"take": 1}')
                self.moves["grpc"] += 1

    async def grpc_move(self, seat: int, action: str) -> None:
        await self.stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=self.game_id, seat=seat, action_json=action, seat_token=self.tokens[seat]
            )
        )

    async def web_move(self, http: httpx.AsyncClient, seat: int, action: str, expect: int) -> None:
        reply = await http.post(
            f"{self.web}/{SUBMIT}",
            json={"game_id": self.game_id, "seat": seat, "action_json": action},
            headers={"authorization": f"Bearer {self.tokens[seat]}"},
        )
        assert reply.status_code == expect, reply.text


def assert_bounded(samples: Samples, secrets: list[str]) -> None:
    """No label value holds a secret, and the service's metrics use only bounded labels
    whose methods come from the services' fixed list."""
    assert leaked(samples, secrets) == []
    for name, labels in samples:
        if not name.startswith("teoti_"):
            continue
        assert {key for key, _ in labels} <= LABELS, (name, labels)
        for key, item in labels:
            if key == "method" and "/" in item:
                assert item.split("/")[0].startswith(("gameserver.v1.", "grpc.")), item


async def poll(condition: Any, seconds: float, what: str) -> None:
    """Wait until ``condition()`` is true (a scrape each 0.1 s); AssertionError after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def test_serve_metrics_count_every_call_and_move(redis_url: str) -> None:
    port = free_port()
    with teoti_serve(
        redis_url, f"metrics-{uuid.uuid4().hex[:8]}", "--metrics-port", str(port)
    ) as served:
        before = scrape(port)
        async with (
            grpc.aio.insecure_channel(served.grpc_target) as channel,
            httpx.AsyncClient(timeout=10) as http,
        ):
            players = Players(game_service_pb2_grpc.GameServiceStub(channel), served.web)
            created_at = await players.create()
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await players.grpc_move(0, "not json")
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            await players.web_move(http, 1, "not json", expect=400)
            final = await players.play_out(http)
            # Off the public faces: the web port serves no metrics.
            public = await http.get(f"{served.web}/metrics")
            assert public.status_code == 404 and "teoti_" not in public.text
            bot_moves, bot_events = await all_bot_game(players.stub)
        # The bot worker counts a move once it is in the log: the game may end first.
        after = scrape(port)
        await poll(
            lambda: (
                moved(before, scrape(port), "teoti_bot_turns_total", outcome="played") >= bot_moves
            ),
            10,
            "the bot's moves counted",
        )
        after = scrape(port)

    grpc_moves, web_moves = players.moves["grpc"], players.moves["web"]
    assert grpc_moves > 3 and web_moves > 3
    requests = "teoti_requests_total"
    assert moved(before, after, requests, face="grpc", method=SUBMIT, code="OK") == grpc_moves
    assert moved(before, after, requests, face="grpc", method=SUBMIT, code="INVALID_ARGUMENT") == 1
    assert moved(before, after, requests, face="web", method=SUBMIT, code="OK") == web_moves
    assert moved(before, after, requests, face="web", method=SUBMIT, code="INVALID_ARGUMENT") == 1
    assert moved(before, after, requests, face="grpc", method=CREATE, code="OK") == 2
    latency = "teoti_request_duration_seconds_count"
    assert moved(before, after, latency, face="grpc", method=SUBMIT) == grpc_moves + 1
    assert moved(before, after, latency, face="web", method=SUBMIT) == web_moves + 1
    # Moves: the players' and the bots'; events: what both games' moves appended after
    # their creation (the moves', the game's end, the seed's reveal).
    humans = grpc_moves + web_moves
    assert moved(before, after, "teoti_engine_moves_appended_total") == humans + bot_moves
    events = (final - created_at) + bot_events
    assert moved(before, after, "teoti_engine_events_appended_total") == events
    assert moved(before, after, "teoti_bot_turns_total", outcome="played") == bot_moves
    assert moved(before, after, "teoti_bot_turn_seconds_count") == bot_moves
    assert moved(before, after, "teoti_snapshot_cache_lookups_total", result="hit") > 0
    assert value(after, "teoti_bot_queue_dead_letters") == 0
    assert value(after, "teoti_streams_held") == 0
    # Sampled on scrape: the matchmaker's queues (Redis) and the director's last sweep.
    for gauge in ("teoti_matchmaking_seeks_waiting", "teoti_tournaments_running"):
        assert (gauge, frozenset()) in after, gauge
        assert value(after, gauge) == 0
    assert_bounded(after, [players.game_id, *players.tokens.values(), "127.0.0.1"])


async def all_bot_game(stub: Any) -> tuple[int, int]:
    """An all-bot Nim game, watched to its end; (the bots' moves, the events they
    appended)."""
    seats = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"bot{i}") for i in range(2)]
    created = await stub.CreateGame(
        pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take": 3}')
    )

    async def follow() -> None:
        async for _ in stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id)):
            pass

    await asyncio.wait_for(follow(), timeout=30)
    listed = await stub.ListEvents(pb.ListEventsRequest(game_id=created.game_id))
    moves = len({e.metadata.command_id for e in listed.events if e.type == "StonesTaken"})
    return moves, len(listed.events) - created.version


@pytest.fixture
async def split(redis_url: str, tmp_path: Path) -> AsyncIterator[dict[str, int]]:
    """``teoti engine``, ``teoti gateway`` and ``teoti bot`` on one Redis, each serving
    ``/metrics``."""
    prefix = f"metrics-split-{uuid.uuid4().hex[:8]}"
    common = ["--redis-url", redis_url, "--key-prefix", prefix]
    nim = ["--extra-ruleset", "nim=tests.nim:NimRuleset"]
    names = ("engine", "link", "gateway", "engine_m", "gateway_m", "bot_m")
    ports = {name: free_port() for name in names}
    engine = Proc(
        [
            *("engine", "--port", str(ports["engine"]), "--link-port", str(ports["link"])),
            *("--metrics-port", str(ports["engine_m"]), *common, *nim),
        ],
        tmp_path / "engine.log",
    )
    gateway = Proc(
        [
            *("gateway", "--port", str(ports["gateway"]), "--engine"),
            *(f"127.0.0.1:{ports['link']}", "--metrics-port", str(ports["gateway_m"])),
            *common,
            *nim,
        ],
        tmp_path / "gateway.log",
    )
    bot = Proc(
        [
            *("bot", "--engine", f"127.0.0.1:{ports['link']}"),
            *("--metrics-port", str(ports["bot_m"]), *common, *nim),
        ],
        tmp_path / "bot.log",
    )
    try:
        engine.start()
        await engine_serving(ports["engine"])
        gateway.start()
        bot.start()
        await gateway_serving(ports["gateway"])
        await poll(lambda: answers(ports["bot_m"]), 60, "the bot worker's /metrics")
        yield ports
    finally:
        bot.stop()
        gateway.stop()
        engine.stop()
    for proc in (engine, gateway, bot):
        assert proc.process is not None and proc.process.returncode == 0, proc.log.read_text()
        assert "Traceback" not in proc.log.read_text(), proc.log.read_text()[-2000:]


def answers(port: int) -> bool:
    """Whether ``/metrics`` on ``port`` answers yet."""
    try:
        scrape(port)
    except OSError:
        return False
    return True


async def gateway_serving(port: int, seconds: float = 60) -> None:
    """Wait until the gateway on ``port`` says GameService is SERVING."""
    deadline = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = await stub.Check(
                    health_pb2.HealthCheckRequest(service="gameserver.v1.GameService"), timeout=1
                )
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("the gateway never served")
            await asyncio.sleep(0.1)


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_split_engine_gateway_and_bot_metrics(split: dict[str, int]) -> None:
    engine_before, gateway_before = scrape(split["engine_m"]), scrape(split["gateway_m"])
    bot_before = scrape(split["bot_m"])
    async with grpc.aio.insecure_channel(f"127.0.0.1:{split['gateway']}") as channel:
        players = Players(game_service_pb2_grpc.GameServiceStub(channel))
        await players.create()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await players.grpc_move(0, json.dumps({"take": 5}))  # more than max_take
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        await players.play_out()
        bot_moves, _events = await all_bot_game(players.stub)
    await poll(
        lambda: (
            moved(bot_before, scrape(split["bot_m"]), "teoti_bot_turns_total", outcome="played")
            >= bot_moves
        ),
        10,
        "the bot worker's moves counted",
    )
    engine, gateway = scrape(split["engine_m"]), scrape(split["gateway_m"])
    bot = scrape(split["bot_m"])
    moves = players.moves["grpc"]
    assert moved(bot_before, bot, "teoti_bot_turns_total", outcome="played") == bot_moves
    assert moved(bot_before, bot, "teoti_bot_turn_seconds_count") == bot_moves
    assert value(bot, "teoti_bot_queue_dead_letters") == 0
    assert ("teoti_bot_queue_depth", frozenset()) in bot
    requests = "teoti_requests_total"
    assert moved(gateway_before, gateway, requests, face="grpc", method=SUBMIT, code="OK") == moves
    assert (
        moved(
            gateway_before,
            gateway,
            requests,
            face="grpc",
            method=SUBMIT,
            code="FAILED_PRECONDITION",
        )
        == 1
    )
    # The engine answers the same commands on its link, by the command's name.
    # (The bots' moves too: the bot worker writes through the engine link.)
    link = {"face": "link", "method": "submit_action"}
    assert moved(engine_before, engine, requests, **link, code="OK") == moves + bot_moves
    assert moved(engine_before, engine, requests, **link, code="FAILED_PRECONDITION") == 1
    assert moved(engine_before, engine, requests, face="link", method="create_game", code="OK") == 2
    latency = "teoti_request_duration_seconds_count"
    assert moved(engine_before, engine, latency, **link) == moves + bot_moves + 1
    assert moved(engine_before, engine, "teoti_engine_moves_appended_total") == moves + bot_moves
    assert moved(engine_before, engine, "teoti_redis_round_trip_seconds_count") > 0
    assert value(engine, "teoti_redis_errors_total") == 0
    secrets = [players.game_id, *players.tokens.values(), "127.0.0.1"]
    for samples in (engine, gateway, bot):
        assert_bounded(samples, secrets)
