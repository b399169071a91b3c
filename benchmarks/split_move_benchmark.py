"""The split deployment's command path in one process: what a move costs the gateway's
and the engine's Python, without the public gRPC face (issue 16).

A gateway's :class:`GameServicer` answers Play messages (``SubmitAction`` with
``return_view``, as the peer benchmark's client plays) with ``play_answer``; its
:class:`RemoteEngineClient` sends the commands on the engine link to an engine served in
the same process, on a real Redis.
``--games`` Nim games are played at once (two seats, a pile of 10..20, every move takes
1), a finished game replaced by a new one, so creation is in the figure as in the peer
benchmark. After a one-second warm-up it reports this process's CPU (user+system) per
accepted move in microseconds and the moves per second, over ``--reps`` windows of
``--seconds``, min / median / max.

The peer benchmark measures two real processes, whose wake-ups and gRPC face swing with
the machine; this one shows a change to the gateway's or the engine's own work above
that noise. ``--moves N`` instead plays exactly N moves one at a time and reports
nothing but errors: run under ``valgrind --tool=callgrind`` with two values of N, the
difference of the instruction totals over the difference of N is the instructions per
move, which two checkouts can be compared on to a per cent (docs/performance.md, the
eleventh round). Every error is counted and printed; exit status 1 if there was one.

Run from the repository root::

    .venv/bin/python -m benchmarks.split_move_benchmark [--games 1,10,100] [--seconds 4]
        [--reps 3] [--redis-url URL] [--moves N]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from teoti_client.proto import game_service_pb2

from benchmarks.process_cpu import add_window_options, cpu_per_move, print_windows, run_on_redis
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.remote import RemoteEngineClient
from services.gateway.servicer import GameServicer
from services.logging_setup import configure_logging
from services.rpc.limits import ClientRateLimiter, CreationQuota
from tests.engine_serving import engine_served
from tests.nim import NimRuleset
from tests.servicer_context import Refused, ServicerContext

pb = game_service_pb2


@asynccontextmanager
async def split_path(
    redis_url: str,
) -> AsyncIterator[tuple[GameServicer, RemoteEngineClient]]:
    """A gateway servicer whose engine client talks to an engine's link served on
    loopback in this process, each with a store of its own on ``redis_url`` under a
    fresh key prefix."""
    registry = RulesetRegistry()
    registry.register("nim", NimRuleset)
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    # One client plays every seat and creates every game: the per-client limits would
    # stop it (as the peer benchmark's gateway runs with them off).
    unlimited = ClientRateLimiter(rate=1e12, burst=1e12)
    quota = CreationQuota(per_hour=1e12, burst=1e12)
    async with AsyncExitStack() as stack:
        engine_store = RedisEventStore.from_url(redis_url, prefix=prefix)
        stack.push_async_callback(engine_store.close)
        gateway_store = RedisEventStore.from_url(redis_url, prefix=prefix)
        stack.push_async_callback(gateway_store.close)
        engine = Engine(engine_store, registry)
        _server, port = await stack.enter_async_context(engine_served(engine))
        client = RemoteEngineClient(f"127.0.0.1:{port}")
        stack.push_async_callback(client.close)
        reader = GameReader(gateway_store, registry)
        yield GameServicer(reader, client, limiter=unlimited, quota=quota), client


async def play_games(
    path: tuple[GameServicer, RemoteEngineClient],
    errors: Counter[str],
    stop: asyncio.Event,
    tally: list[int],
    limit: int = 0,
) -> None:
    """Play Nim games one after another until ``stop`` is set (or ``tally[0]``, the moves
    accepted so far, reaches ``limit`` if > 0), adding each accepted move to
    ``tally[0]``. A refused move is counted in ``errors`` and ends the call."""
    servicer = path[0]
    context = ServicerContext()

    def more() -> bool:
        return not stop.is_set() and not (limit and tally[0] >= limit)

    while more():
        tokens = [uuid.uuid4().hex + uuid.uuid4().hex for _ in range(2)]
        try:  # as a client creates one: the gateway caches the new game it reports
            created = await servicer.CreateGame(
                pb.CreateGameRequest(
                    ruleset="nim",
                    seats=[
                        pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=name, token=token)
                        for name, token in zip(("ann", "bob"), tokens, strict=True)
                    ],
                    options_json='{"max_take":3}',
                ),
                context,
            )
        except Refused as refusal:
            errors[f"CreateGame: {refusal}"[:140]] += 1
            return
        seat, request_id = 0, 0
        while more():
            request_id += 1
            reply = await servicer.play_answer(
                pb.PlayRequest(
                    request_id=request_id,
                    submit_action=pb.SubmitActionRequest(
                        game_id=created.game_id,
                        seat=seat,
                        seat_token=tokens[seat],
                        action_json='{"take":1}',
                        command_id=hashlib.sha256(uuid.uuid4().bytes).hexdigest()[:32],
                        return_view=True,
                    ),
                ),
                context,
            )
            if reply.WhichOneof("response") != "submit_action":
                errors[f"{reply.error.code}: {reply.error.message[:120]}"] += 1
                return
            tally[0] += 1
            game: Any = reply.submit_action.game
            if game.finished:
                break
            seat = game.seats_to_act[0]


async def window(
    redis_url: str, games: int, seconds: float, errors: Counter[str]
) -> tuple[float, float]:
    """``(CPU µs per accepted move, moves per second)`` of ``games`` concurrent games
    over ``seconds`` after the warm-up. Raises RuntimeError if no move was accepted."""
    async with split_path(redis_url) as path:
        stop = asyncio.Event()
        tally = [0]

        async def player() -> None:
            while not stop.is_set():  # a refusal ends a game, not the player
                try:
                    await play_games(path, errors, stop, tally)
                except Exception as exc:  # counted and shown, never lost with the task
                    errors[f"{type(exc).__name__}: {exc}"[:140]] += 1
                    await asyncio.sleep(0.01)

        players = [asyncio.create_task(player()) for _ in range(games)]
        try:
            return await cpu_per_move(lambda: tally[0], seconds)
        finally:
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_window_options(parser)
    parser.add_argument(
        "--moves", type=int, default=0, help="play exactly this many moves, one at a time"
    )
    args = parser.parse_args(argv)
    configure_logging("WARNING")
    errors: Counter[str] = Counter()

    async def measure(url: str) -> None:
        if args.moves:
            async with split_path(url) as path:
                tally = [0]
                while tally[0] < args.moves and sum(errors.values()) < 100:
                    await play_games(path, errors, asyncio.Event(), tally, args.moves)
            print(f"{tally[0]} moves", flush=True)
            return
        await print_windows(
            args.games,
            args.reps,
            lambda games: window(url, games, args.seconds, errors),
        )

    run_on_redis(args.redis_url, measure)
    print(f"errors: {sum(errors.values())}", flush=True)
    for message, count in errors.most_common():
        print(f"  {count} x {message}", flush=True)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
