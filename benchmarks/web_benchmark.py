"""The web face's extra latency per move, against native gRPC (issues 16 and 18).

One ``teoti serve`` (a real process, on ``--redis-url`` / ``REDIS_URL`` or an embedded
Redis) with both faces. Two-person Nim games are played one move at a time, alternating
the path move by move so all see the same machine: a move is SubmitAction with
return_view (the seat's view and next legal actions in the reply, one round trip per
move), sent as

- ``grpc``: a unary call over a kept-open gRPC channel;
- ``grpc-play``: a message on one open GameService.Play stream (same channel);
- ``web``: HTTP/JSON over a kept-open HTTP/1.1 connection (httpx);
- ``ws``: a JSON frame on one open Play WebSocket of the web face (the ``websockets``
  client, permessage-deflate negotiated as browsers do).

Each of ``--reps`` repetitions plays ``--moves`` moves per path (the order of the paths
rotating per repetition); prints min / median / p90 / p99 / max per path and
repetition, each path's median extra over ``grpc``, min / median / max of the
repetitions' medians, and every error.

    python -m benchmarks.web_benchmark --moves 400 --reps 3
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
from websockets.asyncio.client import ClientConnection, connect

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


class Play:
    """One open Play stream or socket and its next request_id."""

    def __init__(self) -> None:
        self.next_id = 0

    def request(self, game: Game) -> Any:
        self.next_id += 1
        return pb.PlayRequest(
            request_id=self.next_id,
            submit_action=pb.SubmitActionRequest(
                game_id=game.game_id,
                seat=game.seat,
                action_json='{"take":1}',
                seat_token=TOKENS[game.seat],
                return_view=True,
            ),
        )


async def grpc_play_move(call: Any, play: Play, game: Game) -> float:
    request = play.request(game)
    started = time.perf_counter()
    await call.write(request)
    answer = await call.read()
    took = time.perf_counter() - started
    if answer.WhichOneof("response") != "submit_action":
        raise RuntimeError(f"refused: {answer.error.message[:200]}")
    reply = answer.submit_action
    follow(game, list(reply.game.seats_to_act), reply.game.finished, [])
    return took


async def ws_move(socket: ClientConnection, play: Play, game: Game) -> float:
    request = play.request(game)
    frame = json.dumps(
        {
            "request_id": request.request_id,
            "submit_action": {
                "game_id": game.game_id,
                "seat": game.seat,
                "action_json": '{"take":1}',
                "seat_token": TOKENS[game.seat],
                "return_view": True,
            },
        }
    )
    started = time.perf_counter()
    await socket.send(frame)
    answer = json.loads(await socket.recv())
    took = time.perf_counter() - started
    if "submit_action" not in answer:
        raise RuntimeError(f"refused: {json.dumps(answer)[:200]}")
    reply = answer["submit_action"]
    follow(game, reply["game"]["seats_to_act"], reply["game"]["finished"], [])
    return took


FACES = ("grpc", "grpc-play", "web", "ws")


def summary(name: str, samples: list[float]) -> None:
    print(
        f"{name:>9}: n={len(samples)} min={min(samples) * 1000:.2f} "
        f"median={statistics.median(samples) * 1000:.2f} p90={percentile(samples, 90):.2f} "
        f"p99={percentile(samples, 99):.2f} max={max(samples) * 1000:.2f} ms"
    )


async def run(moves: int, reps: int, url: str) -> int:
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
    medians: dict[str, list[float]] = {face: [] for face in FACES}
    try:
        await serving(service)
        async with (
            grpc.aio.insecure_channel(service.target) as channel,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}", timeout=30) as http,
            connect(f"ws://127.0.0.1:{web_port}{SERVICE}Play") as socket,
        ):
            assert (await http.get("/healthz")).status_code == 200
            stub = pb_grpc.GameServiceStub(channel)
            call = stub.Play()
            plays = {"grpc-play": Play(), "ws": Play()}

            async def move(face: str, game: Game) -> float:
                if face == "grpc":
                    return await grpc_move(stub, game)
                if face == "grpc-play":
                    return await grpc_play_move(call, plays[face], game)
                if face == "web":
                    return await web_move(http, game)
                return await ws_move(socket, plays[face], game)

            games = {face: await new_game(stub) for face in FACES}
            for face in FACES:  # warm every path (connections, caches)
                for _ in range(3):
                    await move(face, games[face])
                games[face] = await new_game(stub)
            for rep in range(reps):
                order = FACES[rep % len(FACES) :] + FACES[: rep % len(FACES)]
                timings: dict[str, list[float]] = {face: [] for face in FACES}
                for _ in range(moves):
                    for face in order:
                        game = games[face]
                        if game.finished:
                            game = games[face] = await new_game(stub)
                        try:
                            timings[face].append(await move(face, game))
                        except Exception as error:
                            errors.add(face, error)
                            games[face] = await new_game(stub)
                print(f"repetition {rep + 1}: {moves} moves per path, order {', '.join(order)}")
                for face in FACES:
                    if timings[face]:
                        summary(face, timings[face])
                        medians[face].append(statistics.median(timings[face]))
                for face in FACES[1:]:
                    if timings[face] and timings["grpc"]:
                        extra = statistics.median(timings[face]) - statistics.median(
                            timings["grpc"]
                        )
                        print(f"{face:>9}: median extra over grpc {extra * 1000:+.2f} ms")
            call.cancel()
    finally:
        service.stop()
    print(f"over {reps} repetitions (SubmitAction with return_view, Nim, one client):")
    for face in FACES:
        if medians[face]:
            ms = sorted(m * 1000 for m in medians[face])
            print(
                f"{face:>9}: median per repetition min={ms[0]:.2f} "
                f"median={statistics.median(ms):.2f} max={ms[-1]:.2f} ms"
            )
    errors.report()
    print(json.dumps({face: len(m) for face, m in medians.items()}))
    return 1 if errors.total else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=400, help="moves per path and repetition")
    parser.add_argument("--reps", type=int, default=3, help="repetitions (paths interleaved)")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    with redis_url(args.redis_url) as url:
        return asyncio.run(run(args.moves, args.reps, url))


if __name__ == "__main__":
    raise SystemExit(main())
