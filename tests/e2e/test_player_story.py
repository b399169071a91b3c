"""The players story end to end (issue 32, "Tests"), once against a real ``teoti serve``
and once against the split stack as real processes (engine, gateway, bot worker and
director on one Redis; tests/split_stack.py).

Ann plays over the web face (HTTP/JSON, her player stream as server-sent events) and
Bob over gRPC (the typed client). They register, seek a rated Nim game and are matched;
each is told "your turn" on their own stream for the version they must act at; Bob's
stream drops mid-game and resumes after its last notice with every notice he missed
and none twice; Bob resigns, both are told the game finished with their rating change,
and RatingService shows it. Ann offers a rematch, Bob accepts it from his stream's
notice, and they play the new game (same players, new seed) to its end. Then a bot
account hosts a lobby table, Ann joins, the bot account starts it with a worker bot in
the empty seat, and plays its own seat from its stream. No player credential reaches
any process's log or any notice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from teoti_client import GameView, PlayerNotice, TeotiClient, TimeControl

from tests.serve_process import serving
from tests.split_stack import Deployment, split_stack
from tests.web_serve import sse_frames

WAIT_S = 20.0
"""Upper bound for a notice or a game to come (never reached when things work)."""
GAME = "/gameserver.v1.GameService/"
LOBBY = "/gameserver.v1.LobbyService/"
PLAYERS = "/gameserver.v1.PlayerService/"
MOVE_MS = 60_000
"""The matched games' clock: each move within a minute (none runs out here)."""


class Stream:
    """A player's notices as they arrive, read by a task from ``follow``'s source.
    ``expect`` takes the first notice not taken yet that matches; every notice read
    stays in ``got`` (to check that none came twice)."""

    def __init__(self) -> None:
        self.got: list[PlayerNotice] = []
        self._taken: set[str] = set()
        self._arrived = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    def follow(self, source: AsyncIterator[PlayerNotice]) -> None:
        """Read ``source`` from now on (a stream opened or resumed)."""

        async def read() -> None:
            async for notice in source:
                self.got.append(notice)
                self._arrived.set()

        self._reader = asyncio.create_task(read())

    async def drop(self) -> str:
        """Disconnect (the reader stops, its connection closes); the last notice id read."""
        assert self._reader is not None
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self._reader = None
        return self.got[-1].notice_id

    async def expect(self, kind: str, **data: Any) -> PlayerNotice:
        """The first untaken ``kind`` notice whose data has ``data``'s fields (waits
        up to WAIT_S; a reader that failed raises its error)."""
        async with asyncio.timeout(WAIT_S):
            while True:
                self._arrived.clear()  # before the scan: an append after it wakes us
                for notice in self.got:
                    if notice.notice_id in self._taken or notice.kind != kind:
                        continue
                    if all(notice.data.get(k) == v for k, v in data.items()):
                        self._taken.add(notice.notice_id)
                        return notice
                if self._reader is not None and self._reader.done():
                    self._reader.result()
                    raise AssertionError(f"the stream ended before {kind} {data}")
                await self._arrived.wait()

    def resumed_since(self, count: int) -> list[str]:
        """The ids of the notices read after the first ``count``, once each check that
        no notice came twice: no id twice, no turn (game, version) told twice."""
        ids = [notice.notice_id for notice in self.got]
        assert len(set(ids)) == len(ids), ids
        turns = [(n.data["game_id"], n.data["version"]) for n in self.got if n.kind == "your_turn"]
        assert len(set(turns)) == len(turns), turns
        return ids[count:]


@dataclass
class Player:
    """A story's player: ``web`` acts over HTTP/JSON, else over gRPC."""

    name: str
    player_id: str
    credential: str = field(repr=False)
    web: bool
    stream: Stream = field(default_factory=Stream)


