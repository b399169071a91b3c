"""``teoti``: run the services, play a demo game, replay a game's log.

User-facing output goes to stdout; logs are JSON lines on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import structlog

from services.engine.clock import fixed_seed, random_seed
from services.engine.errors import CorruptLog, UnknownRuleset
from services.engine.game import GAME_CREATED, fold
from services.engine.ruleset import DomainEvent
from services.engine.rulesets import (
    DEFAULT_RULESET,
    RulesetRegistry,
    default_registry,
    lazy_factory,
)
from services.engine.store.records import EventMetadata, StoredEvent, canonical_json
from services.logging_setup import configure_logging

log = structlog.get_logger("teoti")


def _registry(extra: Sequence[str]) -> RulesetRegistry:
    """Default registry plus ``NAME=module:Class`` entries (importable from the cwd)."""
    registry = default_registry()
    if extra and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like uvicorn's --app-dir: rulesets from a checkout
    for item in extra:
        name, _, target = item.partition("=")
        if not target:
            raise SystemExit(f"--extra-ruleset wants NAME=module:Class, got {item!r}")
        registry.register(name, lazy_factory(target))
    return registry


def _stop_event() -> asyncio.Event:
    """An event set on SIGINT/SIGTERM (graceful shutdown)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


@contextlib.contextmanager
def _redis(url: str | None, data_dir: Path | None, persist: bool) -> Any:
    """Yield a Redis URL: the given one, else an embedded redis-server for the duration."""
    if url:
        yield url
        return
    from services.embedded_redis import EmbeddedRedis

    server = EmbeddedRedis(data_dir=data_dir, persist=persist).start()
    log.info("embedded_redis_started", url=server.url, data_dir=str(server.data_dir))
    try:
        yield server.url
    finally:
        server.stop()
        log.info("embedded_redis_stopped")


def _need_redis(args: argparse.Namespace) -> str:
    if not args.redis_url:
        raise SystemExit(
            f"teoti {args.command}: give --redis-url or REDIS_URL (shared with the other services)"
        )
    return str(args.redis_url)


async def _serve(args: argparse.Namespace) -> int:
    from services.app import all_in_one

    registry = _registry(args.extra_ruleset)
    data_dir = Path(args.data_dir) if args.data_dir else None
    with _redis(args.redis_url, data_dir, persist=True) as url:
        async with all_in_one(
            url, f"{args.host}:{args.port}", registry, default_ruleset=args.ruleset
        ) as stack:
            log.info("teoti_serve_ready", port=stack.port)
            await _stop_event().wait()
    return 0


async def _engine(args: argparse.Namespace) -> int:
    from services.app import run_engine

    await run_engine(
        _need_redis(args), f"{args.host}:{args.port}", _registry(args.extra_ruleset), _stop_event()
    )
    return 0


async def _gateway(args: argparse.Namespace) -> int:
    from services.app import run_gateway

    await run_gateway(
        _need_redis(args),
        f"{args.host}:{args.port}",
        args.engine,
        _registry(args.extra_ruleset),
        _stop_event(),
    )
    return 0


async def _bot(args: argparse.Namespace) -> int:
    from services.app import run_bot

    await run_bot(
        _need_redis(args),
        args.engine,
        _registry(args.extra_ruleset),
        _stop_event(),
        args.concurrency,
    )
    return 0


@contextlib.asynccontextmanager
async def _target(args: argparse.Namespace, registry: RulesetRegistry) -> AsyncIterator[str]:
    """The gateway to talk to: --target, or an embedded server for this run."""
    if args.target:
        yield str(args.target)
        return
    from services.app import all_in_one

    seeds = fixed_seed(str(args.seed)) if getattr(args, "seed", None) is not None else random_seed
    with _redis(os.environ.get("REDIS_URL"), None, persist=False) as url:
        async with all_in_one(url, "127.0.0.1:0", registry, seed_source=seeds) as stack:
            yield f"127.0.0.1:{stack.port}"


def _domain(event: Any) -> DomainEvent:
    return DomainEvent(event.type, json.loads(event.payload_json), event.schema_version)


