"""Composition roots: wire store, engine, gateway and bot for each way of running them.

Nothing here runs at import time; each function builds and owns what it starts.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import grpc
import structlog
from prometheus_client.registry import Collector

from services.bot.queue import DEFAULT_MAX_DELIVERIES, TurnRequestQueue
from services.bot.reconciler import DEFAULT_INTERVAL_S, TurnReconciler
from services.bot.worker import BotWorker
from services.engine.adapters.deadlines import RedisDeadlines
from services.engine.adapters.keys import DEFAULT_SHARDS
from services.engine.adapters.redis_client import POOL_SIZE, RedisConfig, as_config
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain import rulesets
from services.engine.domain.bot_credential import BotCredential
from services.engine.domain.clock import SeedSource, random_seed, system_clock
from services.engine.domain.engine import Engine
from services.engine.domain.head_signing import HeadSigner, SigningKeys
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.engine.domain.snapshots import DEFAULT_SNAPSHOT_EVERY, SnapshotCache
from services.engine.entrypoints.servicer import start_engine_link, start_engine_server
from services.engine.entrypoints.timekeeper import Timekeeper, TimekeeperSettings
from services.engine.transport.client import EngineClient, InProcessEngineClient
from services.engine.transport.exchange_server import ENGINE_SERVICE
from services.engine.transport.link_frames import DEFAULT_LINK_PORT
from services.env_defaults import env_number
from services.gateway.lobby_servicer import LOBBY_SERVICE, LobbyServicer, lobby_quota
from services.gateway.player_servicer import PLAYER_SERVICE, PlayerServicer
from services.gateway.rating_servicer import RATING_SERVICE, RatingServicer
from services.gateway.server import GAME_SERVICE, create_server
from services.gateway.servicer import GameServicer
from services.gateway.tournament_servicer import TOURNAMENT_SERVICE, TournamentServicer
from services.gateway.watch_hub import WatchHub
from services.lobby.redis_rematches import RedisRematches
from services.lobby.redis_tables import RedisLobby
from services.lobby.retention import LobbySweeper
from services.lobby.service import LobbyService
from services.matchmaking.matcher import Matcher, epoch_ms
from services.matchmaking.redis_pool import RedisSeekPool
from services.metrics.exposition import MetricsAddress, MetricsEndpoint, start_metrics
from services.metrics.samplers import (
    LoopSampled,
    OnScrape,
    bot_queue,
    cache_lookups,
    engine_tallies,
    gauges,
    matchmaking,
    tournaments,
)
from services.notices.hub import NoticeHub
from services.notices.inbox import RedisInbox
from services.notices.notifier import Notifier
from services.notices.webhook_dispatcher import WebhookDispatcher
from services.notices.webhook_sender import WebhookSender
from services.notices.webhook_state import RedisDeliveryStates
from services.opener.opener import TableOpener, opener_name
from services.opener.streams import OpenerStreams
from services.players.repository import PlayerRepository
from services.players.service import PlayerService
from services.players.webhooks import RedisWebhooks
from services.ratings.queries import RatingQueries
from services.ratings.rater import GameRater
from services.rpc.limits import (
    DEFAULT_ACCOUNTS_BURST,
    DEFAULT_ACCOUNTS_PER_HOUR,
    DEFAULT_BURST,
    DEFAULT_CREATES_BURST,
    DEFAULT_CREATES_PER_HOUR,
    DEFAULT_LOBBY_PER_HOUR,
    DEFAULT_PLAY_STREAMS_PER_CLIENT,
    DEFAULT_RATE,
    DEFAULT_STREAMS,
    DEFAULT_STREAMS_PER_ADDRESS,
    DEFAULT_WATCHERS_PER_CLIENT,
    ClientRateLimiter,
    CreationQuota,
    PlayStreamLimit,
    StreamBudget,
    WatcherLimit,
)
from services.rpc.server import AddressInUse, health_of
from services.rpc.store_readiness import follow_store
from services.tournament.conductor import Conductor
from services.tournament.director import Director, GameFinishedQueue
from services.tournament.ratings_book import RatingsBook
from services.tournament.repository import TournamentRepository
from services.tournament.service import TournamentService
from services.web.server import WebSettings

log = structlog.get_logger(__name__)
SHUTDOWN_GRACE_S = 3.0


STORE_START_S = 10.0
"""Seconds a service waits at start for its Redis to answer (``$TEOTI_REDIS_START_S``):
then it exits 1 with one line instead of serving, and never reports ready before."""


class StoreUnavailable(ConnectionError):
    """The service's Redis did not answer within its start window (``teoti`` prints it
    as one line and exits 1)."""


async def wait_for_store(store: RedisEventStore, redis: RedisConfig | str) -> None:
    """Return once ``store``'s Redis answers PING; raise StoreUnavailable if it has not
    within ``$TEOTI_REDIS_START_S`` (default :data:`STORE_START_S`). Called before a
    service listens or logs that it serves: a process must not look ready (to a person,
    a probe or a load balancer) on a store it cannot reach. A refused connection fails
    in milliseconds and is tried again (a Redis starting beside the service); the
    message names the Redis without its password and the last error's type only (its
    text may quote the URL)."""
    within_s = env_number("TEOTI_REDIS_START_S", float, STORE_START_S)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    last: BaseException | None = None
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        try:
            await asyncio.wait_for(store.client.ping(), remaining)
            return
        except Exception as error:  # any failure: not answering (refused, auth, timeout)
            if last is None or not isinstance(error, TimeoutError):
                last = error  # the window's end cutting a try short says less than its cause
            log.debug("redis_not_answering_yet", error=repr(error))
        await asyncio.sleep(min(STORE_RETRY_S, max(deadline - loop.time(), 0)))
    raise StoreUnavailable(
        f"Redis {as_config(redis).describe()} did not answer within {within_s:g} s; is it "
        f"running and reachable? (last error: {type(last).__name__ if last else 'none'})"
    )


STORE_RETRY_S = 0.25
"""Pause between two start PINGs of :func:`wait_for_store`."""


async def _answering(store: RedisEventStore, redis: RedisConfig | str) -> RedisEventStore:
    """``store`` once its Redis answers (:func:`wait_for_store`); closed if it never does."""
    try:
        await wait_for_store(store, redis)
    except BaseException:
        await store.close()
        raise
    return store


def consumer_name() -> str:
    """A bot consumer name unique per process on this host."""
    return f"bot-{socket.gethostname()}-{os.getpid()}"


@dataclass(frozen=True)
class StoreSettings:
    """How every process of a deployment addresses Redis (must agree across processes)."""

    key_prefix: str = "teoti"
    shards: int = DEFAULT_SHARDS
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY
    pool_size: int = POOL_SIZE
    """Redis connections this process may open (see redis_client.POOL_SIZE)."""

    def store(self, redis: RedisConfig | str) -> RedisEventStore:
        """A store with these keys on ``redis`` (a URL, or a standalone/cluster config)."""
        return RedisEventStore.from_config(
            redis, prefix=self.key_prefix, shards=self.shards, pool_size=self.pool_size
        )

    def reader(self, store: RedisEventStore, registry: RulesetRegistry) -> GameReader:
        """The read side of a process that does not write the log (gateway, bot worker).

        It reads the engine's stored snapshots but never writes one: the engine trusts
        a stored snapshot's state, so letting these processes write them would let them
        (and whoever takes one over) change games; their Redis users are read-only there
        (docs/operations.md, "Redis users").
        """
        snapshots = SnapshotCache(store, registry, snapshot_every=self.snapshot_every, save=False)
        return GameReader(store, registry, snapshots)


@dataclass(frozen=True)
class GatewaySettings:
    """The gateway's limits per client (docs/operations.md, "Limits per client")."""

    rate: float = DEFAULT_RATE
    """Calls per second per seat token (else per address); <= 0: unlimited."""
    burst: float = DEFAULT_BURST
    creates_per_hour: float = DEFAULT_CREATES_PER_HOUR
    """Games each caller address may create per hour; <= 0: unlimited."""
    creates_burst: float = DEFAULT_CREATES_BURST
    accounts_per_hour: float = DEFAULT_ACCOUNTS_PER_HOUR
    """Player registrations and credential creations each caller address may make per
    hour (PlayerService); <= 0: unlimited."""
    accounts_burst: float = DEFAULT_ACCOUNTS_BURST
    lobby_per_hour: float = DEFAULT_LOBBY_PER_HOUR
    """Lobby tables opened and seeks made (LobbyService's OpenTable, Seek, OfferRematch)
    per caller address per hour; <= 0: unlimited. Its burst: limits.lobby_burst."""
    watchers_per_client: int = DEFAULT_WATCHERS_PER_CLIENT
    """WatchGame streams one client (seat token, else address) may hold open; <= 0: any."""
    play_streams_per_client: int = DEFAULT_PLAY_STREAMS_PER_CLIENT
    """Play streams one client (seat token, else address) may hold open; <= 0: any."""
    streams: int = DEFAULT_STREAMS
    """WatchGame and Play streams the process holds at once, every face together (below
    its limit of calls in flight: the rest is kept for unary calls)."""
    streams_per_address: int = DEFAULT_STREAMS_PER_ADDRESS
    """Of those, what one caller address may hold; <= 0: all of them."""
    engine_channels: int = 4
    """Engine link connections per stream slot (``teoti gateway`` only; see remote.CHANNELS)."""
    webhooks_allow_private: bool = False
    """Players' webhooks may be ``http`` and point into the deployment's own network
    (services.notices.webhook_url): for tests and a laptop, never a public service."""

    def limiter(self) -> ClientRateLimiter:
        """A fresh rate limiter with these settings."""
        return ClientRateLimiter(self.rate, self.burst)

    def quota(self) -> CreationQuota:
        """A fresh creation quota with these settings."""
        return CreationQuota(self.creates_per_hour, self.creates_burst)

    def accounts(self) -> CreationQuota:
        """A fresh quota of player registrations and credential creations per address."""
        return CreationQuota(self.accounts_per_hour, self.accounts_burst)

    def lobby(self) -> CreationQuota:
        """A fresh lobby quota per address (tables opened and seeks made)."""
        return lobby_quota(self.lobby_per_hour)

    def watchers(self) -> WatcherLimit:
        """A fresh open-watchers limit with these settings."""
        return WatcherLimit(self.watchers_per_client)

    def play_streams(self) -> PlayStreamLimit:
        """A fresh open-Play-streams limit with these settings."""
        return PlayStreamLimit(self.play_streams_per_client)

    def stream_budget(self) -> StreamBudget:
        """A fresh budget of open streams (in all and per address) with these settings:
        one per process, shared by its gRPC and web faces."""
        return StreamBudget(self.streams, self.streams_per_address)

    def limits(self) -> GatewayLimits:
        """A fresh set of every limit above, for one gateway process."""
        return GatewayLimits(
            self.limiter(),
            self.quota(),
            self.watchers(),
            self.play_streams(),
            self.stream_budget(),
            self.accounts(),
            self.lobby(),
            self.webhooks_allow_private,
        )