@dataclass
class Story:
    """The two faces of one deployment: ``client`` on its gRPC ``target``, ``http`` on
    its web face."""

    target: str
    client: TeotiClient
    http: httpx.AsyncClient

    async def post(self, path: str, body: dict[str, Any], player: Player) -> dict[str, Any]:
        """A web-face call as ``player`` (credential in the Authorization header)."""
        reply = await self.http.post(
            path, json=body, headers={"authorization": f"Player {player.credential}"}
        )
        assert reply.status_code == 200, reply.text
        result: dict[str, Any] = reply.json()
        return result

    async def register(self, name: str, web: bool, bot: bool = False) -> Player:
        """Register ``name`` (a bot account if ``bot``) on the player's face."""
        if web:
            reply = await self.http.post(
                f"{PLAYERS}RegisterPlayer", json={"name": name, "bot": bot}
            )
            assert reply.status_code == 200, reply.text
            body = reply.json()
            assert body["player"].get("bot", False) == bot
            return Player(name, body["player"]["player_id"], body["credential"], web)
        made = await self.client.register_player(name, bot=bot)
        assert made.player.bot == bot and made.credential.startswith("tpc_")
        return Player(name, made.player.player_id, made.credential, web)

    def watch(self, player: Player, after: str = "") -> None:
        """Open (or resume after the notice id ``after``) ``player``'s stream on their face."""
        player.stream.follow(self._sse(player, after) if player.web else self._grpc(player, after))

    async def _grpc(self, player: Player, after: str) -> AsyncIterator[PlayerNotice]:
        """WatchPlayer over gRPC on a connection of its own: dropping the stream closes
        it, as a phone losing its network does."""
        async with TeotiClient(self.target, play_stream=False) as own:
            async for notice in own.watch_player(player.credential, after):
                yield notice

    async def _sse(self, player: Player, after: str) -> AsyncIterator[PlayerNotice]:
        """WatchPlayer as server-sent events: the credential in a header, never the URL;
        ``Last-Event-ID`` resumes (as a reconnecting EventSource does)."""
        headers = {"authorization": f"Player {player.credential}"}
        if after:
            headers["last-event-id"] = after
        timeout = httpx.Timeout(10.0, read=None)  # a quiet stream is no failure
        async with self.http.stream(
            "GET", f"{PLAYERS}WatchPlayer", headers=headers, timeout=timeout
        ) as response:
            async for event, data, ident in sse_frames(response):
                assert event == "message", data
                notice = data["notice"]
                assert ident == notice["id"]
                yield PlayerNotice(
                    notice["id"],
                    int(notice.get("v", 0)),
                    notice["kind"],
                    int(notice["at_ms"]),
                    json.loads(notice["data_json"]),
                )

    async def move(self, player: Player, game_id: str, seat: int) -> int:
        """``player`` takes one stone for ``seat`` on their face: the game's new version."""
        if player.web:
            legal = await self.post(
                f"{GAME}ListLegalActions", {"game_id": game_id, "seat": seat}, player
            )
            action = legal["actions"][0]["action_json"]
            assert json.loads(action) == {"take": 1}
            moved = await self.post(
                f"{GAME}SubmitAction",
                {"game_id": game_id, "seat": seat, "action_json": action},
                player,
            )
            return int(moved["version"])
        moves = await self.client.legal_actions(game_id, seat, player.credential)
        assert moves[0].action == {"take": 1}
        return (
            await self.client.submit_action(game_id, seat, player.credential, moves[0].action)
        ).version

    async def play(self, game_id: str, players: list[Player], moves: int | None = None) -> int:
        """Play ``game_id`` (``moves`` moves, None: to its end): each player acts when
        their stream says it is their turn at the game's version; a seat none of
        ``players`` sits in is a worker bot's, waited for. Returns the last version."""
        by_id = {p.player_id: p for p in players}
        view = await self.client.get_game(game_id)
        played = 0
        while not view.finished and (moves is None or played < moves):
            seat = view.seats_to_act[0]
            player = by_id.get(view.seats[seat].player)
            if player is None:  # the bot worker's seat
                view = await self._advanced(game_id, view.version)
                continue
            turn = await player.stream.expect("your_turn", game_id=game_id, version=view.version)
            assert (turn.data["seat"], turn.data["ruleset"]) == (seat, "nim")
            # With clocks, the notice says by when to move: the seat's clock deadline.
            deadlines = {c.seat: c.deadline_ms for c in view.clocks}
            assert turn.data.get("deadline_ms") == deadlines.get(seat)
            version = await self.move(player, game_id, seat)
            view = await self.client.get_game(game_id)
            assert view.version >= version
            played += 1
        return view.version

    async def _advanced(self, game_id: str, version: int) -> GameView:
        """The game once past ``version`` (polled: a bot's move comes when it comes)."""
        async with asyncio.timeout(WAIT_S):
            while True:
                view = await self.client.get_game(game_id)
                if view.version > version:
                    return view
                await asyncio.sleep(0.02)

    async def game_of_table(self, player: Player, table_id: str) -> str:
        """The game of ``table_id`` once the table opener opened it."""
        async with asyncio.timeout(WAIT_S):
            while True:
                table = await self.client.get_table(player.credential, table_id)
                if table.game_id:
                    return table.game_id
                await asyncio.sleep(0.02)


