"""``teoti``: run the services, play a demo game, replay a game's log.

User-facing output goes to stdout; logs are JSON lines on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import json
import os
import socket
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import grpc
import structlog

from services.embedded_redis import DataDirInUse
from services.engine.adapters.keys import DEFAULT_SHARDS
from services.engine.adapters.redis_client import POOL_SIZE
from services.engine.domain.audit import audit_log
from services.engine.domain.bot_credential import BotSecretError
from services.engine.domain.clock import fixed_seed, random_seed
from services.engine.domain.engine_events import ENGINE_EVENTS, GAME_CREATED, SEED_REVEALED
from services.engine.domain.errors import (
    CorruptLog,
    GameNotFound,
    InvalidArgument,
    NotAuthorized,
    RuleViolation,
    UnknownRuleset,
    VersionConflict,
)
from services.engine.domain.game import fold
from services.engine.domain.head_signing import (
    RETIRED_KEYS_ENV,
    SERVE_KEY_FILE,
    SIGNING_KEY_ENV,
    SignatureError,
    SigningKeyError,
)
from services.engine.domain.public_log import PublicLogError, looks_like_file
from services.engine.domain.records import canonical_json
from services.engine.domain.ruleset import DomainEvent, InvalidOptions, RulesetInfo, info_of
from services.engine.domain.rulesets import (
    DEFAULT_RULESET,
    RulesetRegistry,
    default_registry,
    lazy_factory,
)
from services.engine.domain.snapshots import DEFAULT_SNAPSHOT_EVERY
from services.env_defaults import env_number
from services.event_loop import run_service
from services.export_cli import export_game, replay_file
from services.logging_setup import LEVELS, configure_logging
from services.proc_guard import on_ending_signals
from services.rpc.limits import (
    DEFAULT_CREATES_PER_HOUR,
    DEFAULT_PLAY_STREAMS_PER_CLIENT,
    DEFAULT_RATE,
    DEFAULT_STREAMS,
    DEFAULT_STREAMS_PER_ADDRESS,
    DEFAULT_WATCHERS_PER_CLIENT,
)
from services.rpc.server import AddressInUse
from services.safe_text import printable

log = structlog.get_logger("teoti")

ENGINE_HELP = (
    "engine(s): HOST:PORT, IP:PORT,IP:PORT, or a gRPC target such as dns:///engines:50052 "
    "(calls are balanced round robin)"
)


class UsageError(Exception):
    """Bad input the person can fix: ``main`` prints it as one line and exits 2."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (exit 2), with where to get help."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (see PROG --help)`` and exit 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's, except that options no command knows are reported by the
        subcommand they were given to (``teoti archive: ... (see teoti archive --help)``,
        with the option probably meant), not by ``teoti`` (argparse's own ``parse_args``
        leaves them to the top parser, whose help does not list them)."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = _command_parser(self, parsed)
            hint = _close_option(command, extra[0])
            command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
        return parsed


def _command_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> Any:
    """The innermost (sub)command parser ``parsed`` was parsed by (``teoti tournament
    demo``'s for ``teoti tournament demo ...``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
            if chosen is not None:
                return _command_parser(chosen, parsed)
    return parser


def _close_option(parser: argparse.ArgumentParser, given: str) -> str:
    """``"; did you mean --older-than-days?"`` for ``--days``, or ""."""
    if not given.startswith("--"):
        return ""
    word = given.split("=", 1)[0]
    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    near = [o for o in options if word[2:] and word[2:] in o] or difflib.get_close_matches(
        word, options, n=1
    )
    return f"; did you mean {near[0]}?" if near else ""


def _json_object(text: str) -> dict[str, Any]:
    """``--options``: a JSON object (``{}`` when empty). Raises ArgumentTypeError."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "true/false", type(None): "null"}
        got = kind.get(type(value), "a number")
        raise argparse.ArgumentTypeError(f'wants a JSON object such as {{"solo": true}}, got {got}')
    return value


MAX_PORT = 65_535


