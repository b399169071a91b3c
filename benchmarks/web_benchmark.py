"""The web face's extra latency per move, against native gRPC (issue 18).

One ``teoti serve`` (a real process, on ``--redis-url`` / ``REDIS_URL`` or an embedded
Redis) with both faces. Two-person Nim games are played one move at a time, alternating
the face move by move so both see the same machine: a move is SubmitAction with
return_view (the seat's view and next legal actions in the reply, one round trip per
move) over a kept-open gRPC channel, or the same request as HTTP/JSON over a kept-open
HTTP/1.1 connection (httpx). Prints min / median / p90 / p99 / max per face, the median
difference, and every error.

    python -m benchmarks.web_benchmark --moves 400
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from typing import Any

import grpc
import httpx
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc

from benchmarks.harness import NIM, UNLIMITED, Errors, Service, percentile, redis_url, serving
from services.embedded_redis import free_port

SERVICE = "/gameserver.v1.GameService/"
TOKENS = ("ann-bench-0123456789abcdef", "bob-bench-0123456789abcdef")


class Game:
    """A two-person Nim game and whose turn it is (from the last reply)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.seat = 0
        self.action = '{"take":1}'
        self.finished = False


async def new_game(stub: Any) -> Game:
    reply = await stub.CreateGame(
        pb.CreateGameRequest(
            ruleset="nim",
            seats=[
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=f"p{i}", token=t)
                for i, t in enumerate(TOKENS)
            ],
        )
    )
    game = Game(reply.game_id)
    view = await stub.GetGame(pb.GetGameRequest(game_id=game.game_id))
    game.seat = view.seats_to_act[0]
    return game


def follow(game: Game, to_act: list[int], finished: bool, actions: list[str]) -> None:
    game.finished = finished
    if not finished:
        game.seat = to_act[0]
        game.action = actions[0] if actions else '{"take":1}'


async def grpc_move(stub: Any, game: Game) -> float:
    request = pb.SubmitActionRequest(
        game_id=game.game_id,
        seat=game.seat,
        action_json='{"take":1}',
        seat_token=TOKENS[game.seat],
        return_view=True,
    )
    started = time.perf_counter()
    reply = await stub.SubmitAction(request)
    took = time.perf_counter() - started
    # The mover's own next actions are empty (the other seat acts): read whose turn.
    follow(game, list(reply.game.seats_to_act), reply.game.finished, [])
    return took


async def web_move(http: httpx.AsyncClient, game: Game) -> float:
    body = {
        "game_id": game.game_id,
        "seat": game.seat,
        "action_json": '{"take":1}',
        "return_view": True,
    }
    headers = {"authorization": f"Bearer {TOKENS[game.seat]}"}
    started = time.perf_counter()
    response = await http.post(SERVICE + "SubmitAction", json=body, headers=headers)
    took = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
    reply = response.json()
    follow(game, reply["game"]["seats_to_act"], reply["game"]["finished"], [])
    return took


def summary(name: str, samples: list[float]) -> None:
    print(
        f"{name:>5}: n={len(samples)} min={min(samples) * 1000:.2f} "
        f"median={statistics.median(samples) * 1000:.2f} p90={percentile(samples, 90):.2f} "
        f"p99={percentile(samples, 99):.2f} max={max(samples) * 1000:.2f} ms"
    )


async def run(moves: int, url: str) -> int:
    web_port = free_port()
    prefix = f"bench-web-{uuid.uuid4().hex[:8]}"
    service = Service(
        [
            "serve",
            "--web-port",
            str(web_port),
            "--redis-url",
            url,
            "--key-prefix",
            prefix,
            *NIM,
            *UNLIMITED,
        ]
    ).start()
    errors = Errors()
    timings: dict[str, list[float]] = {"grpc": [], "web": []}
    try:
        await serving(service)
        async with (
            grpc.aio.insecure_channel(service.target) as channel,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}", timeout=30) as http,
        ):
            assert (await http.get("/healthz")).status_code == 200
            stub = pb_grpc.GameServiceStub(channel)
            games = {"grpc": await new_game(stub), "web": await new_game(stub)}
            for face in ("grpc", "web"):  # warm both paths (connections, caches)
                for _ in range(3):
                    await (
                        grpc_move(stub, games[face])
                        if face == "grpc"
                        else web_move(http, games[face])
                    )
                games[face] = await new_game(stub)
            for _ in range(moves):
                for face in ("grpc", "web"):
                    game = games[face]
                    if game.finished:
                        game = games[face] = await new_game(stub)
                    try:
                        took = await (
                            grpc_move(stub, game) if face == "grpc" else web_move(http, game)
                        )
                        timings[face].append(took)
                    except Exception as error:
                        errors.add(face, error)
                        games[face] = await new_game(stub)
    finally:
        service.stop()
    print(f"moves per face: {moves} (SubmitAction with return_view, Nim, one client)")
    for face in ("grpc", "web"):
        if timings[face]:
            summary(face, timings[face])
    if timings["grpc"] and timings["web"]:
        extra = statistics.median(timings["web"]) - statistics.median(timings["grpc"])
        print(f"web face extra latency (median): {extra * 1000:+.2f} ms")
    errors.report()
    print(json.dumps({face: len(t) for face, t in timings.items()}))
    return 1 if errors.total else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=400, help="moves per face")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    with redis_url(args.redis_url) as url:
        return asyncio.run(run(args.moves, url))


if __name__ == "__main__":
    raise SystemExit(main())