@asynccontextmanager
async def deployed(kind: str, redis_url: str, folder: Path) -> AsyncIterator[Deployment]:
    """``teoti serve`` (its own embedded Redis) or the split stack on the tests' Redis;
    stopped with SIGTERM on a clean exit, so their logs are complete."""
    if kind == "split":
        async with split_stack(redis_url, folder) as stack:
            yield stack
        return
    with serving(folder / "data", folder / "serve.log", web=True) as served:
        yield Deployment(
            f"127.0.0.1:{served.port}",
            f"http://127.0.0.1:{served.web_port}",
            (served.log, served.data / "redis.log"),
            (served.data / "appendonly.aof",),
        )
        served.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(served.process.wait, 60) == 0


def _seats(players: list[Player], seats: Iterator[str]) -> list[Player]:
    """``players`` in the order of the game's seats (by player id)."""
    by_id = {p.player_id: p for p in players}
    return [by_id[seat] for seat in seats]


# About 4 s (serve) and 8-25 s (split: four processes, each importing the service, on
# two shared cores), so the split stack runs in .ci/run's slow step.
@pytest.mark.parametrize("kind", ["serve", pytest.param("split", marks=pytest.mark.slow)])
async def test_the_players_story(kind: str, redis_url: str, tmp_path: Path) -> None:
    async with (
        deployed(kind, redis_url, tmp_path) as deployment,
        TeotiClient(deployment.grpc_target) as client,
        httpx.AsyncClient(base_url=deployment.web, timeout=WAIT_S) as http,
    ):
        players = await _story(Story(deployment.grpc_target, client, http))
        for player in players:
            await player.stream.drop()
    logged = "".join(log.read_text(errors="replace") for log in deployment.logs)
    assert "table_opened" in logged  # the logs were written (INFO and up)
    # Every write to the embedded Redis: a credential is stored as its hash only.
    stored = b"".join(path.read_bytes() for path in deployment.stored)
    assert not deployment.stored or all(p.player_id.encode() in stored for p in players)
    for player in players:
        assert player.credential not in logged, f"{player.name}'s credential in a log"
        assert player.credential.encode() not in stored, f"{player.name}'s credential stored"