def _describe(registry: RulesetRegistry, ruleset_name: str, event: DomainEvent) -> tuple[bool, str]:
    """(is milestone, description) using the local ruleset if available."""
    if event.type == GAME_CREATED:
        return True, f"game created ({ruleset_name}, {len(event.payload.get('seats', []))} seats)"
    try:
        ruleset = registry.get(ruleset_name)
    except UnknownRuleset:
        return False, event.type
    return bool(ruleset.is_milestone(event)), ruleset.describe_event(event)


async def _demo(args: argparse.Namespace) -> int:
    from services.rpc.stubs import load_stubs

    stubs = load_stubs()
    pb = stubs.game_pb2
    registry = _registry(args.extra_ruleset)
    if args.target and args.seed is not None:
        log.warning("seed_ignored_with_target", reason="the remote server chooses game seeds")
    async with _target(args, registry) as target, grpc.aio.insecure_channel(target) as channel:
        stub = stubs.game_pb2_grpc.GameServiceStub(channel)
        seats = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"Bot {i + 1}") for i in range(args.players)]
        options = args.options
        if args.solo:  # RULES.md §8: seat 0 (a bot standing in for the human), seat 1 Teotibot
            seats = [
                pb.Seat(kind=pb.SEAT_KIND_BOT, name="Human (greedy bot)"),
                pb.Seat(kind=pb.SEAT_KIND_BOT, name="Teotibot"),
            ]
            options = json.dumps({**json.loads(args.options or "{}"), "solo": True})
        created = await stub.CreateGame(
            pb.CreateGameRequest(
                ruleset=args.ruleset,
                seats=seats,
                options_json=options,
                command_id=f"demo:{uuid.uuid4().hex}",
            )
        )
        print(f"game {created.game_id} ({args.ruleset}, {len(seats)} bots) via {target}")
        count = 0

        async def follow() -> None:
            nonlocal count
            async for event in stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id)):
                count += 1
                milestone, text = _describe(registry, args.ruleset, _domain(event))
                if milestone:
                    print(f"  v{event.version:>5}  {text}", flush=True)
                elif count % 100 == 0:
                    print(f"  ... {count} events", flush=True)

        await asyncio.wait_for(follow(), args.timeout)
        final = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id))
    print(f"finished after {final.version} events")
    for place, seat in enumerate(final.result.ranking, start=1):
        print(
            f"  {place}. {final.seats[seat].name} (seat {seat}): {final.result.scores[seat]} points"
        )
    print(f"game id: {created.game_id}")
    return 0 if final.finished else 1


def _check_log(events: Sequence[StoredEvent]) -> list[str]:
    problems = []
    if [e.version for e in events] != list(range(1, len(events) + 1)):
        problems.append("versions are not 1..N contiguous")
    if not events or events[0].type != GAME_CREATED:
        problems.append("log does not start with GameCreated")
    return problems