def _port(text: str) -> int:
    """A TCP port flag: an integer 0 to 65535 (0: as the flag's help says, off or any
    free port). Raises ArgumentTypeError (a socket would raise OverflowError later)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0 to {MAX_PORT})")
    return port


ANY_PORT = -1
"""``--web-port any``: a port the system chooses when the web face binds it."""


def _web_port(text: str) -> int:
    """``--web-port``: a port (0: off), or ``any`` (:data:`ANY_PORT`): the system
    chooses at bind time, and ``teoti_serve_ready`` logs it (a port picked beforehand
    may be taken before it is bound). Raises ArgumentTypeError."""
    return ANY_PORT if text.strip().lower() == "any" else _port(text)


def _registry(extra: Sequence[str]) -> RulesetRegistry:
    """Default registry plus ``NAME=module:Class`` entries (importable from the cwd)."""
    registry = default_registry()
    if extra and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like uvicorn's --app-dir: rulesets from a checkout
    for item in extra:
        name, _, target = item.partition("=")
        if not target:
            raise UsageError(f"--extra-ruleset wants NAME=module:Class, got {item!r}")
        registry.register(name, lazy_factory(target))
    return registry


def _stop_event() -> asyncio.Event:
    """An event set on SIGINT, SIGTERM or SIGHUP (graceful shutdown; a closed terminal
    sends SIGHUP, and the embedded Redis must stop with the command)."""
    stop = asyncio.Event()
    on_ending_signals(asyncio.get_running_loop().add_signal_handler, stop.set)
    return stop


@contextlib.contextmanager
def _redis(url: str | None, data_dir: Path | None, persist: bool) -> Any:
    """Yield a Redis URL: the given one, else an embedded redis-server for the duration,
    on a Unix socket in its data folder (``unix://.../redis.sock?db=0``, mode 0700, no
    TCP port): it has no password, so only this OS user may reach it."""
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


def _store_settings(args: argparse.Namespace) -> Any:
    from services.app import StoreSettings

    return StoreSettings(args.key_prefix, args.shards, args.snapshot_every, args.redis_pool_size)


def _gateway_settings(args: argparse.Namespace) -> Any:
    from services.app import GatewaySettings

    return GatewaySettings(
        rate=args.rate_limit,
        burst=args.rate_limit * 2,
        creates_per_hour=args.creates_per_hour,
        watchers_per_client=args.max_watchers_per_client,
        play_streams_per_client=args.max_play_streams_per_client,
        streams_per_address=args.max_streams_per_address,
        engine_channels=getattr(args, "engine_channels", 4),
    )


def _redis_config(args: argparse.Namespace) -> Any:
    """The Redis of a service command: flags, else REDIS_CLUSTER_NODES, else REDIS_URL."""
    from services.engine.adapters.redis_client import RedisConfig

    try:
        return RedisConfig.resolve(args.redis_url, args.redis_cluster_nodes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _need_redis(args: argparse.Namespace) -> Any:
    config = _redis_config(args)
    if config is None:
        raise UsageError(
            "give --redis-url / REDIS_URL, or --redis-cluster-nodes / "
            "REDIS_CLUSTER_NODES (shared with the other services)"
        )
    return config


async def _serve(args: argparse.Namespace) -> int:
    from services.app import all_in_one

    # First of all: a Ctrl-C (SIGTERM, SIGHUP) from the moment anything listens must stop
    # the server in order (exit 0), not interrupt its start (KeyboardInterrupt, exit 130,
    # resources half made). A signal during the start lets it finish, then stops it.
    stop = _stop_event()
    registry = _registry(args.extra_ruleset)
    data_dir = Path(args.data_dir) if args.data_dir else None
    config = _redis_config(args)
    _port_is_free(args.host, args.port)
    web_address, web = _web_face(args)
    with contextlib.ExitStack() as resources:
        if config is None:  # no Redis given: an embedded one for this run
            config = resources.enter_context(_redis(None, data_dir, persist=True))
        # After the embedded Redis took the data folder's lock: a second serve on the
        # folder is refused before it touches (or creates) the key there.
        signing = _signing(args, (data_dir or Path(".teoti/redis")) / SERVE_KEY_FILE)
        async with all_in_one(
            config,
            _address(args.host, args.port),
            registry,
            key_prefix=args.key_prefix,
            default_ruleset=args.ruleset,
            shards=args.shards,
            snapshot_every=args.snapshot_every,
            limiter=_gateway_settings(args).limiter(),
            quota=_gateway_settings(args).quota(),
            pool_size=args.redis_pool_size,
            watchers=_gateway_settings(args).watchers(),
            play_streams=_gateway_settings(args).play_streams(),
            streams=_gateway_settings(args).stream_budget(),
            timekeeper=_timekeeper_settings(args),
            web_address=web_address,
            web=web,
            signing=signing,
        ) as stack:
            log.info("teoti_serve_ready", port=stack.port, web_port=stack.web_port)
            await stop.wait()
    log.info("teoti_serve_stopped")
    return 0


def _signing(args: argparse.Namespace, generated: Path | None) -> Any:
    """The gateway's signing keys (services.engine.domain.head_signing): ``--signing-key-file``,
    else (``teoti serve``) the key at ``generated``, made there on first run (mode 0600);
    else none. ``--retired-signing-keys``: public keys it signed with before, still
    published. Raises SigningKeyError for a key file it cannot use."""
    from services.engine.domain.head_signing import HeadSigner, SigningKeys, read_public_keys

    signer = None
    if args.signing_key_file:
        signer = HeadSigner.load(Path(args.signing_key_file))
    elif generated is not None:
        signer, created = HeadSigner.load_or_create(generated)
        if created:
            log.info("signing_key_created", path=str(generated), key_id=signer.key_id)
    retired = read_public_keys(Path(args.retired_signing_keys)) if args.retired_signing_keys else []
    if signer is not None:
        log.info("signing_key_loaded", key_id=signer.key_id, retired=len(retired))
    return SigningKeys(signer, retired)


def _web_face(args: argparse.Namespace) -> tuple[str | None, Any]:
    """(``host:port`` of the web face or None when ``--web-port 0``, its settings)."""
    from services.web.server import WebSettings

    if args.web_port == 0:
        return None, None
    port = 0 if args.web_port == ANY_PORT else args.web_port  # 0: the system's choice
    _port_is_free(args.host, port)
    origins = tuple(o.strip() for o in args.web_cors_origins.split(",") if o.strip())
    return _address(args.host, port), WebSettings(cors_origins=origins)


def _address(host: str, port: int) -> str:
    """``host:port`` as gRPC and the web face bind it: an IPv6 literal (``::1``, given
    with or without brackets) bracketed, ``[::1]:port`` (gRPC reads ``::1:port`` as a
    malformed name)."""
    bare = host.strip("[]")
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"


def _port_is_free(host: str, port: int) -> None:
    """Raise AddressInUse if ``host:port`` has a listener, before gRPC tries to bind it
    (whose C core would print its own raw error line first)."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as error:
            raise AddressInUse(f"{host}:{port}") from error