@dataclass(frozen=True)
class GatewayLimits:
    """The live limits of one gateway process, shared by its gRPC and web faces (a
    client gets no more by using both): :meth:`GatewaySettings.limits` makes them from
    settings; a test or an embedding program may give its own objects (a limiter with
    its own clock or address factor). Each field left out is a fresh default one."""

    limiter: ClientRateLimiter = field(default_factory=ClientRateLimiter)
    quota: CreationQuota = field(default_factory=CreationQuota)
    watchers: WatcherLimit = field(default_factory=WatcherLimit)
    play_streams: PlayStreamLimit = field(default_factory=PlayStreamLimit)
    streams: StreamBudget = field(default_factory=StreamBudget)
    accounts: CreationQuota = field(
        default_factory=lambda: CreationQuota(DEFAULT_ACCOUNTS_PER_HOUR, DEFAULT_ACCOUNTS_BURST)
    )
    lobby: CreationQuota = field(default_factory=lobby_quota)
    """LobbyService's tables opened and seeks made per address, both faces together."""
    webhooks_allow_private: bool = False
    """See :attr:`GatewaySettings.webhooks_allow_private`."""


@dataclass(frozen=True)
class BotSettings:
    """Bot worker tuning."""

    concurrency: int = 4
    claim_idle_ms: int = 30_000
    max_deliveries: int = DEFAULT_MAX_DELIVERIES
    health_address: str = ""
    """``host:port`` of the worker's gRPC health endpoint; empty: none."""
    pause_s: float = 0.0
    """Seconds each bot move waits (a person watching an all-bot game); 0: none."""
    reconcile_s: float = DEFAULT_INTERVAL_S
    """Seconds between passes republishing lost turn requests; 0: no reconciler."""