async def _replay(args: argparse.Namespace) -> int:
    from services.rpc.stubs import load_stubs

    stubs = load_stubs()
    pb = stubs.game_pb2
    registry = _registry(args.extra_ruleset)
    target = args.target or "127.0.0.1:50051"
    async with grpc.aio.insecure_channel(target) as channel:
        stub = stubs.game_pb2_grpc.GameServiceStub(channel)
        listed = await stub.ListEvents(pb.ListEventsRequest(game_id=args.game_id))
        stored = await stub.GetGame(pb.GetGameRequest(game_id=args.game_id))
    events = [
        StoredEvent(
            e.version,
            e.type,
            e.schema_version,
            json.loads(e.payload_json),
            EventMetadata(e.metadata.command_id, e.metadata.seat, e.metadata.recorded_at),
        )
        for e in listed.events
    ]
    problems = _check_log(events)
    ruleset_name = str(events[0].payload.get("ruleset", "")) if events else ""
    print(f"game {args.game_id}: {len(events)} events, ruleset {ruleset_name}")
    for event in events:
        milestone, text = _describe(registry, ruleset_name, event.to_domain())
        if milestone:
            print(f"  v{event.version:>5}  {text}")
    try:
        snapshot = fold(args.game_id, events, registry)
    except (CorruptLog, UnknownRuleset, KeyError, ValueError, TypeError, AssertionError) as exc:
        problems.append(f"cannot fold the log: {exc!r}")
    else:
        rebuilt = canonical_json(snapshot.ruleset.view(snapshot.state, None))
        if snapshot.version != stored.version:
            problems.append(f"rebuilt version {snapshot.version} != stored {stored.version}")
        if rebuilt != canonical_json(json.loads(stored.state_json)):
            problems.append("rebuilt state differs from the stored projection")
        result = snapshot.ruleset.result(snapshot.state)
        if result is not None:
            print(f"final scores {list(result.scores)}, ranking {list(result.ranking)}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if args.verify:
        print("verify: OK" if not problems else "verify: FAILED")
        return 1 if problems else 0
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``teoti`` argument parser (subcommands: serve engine gateway bot demo replay)."""
    parser = argparse.ArgumentParser(prog="teoti", description=__doc__)
    parser.add_argument("--log-level", default=os.environ.get("TEOTI_LOG_LEVEL", "INFO"))
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--extra-ruleset",
            action="append",
            default=[],
            metavar="NAME=module:Class",
            help="register another ruleset (importable from the current directory)",
        )

    def redis_opt(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--redis-url",
            default=os.environ.get("REDIS_URL"),
            help="Redis URL (default: $REDIS_URL)",
        )

    serve = sub.add_parser("serve", help="gateway + engine + bot worker in one process")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=50051)
    serve.add_argument(
        "--data-dir",
        default=".teoti/redis",
        help="embedded Redis data folder (used when no Redis URL is given)",
    )
    serve.add_argument("--ruleset", default=DEFAULT_RULESET, help="default ruleset of CreateGame")
    redis_opt(serve)
    common(serve)
    serve.set_defaults(run=_serve)

    engine = sub.add_parser("engine", help="EngineService alone")
    engine.add_argument("--host", default="127.0.0.1")
    engine.add_argument("--port", type=int, default=50052)
    redis_opt(engine)
    common(engine)
    engine.set_defaults(run=_engine)

    gateway = sub.add_parser("gateway", help="GameService alone (writes via --engine)")
    gateway.add_argument("--host", default="127.0.0.1")
    gateway.add_argument("--port", type=int, default=50051)
    gateway.add_argument("--engine", default="127.0.0.1:50052", metavar="HOST:PORT")
    redis_opt(gateway)
    common(gateway)
    gateway.set_defaults(run=_gateway)

    bot = sub.add_parser("bot", help="bot worker alone (writes via --engine)")
    bot.add_argument("--engine", default="127.0.0.1:50052", metavar="HOST:PORT")
    bot.add_argument("--concurrency", type=int, default=4)
    redis_opt(bot)
    common(bot)
    bot.set_defaults(run=_bot)

    demo = sub.add_parser("demo", help="play an all-bot game and print its progress and scores")
    demo.add_argument("--target", metavar="HOST:PORT", help="gateway to use (default: embedded)")
    demo.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    demo.add_argument("--seed", help="game seed (embedded server only)")
    demo.add_argument("--ruleset", default=DEFAULT_RULESET)
    demo.add_argument("--options", default="", help="ruleset options as a JSON object")
    demo.add_argument(
        "--solo", action="store_true", help="a solo game against Teotibot (a bot plays the human)"
    )
    demo.add_argument("--timeout", type=float, default=600.0, help="seconds before giving up")
    common(demo)
    demo.set_defaults(run=_demo)

    replay = sub.add_parser("replay", help="rebuild a game from its log and summarise it")
    replay.add_argument("game_id")
    replay.add_argument("--target", metavar="HOST:PORT", help="gateway (default 127.0.0.1:50051)")
    replay.add_argument(
        "--verify",
        action="store_true",
        help="exit 1 if the log is inconsistent or the rebuilt state differs",
    )
    common(replay)
    replay.set_defaults(run=_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``teoti`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.log_level)
    try:
        code: int = asyncio.run(args.run(args))
    except grpc.aio.AioRpcError as error:
        print(f"error: {error.code().name}: {error.details()}", file=sys.stderr)
        return 2
    except TimeoutError:
        print("error: timed out", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