async def _engine(args: argparse.Namespace) -> int:
    from services.app import run_engine

    await run_engine(
        _need_redis(args),
        _address(args.host, args.port),
        _registry(args.extra_ruleset),
        _stop_event(),
        _store_settings(args),
        _timekeeper_settings(args),
    )
    return 0


def _timekeeper_settings(args: argparse.Namespace) -> Any:
    """The timekeeper of ``teoti serve`` / ``teoti engine`` (services.engine.domain.timing)."""
    from services.engine.domain.timing.timekeeper import TimekeeperSettings

    return TimekeeperSettings(interval_s=args.timekeeper_interval)


def _engine_target(args: argparse.Namespace) -> str:
    """``--engine`` (a gRPC target, checked by gRPC as it connects)."""
    return str(args.engine)


def timekeeper_opt(p: argparse.ArgumentParser) -> None:
    """``--timekeeper-interval`` of the processes running an engine."""
    p.add_argument(
        "--timekeeper-interval",
        type=float,
        default=env_number("TEOTI_TIMEKEEPER_INTERVAL", float, 0.5),
        metavar="SECONDS",
        help="seconds between the clocks' timekeeper passes (timeouts of clocked games); "
        "0: no timekeeper in this process (default $TEOTI_TIMEKEEPER_INTERVAL or "
        "%(default)s)",
    )


TOURNAMENT_USERNAME_ENV = "TEOTI_TOURNAMENT_REDIS_USERNAME"
TOURNAMENT_PASSWORD_ENV = "TEOTI_TOURNAMENT_REDIS_PASSWORD"


def _tournament_login(args: argparse.Namespace, redis: Any) -> Any:
    """The Redis of the gateway's TournamentService: ``redis`` logging in as
    ``--tournament-redis-username`` with ``$TEOTI_TOURNAMENT_REDIS_PASSWORD`` (the
    director's user, docs/operations.md "Redis users"), or None (the gateway's own)."""
    username = args.tournament_redis_username
    password = os.environ.get(TOURNAMENT_PASSWORD_ENV, "")
    if not username:
        return None
    if not password:
        raise UsageError(f"--tournament-redis-username needs ${TOURNAMENT_PASSWORD_ENV} set")
    return redis.with_login(username, password)


async def _gateway(args: argparse.Namespace) -> int:
    from services.app import run_gateway

    redis = _need_redis(args)
    await run_gateway(
        redis,
        _address(args.host, args.port),
        _engine_target(args),
        _registry(args.extra_ruleset),
        _stop_event(),
        _store_settings(args),
        _gateway_settings(args),
        *_web_face(args),
        tournament_redis=_tournament_login(args, redis),
        signing=_signing(args, None),
    )
    return 0