@dataclass
class Stack:
    """Everything ``teoti serve`` runs in one process."""

    port: int
    store: RedisEventStore
    engine: Engine
    reader: GameReader
    server: grpc.aio.Server
    hub: WatchHub
    tournaments: TournamentService | None = None
    web_port: int | None = None
    """Port of the web face (HTTP/JSON + SSE), None when it is off."""
    players: PlayerService | None = None
    notices: NoticeHub | None = None
    """The player streams' hub (WatchPlayer on both faces)."""
    lobby: LobbyService | None = None
    metrics_port: int | None = None
    """Port of ``/metrics`` (services.metrics), None when it is off."""


def serve_metrics(
    address: MetricsAddress | None,
    *,
    engine: Engine | None = None,
    caches: Sequence[SnapshotCache] = (),
    queue: TurnRequestQueue | None = None,
    streams: StreamBudget | None = None,
    seeks: RedisSeekPool | None = None,
    director: Director | None = None,
) -> MetricsEndpoint | None:
    """Start this process's ``/metrics`` at ``address`` (None: none), with the readers of
    what its parts count: the engine's moves and conflicts, the folded-game caches' hits,
    the bot queue's depths and the matchmaker's queues (sampled from Redis on scrape),
    the streams held, the tournaments as the director's last sweep saw them."""
    if address is None:
        return None
    collectors: list[Collector] = []
    if director is not None:
        collectors.append(OnScrape(tournaments(director)))
    if seeks is not None:
        now_ms = epoch_ms(system_clock)
        collectors.append(
            LoopSampled(asyncio.get_running_loop(), matchmaking(seeks.queue_sizes, now_ms))
        )
    if engine is not None:
        collectors.append(OnScrape(engine_tallies(engine.tallies)))
    if caches:
        collectors.append(OnScrape(cache_lookups(caches)))
    if queue is not None:
        collectors.append(LoopSampled(asyncio.get_running_loop(), bot_queue(queue.depths)))
    if streams is not None:
        budget = streams
        collectors.append(
            OnScrape(
                gauges(
                    "teoti_streams_held",
                    "Streams (WatchGame, WatchPlayer, Play) held now on every face, of the "
                    "process's budget (teoti_streams_open splits them by face and method)",
                    lambda: budget.held,
                )
            )
        )
    return start_metrics(address.host, address.port, collectors)


