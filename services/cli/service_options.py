"""The options of the service commands (serve, engine, gateway, bot, director, archive)
and what they mean: each group of flags with its ``$TEOTI_...`` default, and the
settings objects of :mod:`services.app` read from the parsed flags."""

from __future__ import annotations

import argparse
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from services.cli.errors import UsageError
from services.cli.options import port
from services.engine.adapters.key_files import RETIRED_KEYS_ENV, SIGNING_KEY_ENV
from services.engine.adapters.keys import DEFAULT_SHARDS
from services.engine.adapters.redis_client import POOL_SIZE
from services.engine.domain.snapshots import DEFAULT_SNAPSHOT_EVERY
from services.env_defaults import env_number
from services.rpc.limits import (
    DEFAULT_ACCOUNTS_PER_HOUR,
    DEFAULT_CREATES_PER_HOUR,
    DEFAULT_LOBBY_PER_HOUR,
    DEFAULT_PLAY_STREAMS_PER_CLIENT,
    DEFAULT_RATE,
    DEFAULT_STREAMS,
    DEFAULT_STREAMS_PER_ADDRESS,
    DEFAULT_WATCHERS_PER_CLIENT,
)
from services.rpc.server import AddressInUse

if TYPE_CHECKING:  # services.app loads the whole server: imported when a command runs
    from services.app import GatewaySettings, StoreSettings
    from services.engine.adapters.redis_client import RedisConfig
    from services.engine.domain.head_signing import SigningKeys
    from services.engine.entrypoints.timekeeper import TimekeeperSettings
    from services.metrics.exposition import MetricsAddress
    from services.web.server import WebSettings

log = structlog.get_logger("teoti")

ENGINE_HELP = (
    "the engines' link addresses (their --link-port): HOST:PORT, IP:PORT,IP:PORT, or "
    "dns:///engines:50053 (connections go to each address in turn; default %(default)s)"
)
"""Help of ``--engine``, the engines a gateway, bot worker or director writes through."""

DEFAULT_ENGINE = "127.0.0.1:50053"
"""Default of ``--engine``: a local engine's link (services.engine.transport.link_server.
DEFAULT_LINK_PORT)."""

TOURNAMENT_USERNAME_ENV = "TEOTI_TOURNAMENT_REDIS_USERNAME"
"""Default of the gateway's ``--tournament-redis-username``."""
TOURNAMENT_PASSWORD_ENV = "TEOTI_TOURNAMENT_REDIS_PASSWORD"
"""The password of ``--tournament-redis-username`` (never a flag: flags show in ``ps``)."""

ANY_PORT = -1
"""``--web-port any``: a port the system chooses when the web face binds it."""


def web_port(text: str) -> int:
    """``--web-port``: a port (0: off), or ``any`` (:data:`ANY_PORT`): the system
    chooses at bind time, and ``teoti_serve_ready`` logs it (a port picked beforehand
    may be taken before it is bound). Raises ArgumentTypeError."""
    return ANY_PORT if text.strip().lower() == "any" else port(text)


def add_redis_options(p: argparse.ArgumentParser) -> None:
    """The Redis of a service command and how its keys are laid out (the same in every
    process of a deployment): read them with :func:`redis_config` and
    :func:`store_settings`."""
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