async def _archive(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime, timedelta

    from services.engine.adapters.retention import archive_finished

    store = _store_settings(args).store(_need_redis(args))
    try:
        report = await archive_finished(
            store,
            _registry(args.extra_ruleset),
            timedelta(days=args.older_than_days),
            datetime.now(UTC),
            args.max_games,
        )
    finally:
        await store.close()
    print(
        f"archived {len(report.archived)}, already archived {report.already_archived}, "
        f"running {report.running}, finished too recently {report.recent}, "
        f"left for a person {len(report.failed)}"
    )
    for game_id, why in sorted(report.failed.items()):
        print(f"  {game_id}: {why}")
    return 1 if report.failed else 0


async def _bot(args: argparse.Namespace) -> int:
    from services.app import BotSettings, run_bot

    await run_bot(
        _need_redis(args),
        _engine_target(args),
        _registry(args.extra_ruleset),
        _stop_event(),
        _store_settings(args),
        BotSettings(
            args.concurrency,
            args.claim_idle_ms,
            args.max_deliveries,
            f"0.0.0.0:{args.health_port}" if args.health_port else "",
            reconcile_s=args.reconcile_s,
        ),
    )
    return 0


async def _director(args: argparse.Namespace) -> int:
    from services.app import run_director

    await run_director(
        _need_redis(args),
        _engine_target(args),
        _registry(args.extra_ruleset),
        _stop_event(),
        _store_settings(args),
        f"0.0.0.0:{args.health_port}" if args.health_port else "",
    )
    return 0


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
    return 0


@contextlib.asynccontextmanager
async def _target(
    args: argparse.Namespace,
    registry: RulesetRegistry,
    bot_pause_s: float = 0.0,
    data_dir: Path | None = None,
) -> AsyncIterator[str]:
    """The gateway to talk to: --target, or an embedded server for this run (whose bots
    wait ``bot_pause_s`` before each move; its Redis keeps its data in ``data_dir``, else
    in a temporary folder removed at the end)."""
    if args.target:
        yield str(args.target)
        return
    from services.app import all_in_one

    seeds = fixed_seed(str(args.seed)) if getattr(args, "seed", None) is not None else random_seed
    persist = data_dir is not None
    with _redis(os.environ.get("REDIS_URL"), data_dir, persist=persist) as url:
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
    # Seat counts and the solo mode are the ruleset's own (RulesetInfo), checked here so a
    # bad --players is a usage error before any server starts.
    info = info_of(registry.get(args.ruleset))
    options = dict(args.options)
    if args.solo:  # a bot stands in for the person; the others are the solo opponent
        if info.solo is None:
            raise UsageError(f"--solo: {info.title} has no solo mode")
        seats = [SeatInfo("bot", "Person (a bot)")]
        seats += [SeatInfo("bot", info.solo.opponent) for _ in range(info.solo.seats - 1)]
        options = {**options, **info.solo.options}
    else:
        try:
            info.check_seats(args.players)
        except InvalidOptions as error:
            raise UsageError(f"--players: {error.message}") from error
        seats = [SeatInfo("bot", f"Bot {i + 1}") for i in range(args.players)]
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
                    print(f"  v{event.version:>5}  {printable(text)}", flush=True)
                elif count % 100 == 0:
                    print(f"  ... {count} events", flush=True)

        await asyncio.wait_for(follow(), args.timeout)
        final = await client.get_game(created.game_id)
    print(f"finished after {final.version} events")
    for place, seat in enumerate(final.ranking, start=1):
        score = final.scores[seat]
        unit = "point" if score == 1 else "points"
        print(f"  {place}. {printable(final.seats[seat].name)} (seat {seat}): {score} {unit}")
    print(f"game id: {created.game_id}")
    return 0 if final.finished else 1


def _table_seats(info: RulesetInfo, players: int | None, solo: bool) -> tuple[int, bool]:
    """(seat count, whether to ask for the solo mode) of a new ``teoti play``/``watch``
    game, from the ruleset's own RulesetInfo: ``--solo`` (or no ``--players``, when the
    game has a solo mode) plays its solo mode; ``--players N`` must be a seat count of the
    game; without either, the smallest count from 2. Raises UsageError (one line naming
    the game's seat counts) otherwise."""
    if solo:
        if info.solo is None:
            raise UsageError(f"--solo: {info.title} has no solo mode")
        return info.solo.seats, True
    if players is None:
        if info.solo is not None:
            return info.solo.seats, True
        return min(max(info.min_seats, 2), info.max_seats), False
    try:
        info.check_seats(players)
    except InvalidOptions as error:
        raise UsageError(f"--players: {error.message}") from error
    return players, False


def _play_clock(args: argparse.Namespace) -> Any:
    """The clock of ``teoti play``'s new game from its flags; None without any."""
    from services.client import TimeControl

    if args.timeout_policy == "bot_takeover" and not (args.increment_ms or args.move_deadline_ms):
        # With a base time alone, a seat a bot took over comes back with no time left.
        raise UsageError(
            "--timeout-policy bot_takeover needs --increment-ms (with --base-ms) or "
            "--move-deadline-ms, so a seat taken back has time to move"
        )
    if not (args.base_ms or args.increment_ms or args.move_deadline_ms):
        return None
    if args.join or args.resume:
        raise UsageError("a clock is chosen when the game is created, not with --join/--resume")
    return TimeControl(args.base_ms, args.increment_ms, args.move_deadline_ms, args.timeout_policy)


async def _play(args: argparse.Namespace) -> int:
    from services.tui import launch, saved_seats

    registry = _registry(args.extra_ruleset)
    # A new game's seats are the ruleset's own (usage errors before any server starts);
    # a game joined or resumed has its seats already.
    info = None if args.join or args.resume else info_of(registry.get(args.ruleset))
    players, solo = _table_seats(info, args.players, args.solo) if info else (2, False)
    time_control = _play_clock(args)  # usage errors before any server or file
    launch.log_to_file(Path(args.log_file), args.log_level)
    seats_file = Path(args.seats_file)
    data_dir = Path(args.data_dir)
    if args.resume:
        saved = saved_seats.load(seats_file).get(args.resume)
        if saved is None:
            raise UsageError(
                f"no saved seat for game {args.resume} in {seats_file}; join it with "
                "--join GAME_ID --seat N --token TOKEN"
            )
        args.join, args.seat, args.token = saved.game_id, saved.seat, saved.token
        args.name = saved.name or args.name
        if not args.target and saved.target != saved_seats.EMBEDDED:
            args.target = saved.target
        if saved.data_dir:
            data_dir = Path(saved.data_dir)
    elif args.join and not args.target:  # a game to join lives on a running server
        args.target = "127.0.0.1:50051"
    where = args.target or saved_seats.EMBEDDED

    def keep(game_id: str, seat: int, token: str) -> None:
        saved = saved_seats.SavedSeat(game_id, seat, token, args.name, where, str(data_dir))
        saved_seats.save(saved, seats_file)

    async with _target(args, registry, data_dir=data_dir) as target:
        played = await launch.play(
            target,
            name=args.name,
            players=players,
            solo=solo,
            join=args.join,
            token=args.token,
            seat=args.seat,
            options=args.options,
            on_seat=keep,
            ruleset=args.ruleset,
            info=info,
            registry=registry,
            time_control=time_control,
        )
    _print_left_game(played, where, seats_file)
    return 0


def _print_left_game(played: Any, where: str, seats_file: Path) -> None:
    """What a person needs after quitting ``teoti play``: the game, seat, token, standing
    and the exact command that continues it."""
    state = "finished" if played.finished else "left running"
    you = printable(played.name)
    print(f"game {played.game_id} ({state}); you are seat {played.seat} ({you})")
    for name, score in played.scores:
        print(f"  {printable(name)}: {score} {played.score_unit}")
    print(f"seat token: {played.token}  (kept in {seats_file}, readable by you only)")
    if not played.finished:
        print(f"resume: teoti play --resume {played.game_id}")
        if where != "embedded":
            print(
                f"  or from anywhere: teoti play --target {where} --join {played.game_id} "
                f"--seat {played.seat} --token {played.token}"
            )


async def _watch(args: argparse.Namespace) -> int:
    from services.tui import launch

    registry = _registry(args.extra_ruleset)
    players = args.players
    if not args.game_id:  # a new all-bot game: seat counts are the ruleset's own
        info = info_of(registry.get(args.ruleset))
        players, _ = _table_seats(info, args.players, solo=False)
    launch.log_to_file(Path(args.log_file), args.log_level)
    if args.game_id and not args.target:
        args.target = "127.0.0.1:50051"
    if args.target and args.pace != DEFAULT_WATCH_PACE_S:
        log.warning("pace_ignored_with_target", reason="the server's bots play at its speed")
    async with _target(args, registry, args.pace) as target:
        return await launch.watch(target, args.game_id, players or 2, args.ruleset, registry)


EXPORT_SUFFIXES = (".jsonl", ".json", ".ndjson", ".txt")
"""File endings ``teoti replay`` takes for a file, never a game id (ids have no path)."""


def _names_a_path(argument: str) -> bool:
    """True if ``teoti replay ARGUMENT`` can only mean a file: a path separator (never
    in a game id, services.engine.adapters.keys) or an export's file ending."""
    return "/" in argument or os.sep in argument or argument.endswith(EXPORT_SUFFIXES)


async def _replay(args: argparse.Namespace) -> int:
    from services.client import TeotiClient

    registry = _registry(args.extra_ruleset)
    if looks_like_file(args.game_id):
        try:
            return await replay_file(args, registry, _describe)
        except UnicodeDecodeError as error:  # a picture, an archive: not a JSON-lines text
            byte = error.object[error.start]
            raise PublicLogError(
                f"{args.game_id} is not UTF-8 text (byte {error.start} is {byte:#04x})"
            ) from None
    if _names_a_path(args.game_id):
        raise UsageError(f"no such file: {args.game_id}")
    target = args.target or "127.0.0.1:50051"
    if args.step:
        from services.tui import launch

        launch.log_to_file(Path(args.log_file), args.log_level)
        return await launch.replay(target, args.game_id, registry)
    async with TeotiClient(target) as client:
        stored = await client.get_game(args.game_id)
        # Only up to the version GetGame saw: a running game may have moved on since.
        events = (await client.events(args.game_id))[: stored.version]
        server_report = await client.verify(args.game_id) if args.verify else None
    ruleset_name = str(events[0].payload.get("ruleset", "")) if events else ""
    print(f"game {args.game_id}: {len(events)} events, ruleset {ruleset_name}")
    for event in events:
        milestone, text = _describe(registry, ruleset_name, event.to_domain())
        if milestone:
            print(f"  v{event.version:>5}  {printable(text)}")
    if not stored.finished:
        # Every reader gets the events as stored, hidden information only as salted
        # commitments: the chain and every reveal so far check from them alone.
        print("game still running: chain and commitments checked; reveals and seed at the end")
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
        result = snapshot.result()  # forfeited seats ranked last
        if result is not None:
            print(f"final scores {list(result.scores)}, ranking {list(result.ranking)}")
    print(f"commitments: {report.commitments}, opened and verified: {report.reveals_verified}")
    if report.seed_revealed:
        print(f"seed: revealed, {'verified' if report.seed_verified else 'NOT verified'}")
    if server_report is not None and not server_report.ok:
        problems += [f"server VerifyGame: {p}" for p in server_report.problems]
    signed = ""
    if server_report is not None and not problems:
        signed, problem = await _server_signature(args, events, server_report)
        problems += [problem] if problem else []
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if args.verify:
        if problems:
            bad = report.first_bad_version or (
                server_report.first_bad_version if server_report else 0
            )
            print(f"verify: FAILED ({f'first bad version: {bad}' if bad else problems[0]})")
            return 1
        print(signed)
        print(f"verify: OK (chain head {report.head_hash})")
    return 0


async def _server_signature(args: argparse.Namespace, events: Any, verdict: Any) -> tuple[str, str]:
    """(the ``signature:`` line, a problem or "") of VerifyGame's signed head: it must
    verify with a key the server publishes and sign the head of the events this client
    read. Without one (a gateway without a signing key): a problem unless
    ``--unsigned-ok``."""
    from services.engine.domain.head_signing import SignedHead, verify_signed_head
    from services.export_cli import signer_line, verification_keys

    if verdict.signed_head is None:
        if args.unsigned_ok:
            return "signature: NONE (the server signs nothing; --unsigned-ok)", ""
        return "", "signature: the server signed no head (it has no signing key; --unsigned-ok)"
    if not args.target:
        args.target = "127.0.0.1:50051"
    keys, source = await verification_keys(args)
    head = verdict.signed_head
    try:
        statement = verify_signed_head(
            SignedHead(head.statement_json, head.signature, head.key_id), keys
        )
    except SignatureError as error:
        return "", f"signature: {error}"
    logged = events[statement.version - 1].hash if 0 < statement.version <= len(events) else ""
    if (statement.game_id, statement.version, statement.head_hash) != (
        args.game_id,
        verdict.events,
        verdict.head_hash,
    ) or logged != statement.head_hash:
        return "", "signature: the signed head is not the head of the log that was read"
    return signer_line(statement, keys, source), ""


SERVICE_COMMANDS = frozenset({"serve", "engine", "gateway", "bot", "director"})


def _log_level(value: str) -> str:
    """``--log-level`` (and ``$TEOTI_LOG_LEVEL``): a level name, any case; upper-cased."""
    if value.upper() not in LEVELS:
        raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(LEVELS)}")
    return value.upper()