async def _story(story: Story) -> list[Player]:
    client = story.client
    # 1-2. Ann registers and watches over the web face, Bob over gRPC.
    ann = await story.register("Ann", web=True)
    bob = await story.register("Bob", web=False)
    assert (await client.get_player(name="ANN ")).player_id == ann.player_id  # one identity
    story.watch(ann)
    story.watch(bob)

    # 3. Both seek a rated 2-seat Nim game with a minute a move and are matched into one.
    clock = {"move_deadline_ms": MOVE_MS, "timeout_policy": "TIMEOUT_POLICY_FORFEIT"}
    over_http = await story.post(
        f"{LOBBY}Seek",
        {"ruleset": "nim", "min_seats": 2, "max_seats": 2, "rated": True, "time_control": clock},
        ann,
    )
    assert over_http["status"] == "SEEK_STATUS_WAITING"
    minute = TimeControl(move_deadline_ms=MOVE_MS, timeout_policy="forfeit")
    ticket = await client.seek(bob.credential, "nim", 2, 2, rated=True, time_control=minute)
    found = [await p.stream.expect("match_found", ruleset="nim") for p in (ann, bob)]
    table_id = found[0].data["table_id"]
    assert found[1].data == {"table_id": table_id, "ruleset": "nim", "seats": 2}
    started = [await p.stream.expect("game_started", table_id=table_id) for p in (ann, bob)]
    first = started[0].data["game_id"]
    assert started[1].data["game_id"] == first
    assert (await client.get_seek(bob.credential, ticket.seek_id)).game_id == first
    view = await client.get_game(first)
    assert view.time_control == minute
    assert view.rated and sorted(s.player for s in view.seats) == sorted(
        [ann.player_id, bob.player_id]
    )
    seated = _seats([ann, bob], (s.player for s in view.seats))
    assert {started[0].data["seat"], started[1].data["seat"]} == {0, 1}
    assert started[0].data["seat"] == seated.index(ann)

    # 4. Two moves, each made when its player's stream says it is their turn.
    await story.play(first, seated, moves=2)

    # 5. Bob's stream drops; the game goes on (he reads it with GetGame); he resumes
    # after his last notice and gets each turn he was told of meanwhile, once.
    last = await bob.stream.drop()
    before = len(bob.stream.got)
    missed = []
    for _ in range(4):
        view = await client.get_game(first)
        seat = view.seats_to_act[0]
        if seated[seat] is bob:
            await story.move(bob, first, seat)
        else:
            missed.append(await story.move(ann, first, seat))
    assert len(missed) == 2
    story.watch(bob, after=last)
    for version in missed:
        turn = await bob.stream.expect("your_turn", game_id=first, version=version)
        assert turn.data["seat"] == seated.index(bob)
        assert turn.notice_id in bob.stream.resumed_since(before)
    assert last not in bob.stream.resumed_since(before)

    # 6. Bob resigns before the end: the game ends, both are told, ratings move. Ann's
    # event stream is down meanwhile: it resumes with Last-Event-ID, as EventSource does.
    view = await client.get_game(first)
    assert not view.finished and view.state["pile"] > 0
    ann_last = await ann.stream.drop()
    ann_before = len(ann.stream.got)
    resigned = await client.resign(first, seated.index(bob), bob.credential)
    assert resigned.finished and resigned.outcome == "game_ended"
    assert "SeatResigned" in [e.type for e in await client.events(first)]  # in the public log
    story.watch(ann, after=ann_last)
    told = {p.name: await p.stream.expect("game_finished", game_id=first) for p in (ann, bob)}
    assert told["Ann"].notice_id in ann.stream.resumed_since(ann_before)
    assert ann_last not in ann.stream.resumed_since(ann_before)
    assert (told["Ann"].data["place"], told["Bob"].data["place"]) == (1, 2)
    ratings = {p.name: await client.player_rating(p.player_id, "nim") for p in (ann, bob)}
    for name, rated in ratings.items():
        change = told[name].data["rating_change"]
        assert rated.rating.games == change["games"] == 1
        assert change["after"] == rated.rating.rating
        assert change["change"] == change["after"] - change["before"]
        assert [h.game_id for h in rated.history] == [first]
    assert ratings["Ann"].rating.mu > ratings["Bob"].rating.mu
    assert ratings["Ann"].rating.rating > ratings["Bob"].rating.rating
    board = await client.rating_leaderboard("nim")
    assert [(r.rank, r.player_id) for r in board.players] == [
        (1, ann.player_id),
        (2, bob.player_id),
    ]

    # 7. Ann offers a rematch; Bob accepts it from the notice on his stream; the new
    # game has the same players and a new seed, and is played to its end.
    offered = (await story.post(f"{LOBBY}OfferRematch", {"game_id": first}, ann))["rematch"]
    notice = await bob.stream.expect("rematch_offered", game_id=first)
    assert notice.data == {"game_id": first, "offer_id": offered["offer_id"], "by": ann.player_id}
    accepted = await client.accept_rematch(bob.credential, notice.data["game_id"])
    assert (accepted.status, accepted.table_id) == ("accepted", offered["table_id"])
    again = [await p.stream.expect("game_started", table_id=accepted.table_id) for p in (ann, bob)]
    second = again[0].data["game_id"]
    assert second != first and again[1].data["game_id"] == second
    rematch = await client.get_game(second)
    old = await client.get_game(first)
    assert [s.player for s in rematch.seats] == [s.player for s in old.seats]
    assert rematch.rated and rematch.seed_commitment != old.seed_commitment
    assert rematch.time_control == minute
    await story.play(second, seated)
    assert (await client.get_game(second)).finished
    for player in (ann, bob):
        ended = await player.stream.expect("game_finished", game_id=second)
        assert ended.data["rating_change"]["games"] == 2
        assert (await client.player_rating(player.player_id, "nim")).rating.games == 2

    # 8. A bot account hosts a lobby table, Ann joins, it starts with a worker bot in
    # the empty seat, and the bot account plays its own seat from its stream.
    robo = await story.register("Robo", web=False, bot=True)
    assert (await client.get_player(robo.player_id)).bot
    story.watch(robo)
    table = await client.open_table(robo.credential, "nim", 3)
    joined = await story.post(f"{LOBBY}JoinTable", {"table_id": table.table_id}, ann)
    assert joined["table"]["seats"][1]["player_id"] == ann.player_id
    await client.start_table(robo.credential, table.table_id, fill_with_bots=True)
    third = await story.game_of_table(robo, table.table_id)
    for player in (robo, ann):
        assert (await player.stream.expect("game_started", table_id=table.table_id)).data[
            "game_id"
        ] == third
    view = await client.get_game(third)
    assert [(s.kind, s.player) for s in view.seats] == [
        ("human", robo.player_id),
        ("human", ann.player_id),
        ("bot", ""),
    ]
    await story.play(third, [robo, ann])
    movers = {e.seat for e in await client.events(third) if e.type == "StonesTaken"}
    assert {0, 2} <= movers  # the bot account's seat and the worker's both moved
    await robo.stream.expect("game_finished", game_id=third)

    # 9. No notice twice; no credential in any notice (the logs are read once the
    # stack stopped).
    players = [ann, bob, robo]
    for player in players:
        player.stream.resumed_since(0)
    for player in players:
        told_all = json.dumps([dict(n.data) for p in players for n in p.stream.got])
        assert player.credential not in told_all
    return players
