"""The table opener against a real Redis (services.opener): a started lobby table and a
placed match each get exactly one game, every player's seat bound to that player and
bots where the table has them; the game is recorded on the table and every player is
told; a redelivered entry opens no second game; a game the engine refuses marks the
table failed and tells its players; an entry a dead gateway read is taken over; a pass
over more tables than are opened at once opens each once and tells each player once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from services.lobby.redis_tables import RedisLobby
from services.lobby.tables import LobbyTable, TableStatus, is_full, join, open_table, start
from services.matchmaking.matcher import Matcher
from services.matchmaking.redis_pool import RedisSeekPool
from services.matchmaking.seeks import RatingWindow, Seek
from services.notices.inbox import RedisInbox
from services.opener.opener import OPEN_CONCURRENCY, TableOpener
from services.opener.streams import OpenerStreams
from services.players.repository import PlayerRepository
from services.players.service import PlayerService

NOW = 1_700_000_000_000
RULESET = "nim"  # the test ruleset (tests/nim.py): 2 to 4 seats


@dataclass
class World:
    store: RedisEventStore
    lobby: RedisLobby
    pool: RedisSeekPool
    inbox: RedisInbox
    players: PlayerService
    reader: GameReader
    client: InProcessEngineClient

    def opener(self, consumer: str = "gw-1", claim_idle_ms: int = 10_000) -> TableOpener:
        return TableOpener(
            OpenerStreams(self.store.client, consumer),
            self.lobby,
            self.pool,
            self.inbox,
            self.players,
            self.client,
            lambda: NOW,
            claim_idle_ms=claim_idle_ms,
        )

    async def player(self, name: str) -> str:
        player, _info, _credential = await self.players.register(name)
        return player.player_id


@pytest.fixture
async def world(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[World]:
    store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    engine = Engine(store, registry)
    yield World(
        store,
        RedisLobby(store.client, key_prefix, lambda: NOW),
        RedisSeekPool(store.client, key_prefix),
        RedisInbox(store.client, key_prefix, shards=4),
        PlayerService(PlayerRepository(store.client, key_prefix)),
        GameReader(store, registry),
        InProcessEngineClient(engine),
    )
    await store.close()


async def fill(world: World, table: LobbyTable, guests: list[str]) -> LobbyTable:
    await world.lobby.create(table)
    for guest in guests:

        def decide(t: LobbyTable, guest: str = guest) -> LobbyTable:
            seated = join(t, guest)
            return start(seated, by=guest) if is_full(seated) else seated

        table = await world.lobby.change(table.table_id, decide)
    return table


async def kinds(world: World, player: str) -> list[tuple[str, dict[str, object]]]:
    return [(n.kind.value, dict(n.data)) for n in await world.inbox.since(player)]


async def test_a_filled_lobby_table_opens_one_game_with_every_seat_bound(world: World) -> None:
    host, guest = await world.player("Ada"), await world.player("Bea")
    await fill(world, open_table("t-1", host, RULESET, 2, created_ms=NOW), [guest])

    assert await world.opener().pass_once() == 1

    table = await world.lobby.get("t-1")
    assert table.status is TableStatus.STARTED and table.game_id
    game = await world.reader.load(table.game_id)
    assert [(s.kind, s.player, s.name) for s in game.seats] == [
        (SeatKind.HUMAN, host, "Ada"),
        (SeatKind.HUMAN, guest, "Bea"),
    ]
    for seat, player in enumerate((host, guest)):
        assert await kinds(world, player) == [
            ("table_filled", {"table_id": "t-1", "game_id": table.game_id}),
            (
                "game_started",
                {"game_id": table.game_id, "ruleset": RULESET, "seat": seat, "table_id": "t-1"},
            ),
        ]
    # Nothing left for another pass, and the entry is gone from the stream.
    assert await world.opener().pass_once() == 0
    assert await world.store.client.xlen(world.lobby.starting_key) == 0


async def test_a_redelivered_table_opens_the_same_game(world: World) -> None:
    host, guest = await world.player("Ada"), await world.player("Bea")
    started = await fill(world, open_table("t-2", host, RULESET, 2, created_ms=NOW), [guest])
    opener = world.opener()
    first = await opener.open(started, matched=False)
    again = await opener.open(started, matched=False)
    assert first.game_id == again.game_id
    games = await world.reader.list_games(None, 100)
    assert [g.game_id for g in games] == [first.game_id]


async def test_a_host_start_with_bots_seats_bots_in_the_empty_seats(world: World) -> None:
    host = await world.player("Ada")
    await world.lobby.create(open_table("t-3", host, RULESET, 3, created_ms=NOW))
    await world.lobby.change("t-3", lambda t: start(t, by=host, fill_with_bots=True))
    await world.opener().pass_once()
    table = await world.lobby.get("t-3")
    game = await world.reader.load(table.game_id)
    assert [(s.kind, s.player) for s in game.seats] == [
        (SeatKind.HUMAN, host),
        (SeatKind.BOT, ""),
        (SeatKind.BOT, ""),
    ]


async def test_a_placed_match_opens_its_game_and_tells_each_seeker(world: World) -> None:
    ada, bea = await world.player("Ada"), await world.player("Bea")
    for n, player in enumerate((ada, bea)):
        seek = Seek(f"s-{n}", player, RULESET, 2, 2, False, "", 0.0, RatingWindow(), NOW + n)
        assert (await world.pool.add(seek)).status == "added"
    [placed] = await Matcher(world.pool, lambda: NOW + 10).pass_once()

    assert await world.opener().pass_once() == 1

    table = await world.lobby.get(placed.table_id)
    assert table.status is TableStatus.STARTED and table.seats == (ada, bea)
    game = await world.reader.load(table.game_id)
    assert [s.player for s in game.seats] == [ada, bea]
    assert (await kinds(world, bea))[0] == (
        "match_found",
        {"table_id": placed.table_id, "ruleset": RULESET, "seats": 2},
    )
    assert (await kinds(world, bea))[1][0] == "game_started"


async def test_a_pass_over_many_placed_matches_opens_each_once_and_tells_each_once(
    world: World,
) -> None:
    # More tables than the opener opens at once: they are opened side by side.
    players = [await world.player(f"P{n}") for n in range(2 * (OPEN_CONCURRENCY + 4))]
    for n, player in enumerate(players):
        seek = Seek(f"s-{n}", player, RULESET, 2, 2, False, "", 0.0, RatingWindow(), NOW + n)
        assert (await world.pool.add(seek)).status == "added"
    placed = await Matcher(world.pool, lambda: NOW + 100).pass_once()
    assert len(placed) == len(players) // 2

    assert await world.opener().pass_once() == len(placed)

    games = {(await world.lobby.get(t.table_id)).game_id for t in placed}
    assert len(games) == len(placed) and "" not in games
    assert len(await world.reader.list_games(None, 100)) == len(placed)
    for player in players:
        assert [kind for kind, _ in await kinds(world, player)] == ["match_found", "game_started"]


async def test_a_refused_game_marks_the_table_failed_and_tells_its_players(
    world: World,
) -> None:
    host, guest = await world.player("Ada"), await world.player("Bea")
    bad = open_table("t-4", host, RULESET, 2, created_ms=NOW, options='{"max_take": "x"}')
    await fill(world, bad, [guest])
    await world.opener().pass_once()
    table = await world.lobby.get("t-4")
    assert table.status is TableStatus.FAILED and table.failure and not table.game_id
    assert await world.reader.list_games(None, 10) == []
    [(kind, data)] = await kinds(world, guest)
    assert kind == "table_failed" and data["table_id"] == "t-4" and data["reason"]


async def test_an_entry_a_dead_gateway_read_is_taken_over(world: World) -> None:
    host, guest = await world.player("Ada"), await world.player("Bea")
    await fill(world, open_table("t-5", host, RULESET, 2, created_ms=NOW), [guest])
    dead = OpenerStreams(world.store.client, "gw-dead")
    assert len(await dead.read([world.lobby.starting_key], 10)) == 1  # read, never acked

    survivor = world.opener("gw-2", claim_idle_ms=0)
    assert await survivor.pass_once(claim=False) == 0
    assert await survivor.pass_once(claim=True) == 1
    assert (await world.lobby.get("t-5")).game_id


async def test_a_rated_table_opens_a_rated_game(world: World) -> None:
    # The table's rated flag reaches the game (GameCreated v5 ``rated``): a rated table
    # or seek must count for its players' ratings.
    host, guest = await world.player("Ada"), await world.player("Bea")
    table = open_table("t-rated", host, RULESET, 2, rated=True, created_ms=NOW)
    await fill(world, table, [guest])
    assert await world.opener().pass_once() == 1
    game = await world.reader.load((await world.lobby.get("t-rated")).game_id)
    assert game.rated
    created = (await world.reader.events(game.game_id, 0, 1))[0]
    assert (created.type, created.schema_version, created.payload["rated"]) == (
        "GameCreated",
        5,
        True,
    )