DEFAULT_WATCH_PACE_S = 0.4
"""Seconds per bot move in ``teoti watch``'s own all-bot game: a 2-seat game in about a minute."""


def build_parser() -> argparse.ArgumentParser:
    """The ``teoti`` argument parser (serve engine gateway bot demo replay play watch)."""
    parser = _Parser(prog="teoti", description=__doc__)
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
            help="standalone Redis URL: redis://[USER:PASSWORD@]HOST:PORT/DB, rediss://..., "
            "or unix://[USER:PASSWORD@]/PATH/redis.sock?db=N (default: $REDIS_URL)",
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
        p.add_argument(
            "--redis-pool-size",
            type=int,
            default=env_number("TEOTI_REDIS_POOL_SIZE", int, POOL_SIZE),
            help="Redis connections this process may open, per node "
            "(default $TEOTI_REDIS_POOL_SIZE or %(default)s; docs/operations.md)",
        )

    def limits_opt(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--rate-limit",
            type=float,
            default=env_number("TEOTI_RATE_LIMIT", float, DEFAULT_RATE),
            help="calls per second per seat token, else per address; 0: unlimited "
            "(default $TEOTI_RATE_LIMIT or %(default)s)",
        )
        p.add_argument(
            "--creates-per-hour",
            type=float,
            default=env_number("TEOTI_CREATES_PER_HOUR", float, DEFAULT_CREATES_PER_HOUR),
            help="games each caller address may create per hour; 0: unlimited "
            "(default $TEOTI_CREATES_PER_HOUR or %(default)s)",
        )
        p.add_argument(
            "--max-watchers-per-client",
            type=int,
            default=env_number("TEOTI_MAX_WATCHERS_PER_CLIENT", int, DEFAULT_WATCHERS_PER_CLIENT),
            help="WatchGame streams one seat token / address may hold open; 0: any "
            "(default $TEOTI_MAX_WATCHERS_PER_CLIENT or %(default)s)",
        )
        p.add_argument(
            "--max-play-streams-per-client",
            type=int,
            default=env_number(
                "TEOTI_MAX_PLAY_STREAMS_PER_CLIENT", int, DEFAULT_PLAY_STREAMS_PER_CLIENT
            ),
            help="Play streams one seat token / address may hold open; 0: any "
            "(default $TEOTI_MAX_PLAY_STREAMS_PER_CLIENT or %(default)s)",
        )
        p.add_argument(
            "--max-streams-per-address",
            type=int,
            default=env_number("TEOTI_MAX_STREAMS_PER_ADDRESS", int, DEFAULT_STREAMS_PER_ADDRESS),
            help="WatchGame and Play streams together one address may hold of the "
            f"process's {DEFAULT_STREAMS:,}; 0: all of them "
            "(default $TEOTI_MAX_STREAMS_PER_ADDRESS or %(default)s)",
        )

    def signing_opt(p: argparse.ArgumentParser, fallback: str) -> None:
        p.add_argument(
            "--signing-key-file",
            default=os.environ.get(SIGNING_KEY_ENV, ""),
            metavar="PEM",
            help="Ed25519 private key (PEM, PKCS#8) the gateway signs games' heads with "
            f"(docs/operations.md 'Signing keys'); default ${SIGNING_KEY_ENV}, else {fallback}",
        )
        p.add_argument(
            "--retired-signing-keys",
            default=os.environ.get(RETIRED_KEYS_ENV, ""),
            metavar="FILE",
            help="keys document (the well-known file's shape) of retired public keys to keep "
            f"publishing, so old signatures still verify; default ${RETIRED_KEYS_ENV}",
        )

    def web_opt(p: argparse.ArgumentParser, default_port: int) -> None:
        p.add_argument(
            "--web-port",
            type=_web_port,
            default=env_number("TEOTI_WEB_PORT", int, default_port),
            help="port of the web face (HTTP/JSON + server-sent events, the reference web "
            "client at /; docs/web.md); 0: off; any: a free port the system chooses, "
            "logged as web_port when ready (default $TEOTI_WEB_PORT or %(default)s)",
        )
        p.add_argument(
            "--web-cors-origins",
            default=os.environ.get("TEOTI_WEB_CORS_ORIGINS", "*"),
            help="comma-separated origins allowed to call the web face from a browser "
            "(default $TEOTI_WEB_CORS_ORIGINS or %(default)s)",
        )

    serve = sub.add_parser("serve", help="gateway + engine + bot worker in one process")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=50051)
    serve.add_argument(
        "--data-dir",
        default=".teoti/redis",
        help="embedded Redis data folder, made mode 0700, with its Unix socket redis.sock "
        "(used when no Redis URL is given)",
    )
    serve.add_argument("--ruleset", default=DEFAULT_RULESET, help="default ruleset of CreateGame")
    signing_opt(serve, f"{SERVE_KEY_FILE} in --data-dir, made on first run (mode 0600)")
    web_opt(serve, 8080)
    redis_opt(serve)
    limits_opt(serve)
    timekeeper_opt(serve)
    common(serve)
    serve.set_defaults(run=_serve)

    engine = sub.add_parser("engine", help="EngineService alone")
    engine.add_argument("--host", default="127.0.0.1")
    engine.add_argument("--port", type=_port, default=50052)
    redis_opt(engine)
    timekeeper_opt(engine)
    common(engine)
    engine.set_defaults(run=_engine)

    gateway = sub.add_parser("gateway", help="GameService alone (writes via --engine)")
    gateway.add_argument("--host", default="127.0.0.1")
    gateway.add_argument("--port", type=_port, default=50051)
    gateway.add_argument(
        "--engine", default="127.0.0.1:50052", metavar="HOST:PORT", help=ENGINE_HELP
    )
    gateway.add_argument(
        "--engine-channels",
        type=int,
        default=env_number("TEOTI_ENGINE_CHANNELS", int, 4),
        help="channels (connections per engine) to the engines (default %(default)s)",
    )
    signing_opt(gateway, "none: it signs nothing (GetSignedHead refused, exports unsigned)")
    web_opt(gateway, 0)
    gateway.add_argument(
        "--tournament-redis-username",
        default=os.environ.get(TOURNAMENT_USERNAME_ENV, ""),
        metavar="USER",
        help="Redis user of TournamentService (the director's user; its password from "
        f"${TOURNAMENT_PASSWORD_ENV}); default ${TOURNAMENT_USERNAME_ENV}, else the "
        "gateway's own login",
    )
    redis_opt(gateway)
    limits_opt(gateway)
    common(gateway)
    gateway.set_defaults(run=_gateway)

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
    redis_opt(archive)
    common(archive)
    archive.set_defaults(run=_archive)

    director = sub.add_parser(
        "director", help="tournament director alone (creates games via --engine)"
    )
    director.add_argument(
        "--engine", default="127.0.0.1:50052", metavar="HOST:PORT", help=ENGINE_HELP
    )
    director.add_argument(
        "--health-port",
        type=_port,
        default=env_number("TEOTI_DIRECTOR_HEALTH_PORT", int, 0),
        help="serve gRPC health on this port (0: off); gameserver.v1.TournamentDirector "
        "is SERVING while the director's read loops make progress",
    )
    redis_opt(director)
    common(director)
    director.set_defaults(run=_director)

    from services.tournament_cli import add_commands as add_tournament_commands

    add_tournament_commands(sub, common)

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
        type=_port,
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
    redis_opt(bot)
    common(bot)
    bot.set_defaults(run=_bot)

    demo = sub.add_parser("demo", help="play an all-bot game and print its progress and scores")
    demo.add_argument("--target", metavar="HOST:PORT", help="gateway to use (default: embedded)")
    demo.add_argument(
        "--players", type=int, default=2, help="seats, all bots (the ruleset says how many)"
    )
    demo.add_argument("--seed", help="game seed (embedded server only)")
    demo.add_argument("--ruleset", default=DEFAULT_RULESET)
    demo.add_argument(
        "--options", type=_json_object, default={}, help="ruleset options as a JSON object"
    )
    demo.add_argument(
        "--solo", action="store_true", help="a solo game against Teotibot (a bot plays the human)"
    )
    demo.add_argument("--timeout", type=float, default=600.0, help="seconds before giving up")
    common(demo)
    demo.set_defaults(run=_demo)

    replay = sub.add_parser("replay", help="rebuild a game from its log and summarise it")
    replay.add_argument(
        "game_id", metavar="GAME_OR_FILE", help="game id, or a file written by teoti export"
    )
    replay.add_argument("--target", metavar="HOST:PORT", help="gateway (default 127.0.0.1:50051)")
    replay.add_argument(
        "--verify",
        action="store_true",
        help="exit 1 if the hash chain, fold, seed or rebuilt state do not check out",
    )
    replay.add_argument(
        "--public-key",
        action="append",
        metavar="FILE",
        help="with --verify: the service's public key(s) an export's signature must verify "
        "with (its /.well-known/teoti-signing-keys.json, or a PEM public key); repeatable. "
        "Without it, the keys --target publishes (ListSigningKeys)",
    )
    replay.add_argument(
        "--unsigned-ok",
        action="store_true",
        help="with --verify: accept a log without the service's signature (an export from "
        "before signatures, or from a gateway without a signing key), checking its chain alone",
    )
    replay.add_argument(
        "--step", action="store_true", help="step through the game on the terminal table"
    )
    replay.add_argument("--log-file", default=".teoti/tui.log", help="log file with --step")
    common(replay)
    replay.set_defaults(run=_replay)

    export = sub.add_parser("export", help="write a game's public log to a JSON-lines file")
    export.add_argument("game_id")
    export.add_argument("--target", metavar="HOST:PORT", help="gateway (default 127.0.0.1:50051)")
    export.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="file to write (default: stdout)"
    )
    common(export)
    export.set_defaults(run=export_game)

    play = sub.add_parser("play", help="play on a full-screen terminal table")
    play.add_argument(
        "--target",
        metavar="HOST:PORT",
        help="gateway (default: an embedded server; 127.0.0.1:50051 with --join)",
    )
    mode = play.add_mutually_exclusive_group()
    play.add_argument(
        "--ruleset",
        default=DEFAULT_RULESET,
        help=f"game of a new game (default {DEFAULT_RULESET}; --extra-ruleset adds more)",
    )
    mode.add_argument(
        "--solo",
        action="store_true",
        help="you against the game's own solo opponent (the default when it has one, "
        "e.g. Teotihuacan's Teotibot)",
    )
    mode.add_argument("--join", metavar="GAME_ID", help="play a seat of an existing game")
    mode.add_argument(
        "--players",
        type=int,
        help="you plus bot seats, not solo (the game says how many it seats)",
    )
    mode.add_argument(
        "--resume",
        metavar="GAME_ID",
        help="continue a game you played here (its seat token is in --seats-file)",
    )
    play.add_argument(
        "--token", default="", help="your seat token (with --join; default: a new one, shown)"
    )
    play.add_argument("--seat", type=int, help="open seat to claim (with --join)")
    play.add_argument("--name", default="Player", help="your name at the table")
    play.add_argument("--seed", help="game seed (embedded server only)")
    play.add_argument(
        "--options", type=_json_object, default={}, help="game options as a JSON object"
    )
    play.add_argument(
        "--base-ms", type=int, default=0, help="your clock: thinking time in ms (0: none)"
    )
    play.add_argument(
        "--increment-ms", type=int, default=0, help="ms added after each of your moves"
    )
    play.add_argument(
        "--move-deadline-ms", type=int, default=0, help="deadline of each move in ms (0: none)"
    )
    play.add_argument(
        "--timeout-policy",
        choices=["forfeit", "bot_takeover"],
        default="forfeit",
        help="out of time: you are ranked last, or a bot plays your seat until your next "
        "move (needs increment or a move deadline); default %(default)s",
    )
    play.add_argument(
        "--data-dir",
        default=".teoti/play",
        help="the embedded server's Redis data folder (kept, so games can be resumed)",
    )
    play.add_argument(
        "--seats-file",
        default=".teoti/seats.json",
        help="where your seat tokens are kept (mode 0600)",
    )
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
    watch.add_argument("--ruleset", default=DEFAULT_RULESET, help="game of a new all-bot game")
    watch.add_argument(
        "--players", type=int, help="seats of a new all-bot game (the game says how many)"
    )
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
    configure_logging(args.log_level)
    try:
        if args.command in SERVICE_COMMANDS:  # long-running: uvloop when installed
            code: int = run_service(args.run(args))
        else:
            code = asyncio.run(args.run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        message, code = _failure(error)
        print(f"teoti {args.command}: error: {message}", file=sys.stderr)
        return code
    return code


USER_ERROR_CODES = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.OUT_OF_RANGE,
    }
)
"""gRPC statuses that mean the request was wrong (exit 2); the others are the server's."""


