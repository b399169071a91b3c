"""LobbyService on both faces (issue 32) against a real all-in-one stack: a lobby table
filled over HTTP by one player and over gRPC by the other opens exactly one game, both
seats bound to their players, who play it with their player credentials alone; two
players seeking (one per face) are matched into one game; a host starts early with
bots; a cancelled seek is gone at once; bad requests are refused naming the rule and
store nothing; a call without a player credential is refused."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import httpx
import pytest
from teoti_client.proto import game_service_pb2 as gpb
from teoti_client.proto import game_service_pb2_grpc as gpb_grpc
from teoti_client.proto import lobby_service_pb2 as pb
from teoti_client.proto import lobby_service_pb2_grpc as pb_grpc

from services.app import Stack
from services.matchmaking.matcher import Matcher
from services.matchmaking.redis_pool import RedisSeekPool
from services.notices.inbox import RedisInbox
from services.rpc.errors import error_info
from tests.web.conftest import StackFactory

LOBBY = "/gameserver.v1.LobbyService/"
PLAYERS = "/gameserver.v1.PlayerService/"
GAME = "/gameserver.v1.GameService/"
WAIT_S = 20.0
"""Upper bound for the matcher and the opener to act (never reached when they work)."""


def _as(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Player {credential}"),)


async def _register(http: httpx.AsyncClient, name: str) -> tuple[str, str]:
    reply = await http.post(f"{PLAYERS}RegisterPlayer", json={"name": name})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    return body["player"]["player_id"], body["credential"]


async def _http(
    http: httpx.AsyncClient, path: str, body: dict[str, Any], credential: str
) -> httpx.Response:
    return await http.post(path, json=body, headers={"authorization": f"Player {credential}"})


async def _reason(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    return caught.value.code(), info.reason if info is not None else ""


async def _opened_table(stub: Any, table_id: str, credential: str) -> pb.LobbyTable:
    """The table once the opener recorded its game."""
    async with asyncio.timeout(WAIT_S):
        while True:
            reply = await stub.GetTable(
                pb.GetTableRequest(table_id=table_id), metadata=_as(credential)
            )
            if reply.table.game_id or reply.table.status == pb.LOBBY_TABLE_STATUS_FAILED:
                return reply.table
            await asyncio.sleep(0.05)


async def _placed(stub: Any, seek_id: str, credential: str) -> pb.GetSeekResponse:
    """The seek once placed and its game open."""
    async with asyncio.timeout(WAIT_S):
        while True:
            reply = await stub.GetSeek(pb.GetSeekRequest(seek_id=seek_id), metadata=_as(credential))
            if reply.game_id:
                return reply
            await asyncio.sleep(0.05)


async def _play_out(
    game_stub: Any, http: httpx.AsyncClient, game_id: str, grpc_cred: str, http_cred: str
) -> gpb.GetGameResponse:
    """Play the game to its end: seat 0 over gRPC, seat 1 over HTTP, credentials only."""
    game = await game_stub.GetGame(gpb.GetGameRequest(game_id=game_id))
    while not game.finished:
        seat = game.seats_to_act[0]
        if seat == 0:
            legal = await game_stub.ListLegalActions(
                gpb.ListLegalActionsRequest(game_id=game_id, seat=0), metadata=_as(grpc_cred)
            )
            await game_stub.SubmitAction(
                gpb.SubmitActionRequest(
                    game_id=game_id, seat=0, action_json=legal.actions[0].action_json
                ),
                metadata=_as(grpc_cred),
            )
        else:
            legal = (
                await _http(
                    http, GAME + "ListLegalActions", {"game_id": game_id, "seat": 1}, http_cred
                )
            ).json()
            moved = await _http(
                http,
                GAME + "SubmitAction",
                {"game_id": game_id, "seat": 1, "action_json": legal["actions"][0]["action_json"]},
                http_cred,
            )
            assert moved.status_code == 200, moved.text
        game = await game_stub.GetGame(gpb.GetGameRequest(game_id=game_id))
    return game


async def _notices(stack: Stack, player: str) -> list[tuple[str, dict[str, Any]]]:
    inbox = RedisInbox(stack.store.client, stack.store.keys.prefix)
    return [(n.kind.value, dict(n.data)) for n in await inbox.since(player)]


async def _notice_arrives(
    stack: Stack, player: str, expected: tuple[str, dict[str, Any]], within_s: float = 15.0
) -> None:
    """Wait until ``player``'s inbox holds ``expected``: the table opener posts its
    notices after the table shows its game, so a read right after may be early."""
    deadline = asyncio.get_running_loop().time() + within_s
    while expected not in (got := await _notices(stack, player)):
        assert asyncio.get_running_loop().time() < deadline, (expected, got)
        await asyncio.sleep(0.05)


async def test_a_table_filled_over_both_faces_opens_one_game_they_play(
    served: StackFactory,
) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        bob_id, bob = await _register(http, "Bob")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            opened = await stub.OpenTable(
                pb.OpenTableRequest(ruleset="nim", seat_count=2, options_json='{"max_take": 2}'),
                metadata=_as(ann),
            )
            table_id = opened.table.table_id
            assert opened.table.status == pb.LOBBY_TABLE_STATUS_OPEN
            assert [s.player_id for s in opened.table.seats] == [ann_id, ""]
            listed = await _http(http, LOBBY + "ListTables", {"ruleset": "nim"}, bob)
            assert [t["table_id"] for t in listed.json()["tables"]] == [table_id]

            joined = await _http(http, LOBBY + "JoinTable", {"table_id": table_id}, bob)
            assert joined.status_code == 200, joined.text
            assert joined.json()["table"]["status"] == "LOBBY_TABLE_STATUS_STARTED"
            table = await _opened_table(stub, table_id, ann)
            assert table.status == pb.LOBBY_TABLE_STATUS_STARTED

            game_stub = gpb_grpc.GameServiceStub(channel)
            game = await game_stub.GetGame(gpb.GetGameRequest(game_id=table.game_id))
            assert [(s.player, s.name) for s in game.seats] == [(ann_id, "Ann"), (bob_id, "Bob")]
            games = await game_stub.ListGames(gpb.ListGamesRequest())
            assert [g.game_id for g in games.games] == [table.game_id]  # exactly one game
            assert (await _play_out(game_stub, http, table.game_id, ann, bob)).finished
        for seat, player in enumerate((ann_id, bob_id)):
            started = [n for n in await _notices(stack, player) if n[0] == "game_started"]
            assert started == [
                (
                    "game_started",
                    {
                        "game_id": table.game_id,
                        "ruleset": "nim",
                        "seat": seat,
                        "table_id": table_id,
                    },
                )
            ]
        assert (await _http(http, LOBBY + "ListTables", {}, bob)).json().get("tables", []) == []


async def test_two_seekers_one_per_face_are_matched_into_one_game(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        bob_id, bob = await _register(http, "Bob")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            sought = await stub.Seek(
                pb.SeekRequest(ruleset="nim", min_seats=2, max_seats=2), metadata=_as(ann)
            )
            assert sought.status == pb.SEEK_STATUS_WAITING and sought.rating == 0.0
            over_http = await _http(
                http, LOBBY + "Seek", {"ruleset": "nim", "min_seats": 2, "max_seats": 2}, bob
            )
            assert over_http.status_code == 200, over_http.text
            ann_seek = await _placed(stub, sought.seek_id, ann)
            bob_seek = await _placed(stub, over_http.json()["seek_id"], bob)
            assert ann_seek.game_id == bob_seek.game_id
            assert ann_seek.table_id == bob_seek.table_id
            game = await gpb_grpc.GameServiceStub(channel).GetGame(
                gpb.GetGameRequest(game_id=ann_seek.game_id)
            )
            assert [s.player for s in game.seats] == [ann_id, bob_id]
            assert (
                await _play_out(gpb_grpc.GameServiceStub(channel), http, game.game_id, ann, bob)
            ).finished
        kinds = [kind for kind, _data in await _notices(stack, bob_id)]
        # The table's notices in order (the game's own, your_turn and game_finished,
        # come from other posters and may fall between them).
        assert [k for k in kinds if k in ("match_found", "game_started")] == [
            "match_found",
            "game_started",
        ]


async def test_the_openapi_document_describes_every_lobby_method(served: StackFactory) -> None:
    async with served() as (_stack, http):
        paths = (await http.get("/openapi.json")).json()["paths"]
        for method in pb.DESCRIPTOR.services_by_name["LobbyService"].methods:
            assert f"{LOBBY}{method.name}" in paths, method.name


async def test_a_host_starts_early_with_bots(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            opened = await stub.OpenTable(
                pb.OpenTableRequest(ruleset="nim", seat_count=3), metadata=_as(ann)
            )
            table_id = opened.table.table_id
            _bob_id, bob = await _register(http, "Bob")
            refused = await _reason(
                stub.StartTable(
                    pb.StartTableRequest(table_id=table_id, fill_with_bots=True), metadata=_as(bob)
                )
            )
            assert refused == (grpc.StatusCode.FAILED_PRECONDITION, "not_the_host")
            await stub.StartTable(
                pb.StartTableRequest(table_id=table_id, fill_with_bots=True), metadata=_as(ann)
            )
            table = await _opened_table(stub, table_id, ann)
            assert [(s.player_id, s.bot) for s in table.seats] == [
                (ann_id, False),
                ("", True),
                ("", True),
            ]
            game = await gpb_grpc.GameServiceStub(channel).GetGame(
                gpb.GetGameRequest(game_id=table.game_id)
            )
            assert [s.kind for s in game.seats] == [
                gpb.SEAT_KIND_HUMAN,
                gpb.SEAT_KIND_BOT,
                gpb.SEAT_KIND_BOT,
            ]


async def test_a_cancelled_seek_is_gone_at_once(served: StackFactory) -> None:
    async with served(lobby_loop=False) as (stack, http):  # this test's matcher only
        _ann_id, ann = await _register(http, "Ann")
        _bob_id, bob = await _register(http, "Bob")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            sought = await stub.Seek(
                pb.SeekRequest(ruleset="nim", min_seats=2, max_seats=2), metadata=_as(ann)
            )
            # Another player cannot cancel or see it.
            assert await _reason(
                stub.CancelSeek(pb.CancelSeekRequest(seek_id=sought.seek_id), metadata=_as(bob))
            ) == (grpc.StatusCode.NOT_FOUND, "seek_not_found")
            cancelled = await stub.CancelSeek(
                pb.CancelSeekRequest(seek_id=sought.seek_id), metadata=_as(ann)
            )
            assert cancelled.status == pb.SEEK_STATUS_CANCELLED
            assert await _reason(
                stub.GetSeek(pb.GetSeekRequest(seek_id=sought.seek_id), metadata=_as(ann))
            ) == (grpc.StatusCode.NOT_FOUND, "seek_not_found")
            # Bob's compatible seek finds nobody: the cancelled one is not placed.
            bobs = await stub.Seek(
                pb.SeekRequest(ruleset="nim", min_seats=2, max_seats=2), metadata=_as(bob)
            )
            pool = RedisSeekPool(stack.store.client, stack.store.keys.prefix)
            assert await Matcher(pool).pass_once() == []
            state = await stub.GetSeek(pb.GetSeekRequest(seek_id=bobs.seek_id), metadata=_as(bob))
            assert state.status == pb.SEEK_STATUS_WAITING


async def test_bad_requests_are_refused_by_rule_and_store_nothing(served: StackFactory) -> None:
    async with served() as (stack, http):
        _ann_id, ann = await _register(http, "Ann")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            cases = [
                (pb.OpenTableRequest(ruleset="no-such-game", seat_count=2), "unknown_ruleset"),
                (pb.OpenTableRequest(ruleset="nim", seat_count=7), "seat_count"),
                (
                    pb.OpenTableRequest(ruleset="nim", seat_count=2, options_json="[]"),
                    "options_invalid",
                ),
                (
                    pb.OpenTableRequest(
                        ruleset="nim", seat_count=2, options_json='{"max_take": 0}'
                    ),
                    "max_take",
                ),
                (
                    pb.OpenTableRequest(ruleset="nim", seat_count=2, command_id="x" * 65),
                    "command_id",
                ),
            ]
            for request, rule in cases:
                code, reason = await _reason(stub.OpenTable(request, metadata=_as(ann)))
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, rule), request
            seeks = [
                (pb.SeekRequest(ruleset="nim", min_seats=3, max_seats=2), "seek_invalid"),
                (pb.SeekRequest(ruleset="nim", min_seats=1, max_seats=2), "seat_count"),
                (
                    pb.SeekRequest(
                        ruleset="nim", min_seats=2, max_seats=2, rated=True, bots_after_s=1
                    ),
                    "seek_invalid",
                ),
            ]
            for seek, rule in seeks:
                code, reason = await _reason(stub.Seek(seek, metadata=_as(ann)))
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, rule), seek
            listed = await stub.ListTables(pb.ListTablesRequest(), metadata=_as(ann))
            assert list(listed.tables) == []
            # Over HTTP as well: the same refusal, with its HTTP status.
            over_http = await _http(http, LOBBY + "OpenTable", {"ruleset": "nim"}, ann)
            assert over_http.status_code == 400
            assert over_http.json()["details"][0]["reason"] == "seat_count"
            assert await stack.store.client.hlen(f"{stack.store.keys.prefix}:mm:pools") == 0
            # No credential, or a made-up one: refused before anything is read.
            for metadata in ((), _as("tpc_" + "x" * 43)):
                code, reason = await _reason(
                    stub.ListTables(pb.ListTablesRequest(), metadata=metadata)
                )
                assert (code, reason) == (
                    grpc.StatusCode.PERMISSION_DENIED,
                    "player_credential_invalid",
                )


async def test_a_rematch_is_offered_accepted_and_opens_a_new_game(
    served: StackFactory,
) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        bob_id, bob = await _register(http, "Bob")
        _eve_id, eve = await _register(http, "Eve")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            game_stub = gpb_grpc.GameServiceStub(channel)
            opened = await stub.OpenTable(
                pb.OpenTableRequest(ruleset="nim", seat_count=2, options_json='{"max_take": 2}'),
                metadata=_as(ann),
            )
            await stub.JoinTable(
                pb.JoinTableRequest(table_id=opened.table.table_id), metadata=_as(bob)
            )
            first = await _opened_table(stub, opened.table.table_id, ann)
            early = stub.OfferRematch(
                pb.OfferRematchRequest(game_id=first.game_id), metadata=_as(ann)
            )
            assert await _reason(early) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "game_not_finished",
            )
            old = await _play_out(game_stub, http, first.game_id, ann, bob)

            # A stranger cannot offer; Ann offers over gRPC, Bob is told on his stream.
            stranger = stub.OfferRematch(
                pb.OfferRematchRequest(game_id=first.game_id), metadata=_as(eve)
            )
            assert await _reason(stranger) == (grpc.StatusCode.FAILED_PRECONDITION, "not_in_game")
            offered = await stub.OfferRematch(
                pb.OfferRematchRequest(game_id=first.game_id), metadata=_as(ann)
            )
            assert offered.rematch.status == pb.REMATCH_STATUS_OFFERED
            assert list(offered.rematch.players) == [ann_id, bob_id]
            assert [n for n in await _notices(stack, bob_id) if n[0] == "rematch_offered"][-1] == (
                "rematch_offered",
                {"game_id": first.game_id, "offer_id": offered.rematch.offer_id, "by": ann_id},
            )
            # Bob accepts over HTTP: the rematch opens as a new game, same seats.
            accepted = await _http(http, LOBBY + "AcceptRematch", {"game_id": first.game_id}, bob)
            assert accepted.status_code == 200, accepted.text
            assert accepted.json()["rematch"]["status"] == "REMATCH_STATUS_ACCEPTED"
            table = await _opened_table(stub, offered.rematch.table_id, ann)
            assert table.game_id and table.game_id != first.game_id
            assert (table.options_json, table.rated) == (first.options_json, first.rated)
            new = await game_stub.GetGame(gpb.GetGameRequest(game_id=table.game_id))
            assert [s.player for s in new.seats] == [s.player for s in old.seats]
            assert new.seed_commitment != old.seed_commitment  # a new seed
            for seat, player in enumerate((ann_id, bob_id)):
                await _notice_arrives(
                    stack,
                    player,
                    (
                        "game_started",
                        {
                            "game_id": table.game_id,
                            "ruleset": "nim",
                            "seat": seat,
                            "table_id": offered.rematch.table_id,
                        },
                    ),
                )
            # One rematch per game: offering again answers the same one (no new game).
            again = await stub.OfferRematch(
                pb.OfferRematchRequest(game_id=first.game_id), metadata=_as(bob)
            )
            assert again.rematch.table_id == offered.rematch.table_id
            assert again.rematch.status == pb.REMATCH_STATUS_ACCEPTED
            late = stub.DeclineRematch(
                pb.DeclineRematchRequest(game_id=first.game_id), metadata=_as(bob)
            )
            assert await _reason(late) == (grpc.StatusCode.FAILED_PRECONDITION, "rematch_accepted")


async def test_a_declined_rematch_opens_nothing(served: StackFactory) -> None:
    async with served() as (stack, http):
        _ann_id, ann = await _register(http, "Ann")
        _bob_id, bob = await _register(http, "Bob")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.LobbyServiceStub(channel)
            opened = await stub.OpenTable(
                pb.OpenTableRequest(ruleset="nim", seat_count=2), metadata=_as(ann)
            )
            await stub.JoinTable(
                pb.JoinTableRequest(table_id=opened.table.table_id), metadata=_as(bob)
            )
            first = await _opened_table(stub, opened.table.table_id, ann)
            game_stub = gpb_grpc.GameServiceStub(channel)
            await _play_out(game_stub, http, first.game_id, ann, bob)
            nothing = stub.AcceptRematch(
                pb.AcceptRematchRequest(game_id=first.game_id), metadata=_as(bob)
            )
            assert await _reason(nothing) == (grpc.StatusCode.NOT_FOUND, "rematch_not_found")
            offered = await stub.OfferRematch(
                pb.OfferRematchRequest(game_id=first.game_id), metadata=_as(bob)
            )
            declined = await stub.DeclineRematch(
                pb.DeclineRematchRequest(game_id=first.game_id), metadata=_as(ann)
            )
            assert declined.rematch.status == pb.REMATCH_STATUS_DECLINED
            after = stub.AcceptRematch(
                pb.AcceptRematchRequest(game_id=first.game_id), metadata=_as(bob)
            )
            assert await _reason(after) == (grpc.StatusCode.FAILED_PRECONDITION, "rematch_declined")
            gone = stub.GetTable(
                pb.GetTableRequest(table_id=offered.rematch.table_id), metadata=_as(ann)
            )
            assert await _reason(gone) == (grpc.StatusCode.NOT_FOUND, "table_not_found")
            games = await game_stub.ListGames(gpb.ListGamesRequest())
            assert [g.game_id for g in games.games] == [first.game_id]