def add_limit_options(p: argparse.ArgumentParser) -> None:
    """The gateway's limits per client (docs/operations.md, "Limits per client"); read
    them with :func:`gateway_settings`."""
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
        "--accounts-per-hour",
        type=float,
        default=env_number("TEOTI_ACCOUNTS_PER_HOUR", float, DEFAULT_ACCOUNTS_PER_HOUR),
        help="player registrations and credential creations each caller address may make "
        "per hour; 0: unlimited (default $TEOTI_ACCOUNTS_PER_HOUR or %(default)s)",
    )
    p.add_argument(
        "--lobby-per-hour",
        type=float,
        default=env_number("TEOTI_LOBBY_PER_HOUR", float, DEFAULT_LOBBY_PER_HOUR),
        help="lobby tables opened and matchmaking seeks made (OpenTable, Seek, "
        "OfferRematch) each caller address may make per hour, in bursts of at most 60; "
        "0: unlimited (default $TEOTI_LOBBY_PER_HOUR or %(default)s)",
    )
    p.add_argument(
        "--webhooks-allow-private",
        action="store_true",
        default=os.environ.get("TEOTI_WEBHOOKS_ALLOW_PRIVATE", "") == "1",
        help="players' webhooks may be http:// and point at loopback or private addresses "
        "(tests, a laptop; never on a public service; default: $TEOTI_WEBHOOKS_ALLOW_PRIVATE=1)",
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


def add_signing_options(p: argparse.ArgumentParser, fallback: str) -> None:
    """The gateway's signing key and retired keys; ``fallback`` says what it signs with
    when neither flag nor variable names a key. Read them with :func:`signing`."""
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


def add_web_options(p: argparse.ArgumentParser, default_port: int) -> None:
    """The web face's port (``default_port`` unless ``$TEOTI_WEB_PORT``) and CORS
    origins; read them with :func:`web_face`."""
    p.add_argument(
        "--web-port",
        type=web_port,
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


def add_timekeeper_option(p: argparse.ArgumentParser) -> None:
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


METRICS_PORT_ENV = "TEOTI_METRICS_PORT"
"""Default of ``--metrics-port`` (deploy/k8s sets it per container)."""


def add_metrics_options(p: argparse.ArgumentParser, command: str, default_host: str | None) -> None:
    """``--metrics-port`` and ``--metrics-host``: where the process serves Prometheus's
    ``/metrics`` (services.metrics), off its public ports. Read them with
    :func:`metrics_address`."""
    from services.metrics.exposition import METRICS_PORTS

    p.add_argument(
        "--metrics-port",
        type=port,
        default=env_number(METRICS_PORT_ENV, int, 0),
        help=f"serve Prometheus metrics at http://HOST:PORT/metrics (docs/operations.md "
        f"'Metrics'; deploy/k8s uses {METRICS_PORTS[command]} for {command}); 0: off "
        f"(default ${METRICS_PORT_ENV} or %(default)s)",
    )
    p.add_argument(
        "--metrics-host",
        default=os.environ.get("TEOTI_METRICS_HOST") or default_host,
        help="address the metrics port listens on (default $TEOTI_METRICS_HOST, else "
        f"{'--host' if default_host is None else default_host})",
    )


def metrics_address(args: argparse.Namespace) -> MetricsAddress | None:
    """Where ``/metrics`` is served (None: ``--metrics-port 0``, off), checked free now:
    raises AddressInUse, before anything listens, rather than after the service started."""
    from services.metrics.exposition import MetricsAddress

    if not args.metrics_port:
        return None
    host = args.metrics_host or args.host
    port_is_free(host, args.metrics_port)
    return MetricsAddress(host.strip("[]"), args.metrics_port)


def store_settings(args: argparse.Namespace) -> StoreSettings:
    """The key layout and pool size of :func:`add_redis_options`' flags."""
    from services.app import StoreSettings

    return StoreSettings(args.key_prefix, args.shards, args.snapshot_every, args.redis_pool_size)


def gateway_settings(args: argparse.Namespace) -> GatewaySettings:
    """The limits of :func:`add_limit_options`' flags (a burst of twice the rate), and
    the engine channels of ``teoti gateway``."""
    from services.app import GatewaySettings

    return GatewaySettings(
        rate=args.rate_limit,
        burst=args.rate_limit * 2,
        creates_per_hour=args.creates_per_hour,
        accounts_per_hour=args.accounts_per_hour,
        lobby_per_hour=args.lobby_per_hour,
        watchers_per_client=args.max_watchers_per_client,
        play_streams_per_client=args.max_play_streams_per_client,
        streams_per_address=args.max_streams_per_address,
        engine_channels=getattr(args, "engine_channels", 4),
        webhooks_allow_private=args.webhooks_allow_private,
    )


def timekeeper_settings(args: argparse.Namespace) -> TimekeeperSettings:
    """The timekeeper of ``teoti serve`` / ``teoti engine`` (services.engine.domain.timing)."""
    from services.engine.entrypoints.timekeeper import TimekeeperSettings

    return TimekeeperSettings(interval_s=args.timekeeper_interval)


def redis_config(args: argparse.Namespace) -> RedisConfig | None:
    """The Redis of a service command: flags, else REDIS_CLUSTER_NODES, else REDIS_URL;
    None when none is given. Raises UsageError for a malformed one."""
    from services.engine.adapters.redis_client import RedisConfig

    try:
        return RedisConfig.resolve(args.redis_url, args.redis_cluster_nodes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def need_redis(args: argparse.Namespace) -> RedisConfig:
    """:func:`redis_config`, which a split service must have. Raises UsageError."""
    config = redis_config(args)
    if config is None:
        raise UsageError(
            "give --redis-url / REDIS_URL, or --redis-cluster-nodes / "
            "REDIS_CLUSTER_NODES (shared with the other services)"
        )
    return config


def engine_target(args: argparse.Namespace) -> str:
    """``--engine``, checked up front: the engine link's addresses are host:port pairs
    (services.engine.transport.link_client.parse_target). Raises UsageError."""
    from services.engine.transport.link_client import parse_target

    try:
        parse_target(args.engine)
    except ValueError as error:
        raise UsageError(f"--engine: {error}") from None
    return str(args.engine)


def tournament_login(args: argparse.Namespace, redis: RedisConfig) -> RedisConfig | None:
    """The Redis of the gateway's TournamentService: ``redis`` logging in as
    ``--tournament-redis-username`` with ``$TEOTI_TOURNAMENT_REDIS_PASSWORD`` (the
    director's user, docs/operations.md "Redis users"), or None (the gateway's own).
    Raises UsageError when the user is given without its password."""
    username = args.tournament_redis_username
    password = os.environ.get(TOURNAMENT_PASSWORD_ENV, "")
    if not username:
        return None
    if not password:
        raise UsageError(f"--tournament-redis-username needs ${TOURNAMENT_PASSWORD_ENV} set")
    return redis.with_login(username, password)


def signing(args: argparse.Namespace, generated: Path | None) -> SigningKeys:
    """The gateway's signing keys (services.engine.domain.head_signing): ``--signing-key-file``,
    else (``teoti serve``) the key at ``generated``, made there on first run (mode 0600);
    else none. ``--retired-signing-keys``: public keys it signed with before, still
    published. Raises SigningKeyError for a key file it cannot use."""
    from services.engine.adapters.key_files import (
        load_or_create_signer,
        load_signer,
        read_public_keys,
    )
    from services.engine.domain.head_signing import SigningKeys

    signer = None
    if args.signing_key_file:
        signer = load_signer(Path(args.signing_key_file))
    elif generated is not None:
        signer, created = load_or_create_signer(generated)
        if created:
            log.info("signing_key_created", path=str(generated), key_id=signer.key_id)
    retired = read_public_keys(Path(args.retired_signing_keys)) if args.retired_signing_keys else []
    if signer is not None:
        log.info("signing_key_loaded", key_id=signer.key_id, retired=len(retired))
    return SigningKeys(signer, retired)


def web_face(args: argparse.Namespace) -> tuple[str | None, WebSettings | None]:
    """(``host:port`` of the web face or None when ``--web-port 0``, its settings).
    Raises AddressInUse when the port is taken."""
    from services.web.server import WebSettings

    if args.web_port == 0:
        return None, None
    chosen = 0 if args.web_port == ANY_PORT else args.web_port  # 0: the system's choice
    port_is_free(args.host, chosen)
    origins = tuple(o.strip() for o in args.web_cors_origins.split(",") if o.strip())
    return address(args.host, chosen), WebSettings(cors_origins=origins)


def address(host: str, port_number: int) -> str:
    """``host:port`` as gRPC and the web face bind it: an IPv6 literal (``::1``, given
    with or without brackets) bracketed, ``[::1]:port`` (gRPC reads ``::1:port`` as a
    malformed name)."""
    bare = host.strip("[]")
    return f"[{bare}]:{port_number}" if ":" in bare else f"{bare}:{port_number}"


_ANY_HOST = {"", "0.0.0.0", "::", "[::]"}
"""Hosts that mean every interface: a browser on this machine opens them as loopback."""


def web_url(host: str, port_number: int) -> str:
    """The URL a person opens to play on the web face bound to ``host:port_number``
    (issue 33: ``teoti serve`` prints it): ``http://127.0.0.1:8080/``; a wildcard host
    (``0.0.0.0``, ``::``) is reached at ``127.0.0.1``, an IPv6 literal bracketed."""
    bare = host.strip("[]")
    if host in _ANY_HOST or bare in _ANY_HOST:
        bare = "127.0.0.1"
    return f"http://{address(bare, port_number)}/"


def port_is_free(host: str, port_number: int) -> None:
    """Raise AddressInUse if ``host:port`` has a listener, before gRPC tries to bind it
    (whose C core would print its own raw error line first)."""
    if port_number == 0:
        return
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
        try:
            probe.bind((host.strip("[]"), port_number))
        except OSError as error:
            raise AddressInUse(f"{host}:{port_number}") from error
