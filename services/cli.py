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

from services.embedded_redis import DataDirInUse
from services.engine.audit import audit_log
from services.engine.clock import fixed_seed, random_seed
from services.engine.engine_events import ENGINE_EVENTS, GAME_CREATED, SEED_REVEALED
from services.engine.errors import (
    CorruptLog,
    GameNotFound,
    InvalidArgument,
    NotAuthorized,
    RuleViolation,
    UnknownRuleset,
    VersionConflict,
)
from services.engine.game import fold
from services.engine.ruleset import DomainEvent
from services.engine.rulesets import (
    DEFAULT_RULESET,
    RulesetRegistry,
    default_registry,
    lazy_factory,
)
from services.engine.snapshots import DEFAULT_SNAPSHOT_EVERY
from services.engine.store.keys import DEFAULT_SHARDS
from services.engine.store.records import canonical_json
from services.event_loop import run_service
from services.logging_setup import LEVELS, configure_logging
from services.rpc.server import AddressInUse

log = structlog.get_logger("teoti")

ENGINE_HELP = (
    "engine(s): HOST:PORT, IP:PORT,IP:PORT, or a gRPC target such as dns:///engines:50052 "
    "(calls are balanced round robin)"
)


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


def _store_settings(args: argparse.Namespace) -> Any:
    from services.app import StoreSettings

    return StoreSettings(args.key_prefix, args.shards, args.snapshot_every)


def _redis_config(args: argparse.Namespace) -> Any:
    """The Redis of a service command: flags, else REDIS_CLUSTER_NODES, else REDIS_URL."""
    from services.engine.store.redis_client import RedisConfig

    try:
        return RedisConfig.resolve(args.redis_url, args.redis_cluster_nodes)
    except ValueError as exc:
        raise SystemExit(f"teoti {args.command}: {exc}") from None


def _need_redis(args: argparse.Namespace) -> Any:
    config = _redis_config(args)
    if config is None:
        raise SystemExit(
            f"teoti {args.command}: give --redis-url / REDIS_URL, or --redis-cluster-nodes / "
            "REDIS_CLUSTER_NODES (shared with the other services)"
        )
    return config


async def _serve(args: argparse.Namespace) -> int:
    from services.app import all_in_one

    registry = _registry(args.extra_ruleset)
    data_dir = Path(args.data_dir) if args.data_dir else None
    config = _redis_config(args)
    with contextlib.ExitStack() as resources:
        if config is None:  # no Redis given: an embedded one for this run
            config = resources.enter_context(_redis(None, data_dir, persist=True))
        async with all_in_one(
            config,
            f"{args.host}:{args.port}",
            registry,
            key_prefix=args.key_prefix,
            default_ruleset=args.ruleset,
            shards=args.shards,
            snapshot_every=args.snapshot_every,
        ) as stack:
            log.info("teoti_serve_ready", port=stack.port)
            await _stop_event().wait()
    return 0


async def _engine(args: argparse.Namespace) -> int:
    from services.app import run_engine

    await run_engine(
        _need_redis(args),
        f"{args.host}:{args.port}",
        _registry(args.extra_ruleset),
        _stop_event(),
        _store_settings(args),
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
        _store_settings(args),
    )
    return 0


async def _bot(args: argparse.Namespace) -> int:
    from services.app import BotSettings, run_bot

    await run_bot(
        _need_redis(args),
        args.engine,
        _registry(args.extra_ruleset),
        _stop_event(),
        _store_settings(args),
        BotSettings(
            args.concurrency,
            args.claim_idle_ms,
            args.max_deliveries,
            f"0.0.0.0:{args.health_port}" if args.health_port else "",
        ),
    )
    return 0


async def _redis_acl(args: argparse.Namespace) -> int:
    from services.engine.store.acl import MIN_REDIS, redis_cli_lines

    try:
        version = tuple(int(part) for part in args.redis_version.split("."))
    except ValueError:
        print(f"error: --redis-version {args.redis_version!r} is not MAJOR.MINOR", file=sys.stderr)
        return 2
    if version < MIN_REDIS:
        print(
            f"error: Redis {args.redis_version} is too old; these ACL rules need Redis "
            f"{'.'.join(map(str, MIN_REDIS))} or newer",
            file=sys.stderr,
        )
        return 2
    for line in redis_cli_lines(args.key_prefix, version, args.cluster):
        print(line)
    return 0