def _failure(error: Exception) -> tuple[str, int]:
    """One line for ``error`` and the exit code: 2 bad input, 1 server-side or a bug,
    3 a timeout. Never a traceback: an unexpected error is logged (DEBUG) in full."""
    match error:
        case UsageError() | AddressInUse() | DataDirInUse() | BotSecretError():
            return str(error), 2
        case SigningKeyError() | SignatureError():
            return str(error), 2
        case RuleViolation():  # InvalidOptions too: the rule and its explanation
            return f"{error.rule}: {error.message}", 2
        case GameNotFound() | InvalidArgument() | NotAuthorized() | VersionConflict():
            return f"{type(error).__name__}: {error}", 2
        case LookupError():  # e.g. a seat that is taken
            return str(error).strip("'\""), 2
        case json.JSONDecodeError():
            return f"not valid JSON ({error})", 2
        case grpc.aio.AioRpcError():
            status = error.code()
            if status == grpc.StatusCode.UNAVAILABLE:
                return f"the server is unavailable ({error.details()})", 1
            if status == grpc.StatusCode.DEADLINE_EXCEEDED:
                return "the server did not answer in time", 1
            return f"{status.name}: {error.details()}", 2 if status in USER_ERROR_CODES else 1
        case TimeoutError():
            return "timed out", 3
        case CorruptLog():
            return f"the game's log is damaged: {error}", 1
        case PublicLogError():
            return f"not a teoti export file: {error}", 2
        case ConnectionError():
            return f"connection failed: {error}", 1
        case OSError():  # an export or replay file that can't be read or written
            return str(error), 2
    log.debug("unexpected_error", exc_info=error)
    return f"unexpected {type(error).__name__}: {error} (run with --log-level DEBUG)", 1


if __name__ == "__main__":
    # ``python -m services.cli``: run the imported module's main, so the errors modules
    # such as services.tournament_cli raise (services.cli.UsageError) are this main's.
    from services.cli import main as imported_main

    sys.exit(imported_main())