def director_name() -> str:
    """A director consumer name unique per process on this host."""
    return f"director-{socket.gethostname()}-{os.getpid()}"


def player_service(store: RedisEventStore, webhooks_allow_private: bool = False) -> PlayerService:
    """The player accounts on ``store``'s Redis login (it must be allowed to write the
    ``{account}`` keys: the director's user in a split deployment) and prefix; their
    webhooks may point into the deployment's own network if ``webhooks_allow_private``."""
    return PlayerService(
        PlayerRepository(store.client, store.keys.prefix),
        webhooks_allow_private=webhooks_allow_private,
    )


def notice_hub(store: RedisEventStore) -> NoticeHub:
    """The player streams' hub on ``store``'s Redis login (the players' one: it reads the
    ``{inbox:*}`` keys) and prefix."""
    return NoticeHub(RedisInbox(store.client, store.keys.prefix))


def notifier(store: RedisEventStore) -> Notifier:
    """The notifier posting ``your_turn`` notices (services.notices.notifier) on
    ``store``'s Redis login: the players' one, which reads the shards' ``player_turns``
    streams (as the notifiers' group) and writes the ``{inbox:*}`` keys."""
    return Notifier(store.client, store.keys, RedisInbox(store.client, store.keys.prefix))


def webhook_dispatcher(store: RedisEventStore, allow_private: bool) -> WebhookDispatcher:
    """The delivery of players' notices to their webhooks (services.notices
    .webhook_dispatcher) on ``store``'s Redis login: the players' one, which reads the
    ``{inbox:*}`` keys and reads and writes the ``{account}`` keys."""
    client, prefix = store.client, store.keys.prefix
    return WebhookDispatcher(
        RedisInbox(client, prefix),
        RedisWebhooks(client, prefix),
        RedisDeliveryStates(client, prefix),
        WebhookSender(allow_private),
        epoch_ms(system_clock),
    )


def rating_queries(
    store: RedisEventStore, players: PlayerService, registry: RulesetRegistry
) -> RatingQueries:
    """RatingService's reads of the rating book on ``store``'s login (it may read the
    ``{ratings:*}`` keys: the director's user in a split deployment)."""
    return RatingQueries(RatingsBook(store.client, store.keys.prefix), players, registry)


@dataclass
class LobbyParts:
    """The lobby of one gateway process: the service its faces call, and the loops it
    runs (the matcher and the table opener; every gateway runs both, sharing the work
    through Redis)."""

    service: LobbyService
    matcher: Matcher
    opener: TableOpener
    quota: CreationQuota
    """Tables opened and seeks made per address: one budget for both faces."""
    sweeper: LobbySweeper
    """Drops the tables that stopped being open, and the rematches that lapsed, a week
    ago (services.lobby.retention)."""
    seeks: RedisSeekPool
    """The seek pools, for the metrics endpoint's queue sizes."""

    def run(self, stop: asyncio.Event) -> list[asyncio.Task[None]]:
        """Start the matcher, the opener and the sweeper until ``stop``; await the tasks
        to end."""
        return [
            asyncio.create_task(self.matcher.run(stop)),
            asyncio.create_task(self.opener.run(stop)),
            asyncio.create_task(self.sweeper.run(stop)),
        ]


def lobby_parts(
    store: RedisEventStore,
    client: EngineClient,
    registry: RulesetRegistry,
    players: PlayerService,
    reader: GameReader,
    quota: CreationQuota | None = None,
) -> LobbyParts:
    """The lobby, matchmaking and table opener on ``store``'s Redis login (it must be
    allowed the ``{lobby}``, ``{mm:*}``, ``mm:pools``, ``{inbox:*}`` and ratings keys:
    the director's user in a split deployment), creating games through ``client``;
    ``reader`` reads the finished games rematches start from; ``quota``: tables opened
    and seeks made per address (default :func:`lobby_quota`, DEFAULT_LOBBY_PER_HOUR)."""
    now_ms = epoch_ms(system_clock)
    prefix = store.keys.prefix
    lobby = RedisLobby(store.client, prefix, now_ms)
    pool = RedisSeekPool(store.client, prefix)
    inbox = RedisInbox(store.client, prefix)
    service = LobbyService(
        lobby,
        pool,
        RatingsBook(store.client, prefix),
        registry,
        store.client,
        prefix,
        now_ms,
        reader,
        inbox,
    )
    opener = TableOpener(
        OpenerStreams(store.client, opener_name()),
        lobby,
        RedisSeekPool(store.client, prefix),
        inbox,
        players,
        client,
        now_ms,
    )
    matcher = Matcher(RedisSeekPool(store.client, prefix), now_ms)
    return LobbyParts(
        service,
        matcher,
        opener,
        quota or lobby_quota(),
        LobbySweeper(lobby, now_ms, rematches=RedisRematches(store.client, prefix)),
        RedisSeekPool(store.client, prefix),
    )