@contextlib.asynccontextmanager
async def _target(
    args: argparse.Namespace, registry: RulesetRegistry, bot_pause_s: float = 0.0
) -> AsyncIterator[str]:
    """The gateway to talk to: --target, or an embedded server for this run (whose bots
    wait ``bot_pause_s`` before each move)."""
    if args.target:
        yield str(args.target)
        return
    from services.app import all_in_one

    seeds = fixed_seed(str(args.seed)) if getattr(args, "seed", None) is not None else random_seed
    with _redis(os.environ.get("REDIS_URL"), None, persist=False) as url:
        async with all_in_one(
            url, "127.0.0.1:0", registry, seed_source=seeds, bot_pause_s=bot_pause_s
        ) as stack:
            yield f"127.0.0.1:{stack.port}"


def _describe(registry: RulesetRegistry, ruleset_name: str, event: DomainEvent) -> tuple[bool, str]:
    """(is milestone, description) using the local ruleset if available."""
    if event.type == GAME_CREATED:
        return True, f"game created ({ruleset_name}, {len(event.payload.get('seats', []))} seats)"
    if event.type == SEED_REVEALED:
        return True, f"seed revealed: {event.payload.get('seed')}"
    if event.type in ENGINE_EVENTS:
        return False, event.type
    try:
        ruleset = registry.get(ruleset_name)
    except UnknownRuleset:
        return False, event.type
    return bool(ruleset.is_milestone(event)), ruleset.describe_event(event)


async def _demo(args: argparse.Namespace) -> int:
    from services.client import SeatInfo, TeotiClient

    registry = _registry(args.extra_ruleset)
    if args.target and args.seed is not None:
        log.warning("seed_ignored_with_target", reason="the remote server chooses game seeds")
    seats = [SeatInfo("bot", f"Bot {i + 1}") for i in range(args.players)]
    options = json.loads(args.options) if args.options else {}
    if args.solo:  # RULES.md §8: seat 0 (a bot standing in for the human), seat 1 Teotibot
        seats = [SeatInfo("bot", "Human (greedy bot)"), SeatInfo("bot", "Teotibot")]
        options = {**options, "solo": True}
    async with _target(args, registry) as target, TeotiClient(target) as client:
        created = await client.create_game(
            seats,
            ruleset=args.ruleset,
            options=options,
            command_id=f"demo:{uuid.uuid4().hex}",
        )
        print(f"game {created.game_id} ({args.ruleset}, {len(seats)} bots) via {target}")
        count = 0

        async def follow() -> None:
            nonlocal count
            async for event in client.watch(created.game_id):
                count += 1
                milestone, text = _describe(registry, args.ruleset, event.to_domain())
                if milestone:
                    print(f"  v{event.version:>5}  {text}", flush=True)
                elif count % 100 == 0:
                    print(f"  ... {count} events", flush=True)

        await asyncio.wait_for(follow(), args.timeout)
        final = await client.get_game(created.game_id)
    print(f"finished after {final.version} events")
    for place, seat in enumerate(final.ranking, start=1):
        score = final.scores[seat]
        unit = "point" if score == 1 else "points"
        print(f"  {place}. {final.seats[seat].name} (seat {seat}): {score} {unit}")
    print(f"game id: {created.game_id}")
    return 0 if final.finished else 1


async def _play(args: argparse.Namespace) -> int:
    from services.tui import launch

    launch.log_to_file(Path(args.log_file), args.log_level)
    options = json.loads(args.options) if args.options else {}
    if args.join and not args.target:  # a game to join lives on a running server
        args.target = "127.0.0.1:50051"
    async with _target(args, _registry(args.extra_ruleset)) as target:
        return await launch.play(
            target,
            name=args.name,
            players=args.players,
            solo=not args.players_given,
            join=args.join,
            token=args.token,
            seat=args.seat,
            options=options,
        )


async def _watch(args: argparse.Namespace) -> int:
    from services.tui import launch

    launch.log_to_file(Path(args.log_file), args.log_level)
    if args.game_id and not args.target:
        args.target = "127.0.0.1:50051"
    if args.target and args.pace != DEFAULT_WATCH_PACE_S:
        log.warning("pace_ignored_with_target", reason="the server's bots play at its speed")
    async with _target(args, _registry(args.extra_ruleset), args.pace) as target:
        return await launch.watch(target, args.game_id, args.players)


