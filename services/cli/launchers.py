"""The service launchers: ``teoti serve`` (all in one process), ``engine``, ``gateway``,
``bot``, ``director`` (the split services), and the operator's ``archive`` and
``redis-acl``. Each ``add_*`` adds its command to ``teoti``'s subparsers; each command
runs until SIGINT/SIGTERM/SIGHUP and returns its exit code (services.cli.errors)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import structlog

from services.cli import service_options as opts
from services.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from services.cli.options import Subparsers, add_extra_ruleset, port, registry
from services.engine.adapters.key_files import SERVE_KEY_FILE
from services.engine.domain.rulesets import default_ruleset
from services.engine.transport.link_frames import DEFAULT_LINK_PORT
from services.env_defaults import env_number
from services.proc_guard import on_ending_signals

log = structlog.get_logger("teoti")

SERVICE_COMMANDS = frozenset({"serve", "engine", "gateway", "bot", "director"})
"""The long-running commands: logs at INFO by default, and run on uvloop when installed."""


def stop_event() -> asyncio.Event:
    """An event set on SIGINT, SIGTERM or SIGHUP (graceful shutdown; a closed terminal
    sends SIGHUP, and the embedded Redis must stop with the command)."""
    stop = asyncio.Event()
    on_ending_signals(asyncio.get_running_loop().add_signal_handler, stop.set)
    return stop


@contextlib.contextmanager
def redis_url_for(url: str | None, data_dir: Path | None, persist: bool) -> Iterator[str]:
    """Yield a Redis URL: the given one, else an embedded redis-server for the duration,
    on a Unix socket in its data folder (``unix://.../redis.sock?db=0``, mode 0700, no
    TCP port): it has no password, so only this OS user may reach it. Raises
    DataDirInUse when another process holds ``data_dir``."""
    if url:
        yield url
        return
    from services.embedded_redis import EmbeddedRedis

    server = EmbeddedRedis(data_dir=data_dir, persist=persist, unix_socket=True).start()
    log.info("embedded_redis_started", url=server.url, data_dir=str(server.data_dir))
    try:
        yield server.url
    finally:
        server.stop()
        log.info("embedded_redis_stopped")


async def _serve(args: argparse.Namespace) -> int:
    from services.app import all_in_one

    # First of all: a Ctrl-C (SIGTERM, SIGHUP) from the moment anything listens must stop
    # the server in order (exit 0), not interrupt its start (KeyboardInterrupt, exit 130,
    # resources half made). A signal during the start lets it finish, then stops it.
    stop = stop_event()
    rulesets = registry(args.extra_ruleset)
    data_dir = Path(args.data_dir) if args.data_dir else None
    config: Any = opts.redis_config(args)
    opts.port_is_free(args.host, args.port)
    web_address, web = opts.web_face(args)
    metrics = opts.metrics_address(args)
    with contextlib.ExitStack() as resources:
        if config is None:  # no Redis given: an embedded one for this run
            config = resources.enter_context(redis_url_for(None, data_dir, persist=True))
        # After the embedded Redis took the data folder's lock: a second serve on the
        # folder is refused before it touches (or creates) the key there.
        signing = opts.signing(args, (data_dir or Path(".teoti/redis")) / SERVE_KEY_FILE)
        async with all_in_one(
            config,
            opts.address(args.host, args.port),
            rulesets,
            store=opts.store_settings(args),
            limits=opts.gateway_settings(args).limits(),
            timekeeper=opts.timekeeper_settings(args),
            web_address=web_address,
            web=web,
            signing=signing,
            default_ruleset=args.ruleset,
            metrics=metrics,
        ) as stack:
            log.info(
                "teoti_serve_ready",
                port=stack.port,
                web_port=stack.web_port,
                metrics_port=stack.metrics_port,
            )
            if stack.web_port:
                # The one line a person starting the server reads among the JSON logs.
                url = opts.web_url(args.host, stack.web_port)
                print(f"open {url} to play", file=sys.stderr, flush=True)
                log.info("teoti_serve_open", url=url)
            await stop.wait()
    log.info("teoti_serve_stopped")
    return EXIT_OK


async def _engine(args: argparse.Namespace) -> int:
    from services.app import run_engine

    await run_engine(
        opts.need_redis(args),
        opts.address(args.host, args.port),
        registry(args.extra_ruleset),
        stop_event(),
        opts.store_settings(args),
        opts.timekeeper_settings(args),
        link_port=args.link_port,
        metrics=opts.metrics_address(args),
    )
    return EXIT_OK


async def _gateway(args: argparse.Namespace) -> int:
    from services.app import run_gateway

    redis = opts.need_redis(args)
    await run_gateway(
        redis,
        opts.address(args.host, args.port),
        opts.engine_target(args),
        registry(args.extra_ruleset),
        stop_event(),
        opts.store_settings(args),
        opts.gateway_settings(args),
        *opts.web_face(args),
        tournament_redis=opts.tournament_login(args, redis),
        signing=opts.signing(args, None),
        metrics=opts.metrics_address(args),
    )
    return EXIT_OK


async def _archive(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime, timedelta

    from services.engine.adapters.retention import archive_finished

    store = opts.store_settings(args).store(opts.need_redis(args))
    try:
        report = await archive_finished(
            store,
            registry(args.extra_ruleset),
            timedelta(days=args.older_than_days),
            datetime.now(UTC),
            args.max_games,
        )
    finally:
        await store.close()
    # One line a CronJob's log collector keeps: what the pass moved.
    log.info(
        "archive_pass",
        archived=len(report.archived),
        already_archived=report.already_archived,
        running=report.running,
        recent=report.recent,
        failed=len(report.failed),
        bytes_before=report.logged_bytes,
        bytes_after=report.archived_bytes,
    )
    print(
        f"archived {len(report.archived)}, already archived {report.already_archived}, "
        f"running {report.running}, finished too recently {report.recent}, "
        f"left for a person {len(report.failed)}; "
        f"bytes before {report.logged_bytes}, after {report.archived_bytes}"
    )
    for game_id, why in sorted(report.failed.items()):
        print(f"  {game_id}: {why}")
    return EXIT_FAILED if report.failed else EXIT_OK


async def _bot(args: argparse.Namespace) -> int:
    from services.app import BotSettings, run_bot

    await run_bot(
        opts.need_redis(args),
        opts.engine_target(args),
        registry(args.extra_ruleset),
        stop_event(),
        opts.store_settings(args),
        BotSettings(
            args.concurrency,
            args.claim_idle_ms,
            args.max_deliveries,
            f"0.0.0.0:{args.health_port}" if args.health_port else "",
            reconcile_s=args.reconcile_s,
        ),
        opts.metrics_address(args),
    )
    return EXIT_OK


async def _director(args: argparse.Namespace) -> int:
    from services.app import run_director

    await run_director(
        opts.need_redis(args),
        opts.engine_target(args),
        registry(args.extra_ruleset),
        stop_event(),
        opts.store_settings(args),
        f"0.0.0.0:{args.health_port}" if args.health_port else "",
        opts.metrics_address(args),
    )
    return EXIT_OK


async def _redis_acl(args: argparse.Namespace) -> int:
    from services.engine.adapters.acl import MIN_REDIS, redis_cli_lines

    try:
        version = tuple(int(part) for part in args.redis_version.split("."))
    except ValueError:
        raise UsageError(f"--redis-version {args.redis_version!r} is not MAJOR.MINOR") from None
    if version < MIN_REDIS:
        raise UsageError(
            f"Redis {args.redis_version} is too old; these ACL rules need Redis "
            f"{'.'.join(map(str, MIN_REDIS))} or newer"
        )
    for line in redis_cli_lines(args.key_prefix, version, args.cluster):
        print(line)
    return EXIT_OK


def add_serve(sub: Subparsers) -> None:
    """``teoti serve``: gateway + engine + bot worker in one process."""
    serve = sub.add_parser("serve", help="gateway + engine + bot worker in one process")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port, default=50051)
    serve.add_argument(
        "--data-dir",
        default=".teoti/redis",
        help="embedded Redis data folder, made mode 0700, with its Unix socket redis.sock "
        "(used when no Redis URL is given)",
    )
    serve.add_argument("--ruleset", default=default_ruleset(), help="default ruleset of CreateGame")
    opts.add_signing_options(
        serve, f"{SERVE_KEY_FILE} in --data-dir, made on first run (mode 0600)"
    )
    opts.add_web_options(serve, 8080)
    opts.add_redis_options(serve)
    opts.add_limit_options(serve)
    opts.add_timekeeper_option(serve)
    opts.add_metrics_options(serve, "serve", None)
    add_extra_ruleset(serve)
    serve.set_defaults(run=_serve)


def add_engine(sub: Subparsers) -> None:
    """``teoti engine``: EngineService alone."""
    engine = sub.add_parser("engine", help="EngineService alone")
    engine.add_argument("--host", default="127.0.0.1")
    engine.add_argument("--port", type=port, default=50052)
    engine.add_argument(
        "--link-port",
        type=port,
        default=env_number("TEOTI_LINK_PORT", int, DEFAULT_LINK_PORT),
        help="serve the engine link (plain TCP, what gateways, bot workers and directors "
        "send their commands on; docs/operations.md) on this port of --host (0: any free "
        "port); default $TEOTI_LINK_PORT, else %(default)s",
    )
    opts.add_redis_options(engine)
    opts.add_timekeeper_option(engine)
    opts.add_metrics_options(engine, "engine", None)
    add_extra_ruleset(engine)
    engine.set_defaults(run=_engine)


def add_gateway(sub: Subparsers) -> None:
    """``teoti gateway``: GameService (and TournamentService) writing via --engine."""
    gateway = sub.add_parser("gateway", help="GameService alone (writes via --engine)")
    gateway.add_argument("--host", default="127.0.0.1")
    gateway.add_argument("--port", type=port, default=50051)
    gateway.add_argument(
        "--engine", default=opts.DEFAULT_ENGINE, metavar="HOST:PORT", help=opts.ENGINE_HELP
    )
    gateway.add_argument(
        "--engine-channels",
        type=int,
        default=env_number("TEOTI_ENGINE_CHANNELS", int, 4),
        help="engine link connections per stream slot (default %(default)s)",
    )
    opts.add_signing_options(
        gateway, "none: it signs nothing (GetSignedHead refused, exports unsigned)"
    )
    opts.add_web_options(gateway, 0)
    gateway.add_argument(
        "--tournament-redis-username",
        default=os.environ.get(opts.TOURNAMENT_USERNAME_ENV, ""),
        metavar="USER",
        help="Redis user of TournamentService (the director's user; its password from "
        f"${opts.TOURNAMENT_PASSWORD_ENV}); default ${opts.TOURNAMENT_USERNAME_ENV}, else the "
        "gateway's own login",
    )
    opts.add_redis_options(gateway)
    opts.add_limit_options(gateway)
    opts.add_metrics_options(gateway, "gateway", None)
    add_extra_ruleset(gateway)
    gateway.set_defaults(run=_gateway)


def add_archive(sub: Subparsers) -> None:
    """``teoti archive``: one retention pass over finished games."""
    archive = sub.add_parser(
        "archive",
        help="retention: move finished games older than N days into compressed archives",
        description="Archive every finished game whose last event is older than "
        "--older-than-days: its log becomes one compressed key that reads, VerifyGame and "
        "replay --verify still check (docs/operations.md, 'Retention'). Run as the "
        "engine's Redis user. Exit 1 if some game was left for a person to look at.",
    )
    archive.add_argument("--older-than-days", type=float, default=30.0)
    archive.add_argument("--max-games", type=int, default=0, help="cap per pass (0: none)")
    opts.add_redis_options(archive)
    add_extra_ruleset(archive)
    archive.set_defaults(run=_archive)


def add_director(sub: Subparsers) -> None:
    """``teoti director``: the tournament director alone."""
    director = sub.add_parser(
        "director", help="tournament director alone (creates games via --engine)"
    )
    director.add_argument(
        "--engine", default=opts.DEFAULT_ENGINE, metavar="HOST:PORT", help=opts.ENGINE_HELP
    )
    director.add_argument(
        "--health-port",
        type=port,
        default=env_number("TEOTI_DIRECTOR_HEALTH_PORT", int, 0),
        help="serve gRPC health on this port (0: off); gameserver.v1.TournamentDirector "
        "is SERVING while the director's read loops make progress",
    )
    opts.add_redis_options(director)
    opts.add_metrics_options(director, "director", "0.0.0.0")
    add_extra_ruleset(director)
    director.set_defaults(run=_director)


def add_bot(sub: Subparsers) -> None:
    """``teoti bot``: the bot worker alone."""
    bot = sub.add_parser("bot", help="bot worker alone (writes via --engine)")
    bot.add_argument(
        "--engine", default=opts.DEFAULT_ENGINE, metavar="HOST:PORT", help=opts.ENGINE_HELP
    )
    bot.add_argument("--concurrency", type=int, default=4)
    bot.add_argument(
        "--claim-idle-ms",
        type=int,
        default=30_000,
        help="reclaim turn requests pending this long (crashed workers)",
    )
    bot.add_argument(
        "--health-port",
        type=port,
        default=env_number("TEOTI_BOT_HEALTH_PORT", int, 0),
        help="serve gRPC health on this port (0: off); gameserver.v1.BotWorker is "
        "SERVING while the worker makes progress",
    )
    bot.add_argument(
        "--max-deliveries",
        type=int,
        default=5,
        help="dead-letter a turn request after this many deliveries",
    )
    bot.add_argument(
        "--reconcile-s",
        type=float,
        default=5.0,
        help="seconds between passes republishing lost turn requests (0: off)",
    )
    opts.add_redis_options(bot)
    opts.add_metrics_options(bot, "bot", "0.0.0.0")
    add_extra_ruleset(bot)
    bot.set_defaults(run=_bot)


def add_redis_acl(sub: Subparsers) -> None:
    """``teoti redis-acl``: the ACL SETUSER lines of the services' Redis users."""
    acl = sub.add_parser(
        "redis-acl",
        help="print the redis-cli ACL SETUSER lines of the engine, gateway, bot and director users",
        description="One Redis user per service, so the gateway, the bot worker and the "
        "tournament director cannot read the games' secret seeds, and only the engine "
        "writes games (docs/operations.md, 'Redis users'). The lines read the passwords "
        "from $REDIS_ENGINE_PASSWORD, $REDIS_GATEWAY_PASSWORD, $REDIS_BOT_PASSWORD and "
        "$REDIS_DIRECTOR_PASSWORD when run.",
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