def tournament_parts(
    store: RedisEventStore,
    client: EngineClient,
    reader: GameReader,
    registry: RulesetRegistry,
    sweep_s: float = 30.0,
) -> tuple[TournamentService, Director]:
    """The tournament service and a director over ``store``, creating games through
    ``client`` (the composition of every process that hosts tournaments)."""
    ratings = RatingsBook(store.client, store.keys.prefix)
    notices = RedisInbox(store.client, store.keys.prefix)
    conductor = Conductor(TournamentRepository(store), client, reader, ratings, notices)
    # Ratings outside tournaments (issue 32): the director hands on the finished games
    # no tournament owns to the rater, in its own consumer group (services.ratings).
    rater = GameRater(reader, ratings, notices, store.client, store.keys.prefix)
    director = Director(
        GameFinishedQueue(store.client, store.keys, director_name()),
        conductor,
        sweep_s=sweep_s,
        others=rater,
    )
    return TournamentService(conductor, registry, ratings), director


def _bot(
    store: RedisEventStore, reader: GameReader, client: EngineClient, bot: BotSettings
) -> BotWorker:
    queue = TurnRequestQueue(
        store.client, store.keys, consumer=consumer_name(), max_deliveries=bot.max_deliveries
    )
    return BotWorker(
        queue,
        reader,
        client,
        concurrency=bot.concurrency,
        claim_idle_ms=bot.claim_idle_ms,
        pause_s=bot.pause_s,
        reconciler=(
            TurnReconciler(store.client, store.keys, reader, bot.reconcile_s, queue.group)
            if bot.reconcile_s > 0
            else None
        ),
    )


def _timekeeper(
    engine: Engine, store: RedisEventStore, settings: TimekeeperSettings, stop: asyncio.Event
) -> asyncio.Task[None] | None:
    """Start the engine process's timekeeper (None when ``interval_s`` <= 0: then no
    process of this engine times out seats; run it in at least one engine)."""
    if settings.interval_s <= 0:
        log.warning("timekeeper_disabled")
        return None
    keeper = Timekeeper(engine, RedisDeadlines(store.client, store.keys), settings)
    return asyncio.create_task(keeper.run(stop))