async def _replay(args: argparse.Namespace) -> int:
    from services.client import TeotiClient

    registry = _registry(args.extra_ruleset)
    target = args.target or "127.0.0.1:50051"
    if args.step:
        from services.tui import launch

        launch.log_to_file(Path(args.log_file), args.log_level)
        return await launch.replay(target, args.game_id, registry)
    async with TeotiClient(target) as client:
        events = await client.events(args.game_id)
        stored = await client.get_game(args.game_id)
        server_report = await client.verify(args.game_id) if args.verify else None
    ruleset_name = str(events[0].payload.get("ruleset", "")) if events else ""
    print(f"game {args.game_id}: {len(events)} events, ruleset {ruleset_name}")
    for event in events:
        milestone, text = _describe(registry, ruleset_name, event.to_domain())
        if milestone:
            print(f"  v{event.version:>5}  {text}")
    if not stored.finished:
        # While a game runs, other seats' secrets are redacted from the events we may read,
        # so only the server (which holds the whole log) can check every hash now.
        print("game still running: hidden information is redacted; checked by the server")
        problems = (
            [f"server VerifyGame: {p}" for p in server_report.problems]
            if (server_report is not None and not server_report.ok)
            else []
        )
        for problem in problems:
            print(f"PROBLEM: {problem}")
        if args.verify:
            print("verify: FAILED" if problems else "verify: OK (server check of a running game)")
        return 1 if args.verify and problems else 0
    # The client re-checks everything itself: it trusts neither the server's verdict nor
    # its projection. The head is GetGame's, so events missing at the end are caught.
    report = audit_log(args.game_id, events, registry, (stored.version, stored.head_hash))
    problems = list(report.problems)
    try:
        snapshot = fold(args.game_id, events, registry)
    except (CorruptLog, UnknownRuleset, KeyError, ValueError, TypeError, AssertionError):
        pass  # already reported by the audit
    else:
        rebuilt = canonical_json(snapshot.ruleset.view(snapshot.state, None))
        if rebuilt != canonical_json(stored.state):
            problems.append("rebuilt state differs from the stored projection")
        result = snapshot.ruleset.result(snapshot.state)
        if result is not None:
            print(f"final scores {list(result.scores)}, ranking {list(result.ranking)}")
    if report.seed_revealed:
        print(f"seed: revealed, {'verified' if report.seed_verified else 'NOT verified'}")
    if server_report is not None and not server_report.ok:
        problems += [f"server VerifyGame: {p}" for p in server_report.problems]
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if args.verify:
        if problems:
            bad = report.first_bad_version or (
                server_report.first_bad_version if server_report else 0
            )
            print(f"verify: FAILED (first bad version: {bad})")
            return 1
        print(f"verify: OK (chain head {report.head_hash})")
    return 0


SERVICE_COMMANDS = frozenset({"serve", "engine", "gateway", "bot"})


def _log_level(value: str) -> str:
    """``--log-level`` (and ``$TEOTI_LOG_LEVEL``): a level name, any case; upper-cased."""
    if value.upper() not in LEVELS:
        raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(LEVELS)}")
    return value.upper()


DEFAULT_WATCH_PACE_S = 0.4
"""Seconds per bot move in ``teoti watch``'s own all-bot game: a 2-seat game in about a minute."""