@asynccontextmanager
async def all_in_one(
    redis_url: RedisConfig | str,
    address: str = "127.0.0.1:0",
    registry: RulesetRegistry | None = None,
    *,
    store: StoreSettings | None = None,
    limits: GatewayLimits | None = None,
    bot: BotSettings | None = None,
    timekeeper: TimekeeperSettings | None = None,
    web_address: str | None = None,
    web: WebSettings | None = None,
    signing: SigningKeys | None = None,
    seed_source: SeedSource = random_seed,
    default_ruleset: str | None = None,
    director: bool = True,
    lobby_loop: bool = True,
    metrics: MetricsAddress | None = None,
) -> AsyncIterator[Stack]:
    """Gateway + engine + bot worker in this process, on the Redis at ``redis_url``
    (a URL, or a :class:`RedisConfig` for a standalone Redis or a Redis Cluster).

    ``store``: keys, shards, snapshots and pool size (default :class:`StoreSettings`);
    ``limits``: the gateway's limits, one set shared by its gRPC and web faces (default
    ``GatewaySettings().limits()``); ``bot``: the bot worker's concurrency, pause per
    move and the rest of :class:`BotSettings` (its ``health_address`` is not served
    here: ``serve``'s health is the gateway's); ``timekeeper``: the clocks' timekeeper
    (default :class:`TimekeeperSettings`; interval 0: none); ``web_address``:
    ``host:port`` of the web face (services.web; port 0: a free one), None for none;
    ``web``: its settings; ``signing``: the keys the gateway signs heads with and
    publishes (default: a key made for this run, held in memory only; ``teoti serve``
    passes the one in its data dir); ``director``: run a tournament director here
    (TournamentService is served either way); ``lobby_loop``: run the matcher and
    the table opener here (LobbyService is served either way); ``metrics``: where to
    serve ``/metrics`` (services.metrics; None: nowhere).

    Yields once the gateway is serving; on exit stops the gateway (graceful), then the
    bot worker (finishing in-flight requests), then closes Redis.
    """
    registry = registry or default_registry()
    default_ruleset = default_ruleset or rulesets.default_ruleset()
    settings = store or StoreSettings()
    # One set of limits for both faces: a client gets no more by using both.
    limits = limits or GatewaySettings().limits()
    log_store = await _answering(settings.store(redis_url), redis_url)
    snapshots = SnapshotCache(log_store, registry, snapshot_every=settings.snapshot_every)
    engine = Engine(
        log_store,
        registry,
        seed_source=seed_source,
        snapshots=snapshots,
    )
    client = InProcessEngineClient(engine)
    bot_client = InProcessEngineClient(engine, bot_key=engine.bot_credential.secret)
    reader = GameReader(log_store, registry, snapshots)
    hub = WatchHub(log_store)
    tournaments, director_loop = tournament_parts(log_store, client, reader, registry)
    players = player_service(log_store, limits.webhooks_allow_private)
    notices = notice_hub(log_store)
    ratings = rating_queries(log_store, players, registry)
    lobby = lobby_parts(log_store, client, registry, players, reader, limits.lobby)
    signing = signing or SigningKeys(HeadSigner.generate())
    server, port = await create_server(
        address,
        reader,
        client,
        default_ruleset,
        limits.limiter,
        limits.quota,
        hub,
        limits.watchers,
        tournaments,
        limits.play_streams,
        signing,
        limits.streams,
        players=players,
        accounts=limits.accounts,
        notices=notices,
        ratings=ratings,
        lobby=lobby.service,
        lobby_quota=lobby.quota,
    )
    web_server = None
    if web_address is not None:
        from services.web.gateway import start_game_web

        try:
            web_server = await start_game_web(
                web_address,
                GameServicer(
                    reader,
                    client,
                    default_ruleset,
                    hub,
                    limits.limiter,
                    limits.quota,
                    limits.watchers,
                    limits.play_streams,
                    signing,
                    limits.streams,
                    players=players,
                ),
                web,
                TournamentServicer(
                    tournaments, default_ruleset, limits.limiter, limits.quota, players
                ),
                PlayerServicer(
                    players,
                    limits.limiter,
                    limits.accounts,
                    notices,
                    limits.watchers,
                    limits.streams,
                ),
                ratings=RatingServicer(ratings, limits.limiter),
                lobby=LobbyServicer(lobby.service, players, limits.limiter, lobby.quota),
            )
        except BaseException:
            await server.stop(None)
            await hub.close()
            await notices.close()
            await log_store.close()
            raise
    stop = asyncio.Event()
    readiness = asyncio.create_task(
        follow_store(
            log_store.client.ping,
            health_of(server),
            (GAME_SERVICE, TOURNAMENT_SERVICE, PLAYER_SERVICE, RATING_SERVICE, LOBBY_SERVICE),
            stop,
        )
    )
    lobby_loops = lobby.run(stop) if lobby_loop else []
    directing = asyncio.create_task(director_loop.run(stop)) if director else None
    notifying = asyncio.create_task(notifier(log_store).run(stop))
    webhooks = webhook_dispatcher(log_store, limits.webhooks_allow_private)
    delivering = asyncio.create_task(webhooks.run(stop))
    bots = _bot(log_store, reader, bot_client, bot or BotSettings())
    worker = asyncio.create_task(bots.run(stop))
    keeper = _timekeeper(engine, log_store, timekeeper or TimekeeperSettings(), stop)
    log.info(
        "serving",
        port=port,
        redis=as_config(redis_url).describe(),
        key_prefix=settings.key_prefix,
    )
    exposed: MetricsEndpoint | None = None
    try:
        exposed = serve_metrics(
            metrics,
            engine=engine,
            caches=[snapshots],
            queue=bots.queue,
            streams=limits.streams,
            seeks=lobby.seeks if lobby_loop else None,
            director=director_loop if director else None,
        )
        yield Stack(
            port,
            log_store,
            engine,
            reader,
            server,
            hub,
            tournaments,
            web_server.port if web_server else None,
            players,
            notices,
            lobby.service,
            exposed.port if exposed else None,
        )
    finally:
        if exposed is not None:
            exposed.close()
        if web_server is not None:
            await web_server.stop()
        await server.stop(SHUTDOWN_GRACE_S)
        await hub.close()
        await notices.close()
        stop.set()
        await worker
        await readiness
        if directing is not None:
            await directing
        await notifying
        await delivering
        await webhooks.close()
        for loop in lobby_loops:
            await loop
        if keeper is not None:
            await keeper
        await log_store.close()


async def run_engine(
    redis: RedisConfig | str,
    address: str,
    registry: RulesetRegistry,
    stop: asyncio.Event,
    settings: StoreSettings | None = None,
    timekeeper: TimekeeperSettings | None = None,
    link_port: int = DEFAULT_LINK_PORT,
    metrics: MetricsAddress | None = None,
) -> None:
    """``teoti engine``: the engine link (services.engine.transport.link_server) on
    ``address``'s host at ``link_port`` (0: any free port), the gRPC server (health and
    reflection, which readiness uses) at ``address``, and the clocks' timekeeper, until
    ``stop``.

    Bot seats take commands carrying ``TEOTI_BOT_SECRET`` (services.engine.domain.bot_credential).
    Raises BotSecretError before anything starts when it is unset or a placeholder (no
    separate bot worker could play), AddressInUse when the link's port is taken.
    """
    credential = BotCredential.for_split_process()
    settings = settings or StoreSettings()
    store = await _answering(settings.store(redis), redis)
    snapshots = SnapshotCache(store, registry, snapshot_every=settings.snapshot_every)
    engine = Engine(
        store,
        registry,
        snapshots=snapshots,
        bot_credential=credential,
    )
    # Before the gRPC server: once its health says SERVING, the link takes connections.
    host = address.rpartition(":")[0]
    try:
        link, link_port = await start_engine_link(engine, host, link_port, stopping=stop)
    except OSError as error:
        raise AddressInUse(f"{host}:{link_port}") from error
    try:
        server, port = await start_engine_server(address)
    except BaseException:
        await link.stop(None)
        raise
    keeper = _timekeeper(engine, store, timekeeper or TimekeeperSettings(), stop)
    readiness = asyncio.create_task(
        follow_store(store.client.ping, health_of(server), (ENGINE_SERVICE,), stop)
    )
    # The CLI checked the port is free (services.cli.service_options.metrics_address).
    exposed = serve_metrics(metrics, engine=engine, caches=[snapshots])
    log.info("engine_serving", port=port, link_port=link_port, redis=as_config(redis).describe())
    await stop.wait()
    if exposed is not None:
        exposed.close()
    await asyncio.gather(server.stop(SHUTDOWN_GRACE_S), link.stop(SHUTDOWN_GRACE_S))
    if keeper is not None:
        await keeper
    await readiness
    await store.close()


async def run_gateway(
    redis: RedisConfig | str,
    address: str,
    engine_target: str,
    registry: RulesetRegistry,
    stop: asyncio.Event,
    settings: StoreSettings | None = None,
    gateway: GatewaySettings | None = None,
    web_address: str | None = None,
    web: WebSettings | None = None,
    tournament_redis: RedisConfig | str | None = None,
    signing: SigningKeys | None = None,
    metrics: MetricsAddress | None = None,
) -> None:
    """``teoti gateway``: GameService and TournamentService, writing through a remote
    engine (no director: run ``teoti director``); with ``web_address`` (``host:port``)
    also their web face (services.web) over the same servicer objects and limits.

    ``signing``: the keys it signs heads with and publishes; without a signer it signs
    nothing (GetSignedHead refused with ``signing_key_missing``, logged at start as the
    warning ``signing_key_missing``).

    ``tournament_redis``: the Redis login of TournamentService (the director's user,
    which may write tournament logs and nothing of a game; docs/operations.md, "Redis
    users"); None: the gateway's own (a deployment with one Redis user for all).
    """
    from services.engine.transport.remote import RemoteEngineClient

    settings = settings or StoreSettings()
    gateway = gateway or GatewaySettings()
    store = await _answering(settings.store(redis), redis)
    tournament_store = store
    if tournament_redis:
        try:
            tournament_store = await _answering(settings.store(tournament_redis), tournament_redis)
        except BaseException:
            await store.close()
            raise
    client = RemoteEngineClient(engine_target, channels=gateway.engine_channels)
    hub = WatchHub(store)
    reader = settings.reader(store, registry)
    # TournamentService here too (its Start creates round 1's games through the engine);
    # the directors run as their own processes (teoti director).
    tournaments, _director = tournament_parts(
        tournament_store, client, settings.reader(tournament_store, registry), registry
    )
    # Player accounts on the same login as tournaments (it may write their keys).
    players = player_service(tournament_store, gateway.webhooks_allow_private)
    notices = notice_hub(tournament_store)
    ratings = rating_queries(tournament_store, players, registry)  # the director's login
    # The lobby, the matcher and the table opener on that login too (issue 32).
    lobby = lobby_parts(tournament_store, client, registry, players, reader, gateway.lobby())
    limiter, quota, watchers = gateway.limiter(), gateway.quota(), gateway.watchers()
    play_streams = gateway.play_streams()
    accounts = gateway.accounts()
    signing = signing or SigningKeys(None)
    if signing.signer is None:
        log.warning(
            "signing_key_missing",
            hint="set --signing-key-file / TEOTI_SIGNING_KEY_FILE: this gateway signs no head, "
            "and exports from it are unsigned",
        )
    streams = gateway.stream_budget()  # one budget for both faces, as the limits above
    server, port = await create_server(
        address,
        reader,
        client,
        limiter=limiter,
        quota=quota,
        hub=hub,
        watchers=watchers,
        tournaments=tournaments,
        play_streams=play_streams,
        signing=signing,
        streams=streams,
        players=players,
        accounts=accounts,
        notices=notices,
        ratings=ratings,
        lobby=lobby.service,
        lobby_quota=lobby.quota,
    )
    web_server = None
    if web_address is not None:
        from services.web.gateway import start_game_web

        servicer = GameServicer(
            reader,
            client,
            rulesets.default_ruleset(),
            hub,
            limiter,
            quota,
            watchers,
            play_streams,
            signing,
            streams,
            players=players,
        )
        web_server = await start_game_web(
            web_address,
            servicer,
            web,
            TournamentServicer(tournaments, rulesets.default_ruleset(), limiter, quota, players),
            PlayerServicer(players, limiter, accounts, notices, watchers, streams),
            ratings=RatingServicer(ratings, limiter),
            lobby=LobbyServicer(lobby.service, players, limiter, lobby.quota),
        )
    # your_turn notices, on the players' login (it writes their inboxes), and their
    # webhooks (it reads the inboxes and the accounts' webhooks).
    notifying = asyncio.create_task(notifier(tournament_store).run(stop))
    webhooks = webhook_dispatcher(tournament_store, gateway.webhooks_allow_private)
    delivering = asyncio.create_task(webhooks.run(stop))
    readiness = asyncio.create_task(
        follow_store(
            store.client.ping,
            health_of(server),
            (GAME_SERVICE, TOURNAMENT_SERVICE, PLAYER_SERVICE, RATING_SERVICE, LOBBY_SERVICE),
            stop,
        )
    )
    lobby_loops = lobby.run(stop)
    exposed = serve_metrics(metrics, caches=[reader.snapshots], streams=streams, seeks=lobby.seeks)
    log.info(
        "gateway_serving",
        port=port,
        web_port=web_server.port if web_server else None,
        engine=engine_target,
        tournament_redis=as_config(tournament_redis).describe() if tournament_redis else "",
        engine_channels=gateway.engine_channels,
        signing_key_id=signing.signer.key_id if signing.signer else "",
        redis=as_config(redis).describe(),
        redis_pool_size=settings.pool_size,
    )
    await stop.wait()
    if exposed is not None:
        exposed.close()
    if web_server is not None:
        await web_server.stop()
    await server.stop(SHUTDOWN_GRACE_S)
    await readiness
    await notifying
    await delivering
    await webhooks.close()
    for loop in lobby_loops:
        await loop
    await hub.close()
    await notices.close()
    await client.close()
    if tournament_store is not store:
        await tournament_store.close()
    await store.close()