def build_parser() -> argparse.ArgumentParser:
    """The ``teoti`` argument parser (serve engine gateway bot demo replay play watch)."""
    parser = argparse.ArgumentParser(prog="teoti", description=__doc__)
    parser.add_argument(
        "--log-level",
        type=_log_level,
        default=os.environ.get("TEOTI_LOG_LEVEL"),
        help="INFO for the services (serve, engine, gateway, bot); WARNING for the commands "
        "a person reads (demo, replay, play, watch), so logs don't bury their output",
    )
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
            default=None,
            help="standalone Redis URL (default: $REDIS_URL)",
        )
        p.add_argument(
            "--redis-cluster-nodes",
            default=None,
            metavar="HOST:PORT,HOST:PORT",
            help="Redis Cluster seed nodes, instead of a URL (default: $REDIS_CLUSTER_NODES)",
        )
        p.add_argument("--key-prefix", default="teoti", help="Redis key prefix (same everywhere)")
        p.add_argument(
            "--shards", type=int, default=DEFAULT_SHARDS, help="shard count (same everywhere)"
        )
        p.add_argument(
            "--snapshot-every",
            type=int,
            default=DEFAULT_SNAPSHOT_EVERY,
            help="store a snapshot every N events (0: never)",
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
    gateway.add_argument(
        "--engine", default="127.0.0.1:50052", metavar="HOST:PORT", help=ENGINE_HELP
    )
    redis_opt(gateway)
    common(gateway)
    gateway.set_defaults(run=_gateway)

    bot = sub.add_parser("bot", help="bot worker alone (writes via --engine)")
    bot.add_argument("--engine", default="127.0.0.1:50052", metavar="HOST:PORT", help=ENGINE_HELP)
    bot.add_argument("--concurrency", type=int, default=4)
    bot.add_argument(
        "--claim-idle-ms",
        type=int,
        default=30_000,
        help="reclaim turn requests pending this long (crashed workers)",
    )
    bot.add_argument(
        "--health-port",
        type=int,
        default=int(os.environ.get("TEOTI_BOT_HEALTH_PORT", "0")),
        help="serve gRPC health on this port (0: off); teotihuacan.v1.BotWorker is "
        "SERVING while the worker makes progress",
    )
    bot.add_argument(
        "--max-deliveries",
        type=int,
        default=5,
        help="dead-letter a turn request after this many deliveries",
    )
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
        help="exit 1 if the hash chain, fold, seed or rebuilt state do not check out",
    )
    replay.add_argument(
        "--step", action="store_true", help="step through the game on the terminal table"
    )
    replay.add_argument("--log-file", default=".teoti/tui.log", help="log file with --step")
    common(replay)
    replay.set_defaults(run=_replay)

    play = sub.add_parser("play", help="play on a full-screen terminal table")
    play.add_argument(
        "--target",
        metavar="HOST:PORT",
        help="gateway (default: an embedded server; 127.0.0.1:50051 with --join)",
    )
    mode = play.add_mutually_exclusive_group()
    mode.add_argument("--solo", action="store_true", help="you against Teotibot (the default)")
    mode.add_argument("--join", metavar="GAME_ID", help="play a seat of an existing game")
    mode.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="you plus bot seats (not solo)"
    )
    play.add_argument("--token", default="", help="your seat token (with --join)")
    play.add_argument("--seat", type=int, help="open seat to claim (with --join)")
    play.add_argument("--name", default="Player", help="your name at the table")
    play.add_argument("--seed", help="game seed (embedded server only)")
    play.add_argument("--options", default="", help="game options as a JSON object")
    play.add_argument("--log-file", default=".teoti/tui.log", help="where server logs go")
    common(play)
    play.set_defaults(run=_play)

    watch = sub.add_parser("watch", help="watch a game live on the terminal table")
    watch.add_argument("game_id", nargs="?", help="game to watch (default: a new all-bot game)")
    watch.add_argument(
        "--target",
        metavar="HOST:PORT",
        help="gateway (default: 127.0.0.1:50051 with a GAME_ID; without one, an embedded "
        "server for a new all-bot game)",
    )
    watch.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    watch.add_argument("--seed", help="game seed (embedded server only)")
    watch.add_argument(
        "--pace",
        type=float,
        default=DEFAULT_WATCH_PACE_S,
        metavar="SECONDS",
        help="embedded server only: each bot move waits this long, so you can follow "
        f"the game (default {DEFAULT_WATCH_PACE_S}; 0: full speed)",
    )
    watch.add_argument("--log-file", default=".teoti/tui.log", help="where server logs go")
    common(watch)
    watch.set_defaults(run=_watch)
    acl = sub.add_parser(
        "redis-acl",
        help="print the redis-cli ACL SETUSER lines of the engine, gateway and bot users",
        description="One Redis user per service, so the gateway and the bot worker cannot "
        "read the games' secret seeds (docs/operations.md, 'Redis users'). The lines read "
        "the passwords from $REDIS_ENGINE_PASSWORD, $REDIS_GATEWAY_PASSWORD and "
        "$REDIS_BOT_PASSWORD when run.",
    )
    acl.add_argument("--key-prefix", default="teoti", help="Redis key prefix (same everywhere)")
    acl.add_argument(
        "--redis-version",
        default="7.2",
        metavar="MAJOR.MINOR",
        help="server version: 7+ gets read-only key patterns; default 7.2",
    )
    acl.add_argument(
        "--cluster", action="store_true", help="also what the Redis Cluster client needs"
    )
    acl.set_defaults(run=_redis_acl)
    for command in sub.choices.values():
        # Also after the command (`teoti demo --log-level INFO`); SUPPRESS keeps a value
        # given before it when none is given after.
        command.add_argument(
            "--log-level",
            type=_log_level,
            default=argparse.SUPPRESS,
            help="log level (default INFO for serve, engine, gateway, bot; WARNING otherwise)",
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``teoti`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    if args.log_level is None:
        args.log_level = "INFO" if args.command in SERVICE_COMMANDS else "WARNING"
    if args.command == "play":
        args.players_given = args.players is not None
        args.players = args.players or 2
    configure_logging(args.log_level)
    try:
        if args.command in SERVICE_COMMANDS:  # long-running: uvloop when installed
            code: int = run_service(args.run(args))
        else:
            code = asyncio.run(args.run(args))
    except grpc.aio.AioRpcError as error:
        print(f"error: {error.code().name}: {error.details()}", file=sys.stderr)
        return 2
    except RuleViolation as error:  # InvalidOptions too: the rule and its explanation
        print(f"error: {error.rule}: {error.message}", file=sys.stderr)
        return 2
    except (GameNotFound, InvalidArgument, NotAuthorized, VersionConflict) as error:
        print(f"error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as error:
        print(f"error: not valid JSON ({error})", file=sys.stderr)
        return 2
    except (AddressInUse, DataDirInUse) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except TimeoutError:
        print("error: timed out", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