async def run_bot(
    redis: RedisConfig | str,
    engine_target: str,
    registry: RulesetRegistry,
    stop: asyncio.Event,
    settings: StoreSettings | None = None,
    bot: BotSettings | None = None,
    metrics: MetricsAddress | None = None,
) -> None:
    """``teoti bot``: the bot worker alone, submitting through a remote engine over the
    engine link (``engine_target`` names link addresses). Raises
    BotSecretError before anything starts when ``TEOTI_BOT_SECRET`` is unset or a
    placeholder (the engine would refuse every move)."""
    from services.engine.transport.remote import RemoteEngineClient

    credential = BotCredential.for_split_process()
    settings = settings or StoreSettings()
    store = await _answering(settings.store(redis), redis)
    client = RemoteEngineClient(engine_target, bot_key=credential.secret)
    log.info("bot_connecting", engine=engine_target, redis=as_config(redis).describe())
    bot = bot or BotSettings()
    reader = settings.reader(store, registry)
    worker = _bot(store, reader, client, bot)
    exposed = serve_metrics(metrics, caches=[reader.snapshots], queue=worker.queue)
    if bot.health_address:
        from services.bot.health import BotHealth

        health = BotHealth(worker, bot.health_address)
        await asyncio.gather(worker.run(stop), health.run(stop))
    else:
        await worker.run(stop)
    if exposed is not None:
        exposed.close()
    await client.close()
    await store.close()


async def run_director(
    redis: RedisConfig | str,
    engine_target: str,
    registry: RulesetRegistry,
    stop: asyncio.Event,
    settings: StoreSettings | None = None,
    health_address: str = "",
    metrics: MetricsAddress | None = None,
) -> None:
    """``teoti director``: the tournament director alone, creating games through a
    remote engine over the engine link (run as many as you like: they share one consumer
    group; ``engine_target`` names link addresses).
    ``health_address``: ``host:port`` of its gRPC health endpoint (empty: none)."""
    from services.engine.transport.remote import RemoteEngineClient

    settings = settings or StoreSettings()
    store = await _answering(settings.store(redis), redis)
    client = RemoteEngineClient(engine_target)
    _service, director = tournament_parts(store, client, settings.reader(store, registry), registry)
    log.info("director_connecting", engine=engine_target, redis=as_config(redis).describe())
    exposed = serve_metrics(metrics, director=director)
    if health_address:
        from services.rpc.progress_health import ProgressHealth
        from services.tournament.director import DIRECTOR_SERVICE

        health = ProgressHealth(director, DIRECTOR_SERVICE, health_address)
        await asyncio.gather(director.run(stop), health.run(stop))
    else:
        await director.run(stop)
    if exposed is not None:
        exposed.close()
    await client.close()
    await store.close()
