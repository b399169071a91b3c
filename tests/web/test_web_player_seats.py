"""Seats bound to players (issue 32): a player credential creates, joins and plays games
without seat tokens, over gRPC and over HTTP; the seat names its player publicly in the
log (GameCreated v4, SeatJoined v3); another player's credential is refused
``not_your_seat``; a revoked one stops at once; seat tokens keep working beside it; the
credential never reaches the log."""

from __future__ import annotations

import json
from typing import Any

import grpc
import httpx
import pytest
from teoti_client import NotAuthorized, SeatInfo, TeotiClient
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc

from services.rpc.errors import error_info
from tests.web.conftest import StackFactory

GAME = "/gameserver.v1.GameService/"
PLAYERS = "/gameserver.v1.PlayerService/"
TOKEN = "seat-token-0123456789abcdef"


def _as(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Player {credential}"),)


async def _register(http: httpx.AsyncClient, name: str, bot: bool = False) -> tuple[str, str]:
    reply = await http.post(
        f"{PLAYERS}RegisterPlayer",
        json={"name": name, "bot": bot},
        headers={"content-type": "application/json"},
    )
    body = reply.json()
    return body["player"]["player_id"], body["credential"]


async def _http(http: httpx.AsyncClient, method: str, body: dict[str, Any], credential: str) -> Any:
    return await http.post(
        GAME + method,
        json=body,
        headers={"authorization": f"Player {credential}", "content-type": "application/json"},
    )


async def _reason(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    return caught.value.code(), info.reason if info is not None else ""


async def test_players_play_a_game_over_both_faces(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        bob_id, bob = await _register(http, "Bob")
        _eve_id, eve = await _register(http, "Eve")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = await stub.CreateGame(
                pb.CreateGameRequest(
                    ruleset="nim",
                    seats=[
                        pb.Seat(kind=pb.SEAT_KIND_HUMAN, bind_to_caller=True),
                        pb.Seat(kind=pb.SEAT_KIND_HUMAN, open=True),
                    ],
                    options_json='{"max_take": 2}',
                ),
                metadata=_as(ann),
            )
            game_id = created.game_id
            assert list(created.seat_tokens) == []  # bound to Ann: no seat token made
            # Bob joins over HTTP as a player: no seat token, his name by default.
            joined = await _http(http, "JoinGame", {"game_id": game_id, "seat": 1}, bob)
            assert joined.status_code == 200, joined.text
            assert joined.json()["seat_token"]["token"] == ""
            game = await stub.GetGame(pb.GetGameRequest(game_id=game_id))
            assert [(s.name, s.player, s.open) for s in game.seats] == [
                ("Ann", ann_id, False),
                ("Bob", bob_id, False),
            ]
            # Another player's credential, and nobody's, for Ann's seat.
            for other in (bob, eve):
                code, reason = await _reason(
                    stub.ListLegalActions(
                        pb.ListLegalActionsRequest(game_id=game_id, seat=0), metadata=_as(other)
                    )
                )
                assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "not_your_seat")
            refused = await _http(
                http,
                "SubmitAction",
                {"game_id": game_id, "seat": 1, "action_json": '{"take": 1}'},
                ann,
            )
            assert refused.status_code == 403
            assert refused.json()["details"][0]["reason"] == "not_your_seat"
            # Play to the end: Ann over gRPC, Bob over HTTP, each with a credential only.
            while not game.finished:
                seat = game.seats_to_act[0]
                if seat == 0:
                    legal = await stub.ListLegalActions(
                        pb.ListLegalActionsRequest(game_id=game_id, seat=0), metadata=_as(ann)
                    )
                    await stub.SubmitAction(
                        pb.SubmitActionRequest(
                            game_id=game_id, seat=0, action_json=legal.actions[0].action_json
                        ),
                        metadata=_as(ann),
                    )
                else:
                    legal = (
                        await _http(http, "ListLegalActions", {"game_id": game_id, "seat": 1}, bob)
                    ).json()
                    moved = await _http(
                        http,
                        "SubmitAction",
                        {
                            "game_id": game_id,
                            "seat": 1,
                            "action_json": legal["actions"][0]["action_json"],
                        },
                        bob,
                    )
                    assert moved.status_code == 200, moved.text
                game = await stub.GetGame(pb.GetGameRequest(game_id=game_id))
            events = await stub.ListEvents(pb.ListEventsRequest(game_id=game_id))
            created_event = events.events[0]
            assert (created_event.type, created_event.schema_version) == ("GameCreated", 5)
            seats = json.loads(created_event.payload_json)["seats"]
            assert [s["player"] for s in seats] == [ann_id, ""]
            joined_event = next(e for e in events.events if e.type == "SeatJoined")
            assert joined_event.schema_version == 3
            assert json.loads(joined_event.payload_json)["player"] == bob_id
            log_text = str(events)
            for secret in (ann, bob, eve):
                assert secret not in log_text


async def test_a_seat_view_and_watch_with_a_player_credential(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = await stub.CreateGame(
                pb.CreateGameRequest(
                    ruleset="nim",
                    seats=[
                        pb.Seat(kind=pb.SEAT_KIND_HUMAN, bind_to_caller=True, name="Annie"),
                        pb.Seat(kind=pb.SEAT_KIND_BOT, name="b"),
                    ],
                ),
                metadata=_as(ann),
            )
            view = await stub.GetGame(
                pb.GetGameRequest(game_id=created.game_id, seat=0), metadata=_as(ann)
            )
            # A bound seat shows its player's own name, not the one the request asked for.
            assert view.seats[0].name == "Ann" and view.seats[0].player == ann_id
            watch = stub.WatchGame(
                pb.WatchGameRequest(game_id=created.game_id, seat=0, with_view=True),
                metadata=_as(ann),
            )
            first = await watch.read()
            assert first.event.type == "GameCreated"
            watch.cancel()


async def test_a_revoked_credential_stops_at_once(served: StackFactory) -> None:
    async with served() as (stack, http):
        _ann_id, ann = await _register(http, "Ann")
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            info, phone = await client.create_player_credential(ann, "phone")
            game = await client.create_game(
                [SeatInfo("human", "", bind_to_caller=True), SeatInfo("bot", "b")],
                ruleset="nim",
                credential=phone,
            )
            assert await client.legal_actions(game.game_id, 0, phone) is not None
            await client.revoke_player_credential(ann, info.credential_id)
            with pytest.raises(NotAuthorized):
                await client.legal_actions(game.game_id, 0, phone)
            # Its other credential still plays the seat.
            assert await client.legal_actions(game.game_id, 0, ann) is not None


async def test_seat_tokens_keep_working_beside_players(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        _bob_id, bob = await _register(http, "Bob")
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            game = await client.create_game(
                [
                    SeatInfo("human", "", bind_to_caller=True, token=TOKEN),  # both
                    SeatInfo("human", "dee"),  # a seat token only
                ],
                ruleset="nim",
                credential=ann,
            )
            dee = game.seat_tokens[1]
            assert game.seat_tokens[0] == TOKEN
            view = await client.get_game(game.game_id)
            assert [s.player for s in view.seats] == [ann_id, ""]
            assert await client.legal_actions(game.game_id, 0, TOKEN) is not None
            assert await client.legal_actions(game.game_id, 0, ann) is not None
            await client.legal_actions(game.game_id, 1, dee)
            with pytest.raises(NotAuthorized) as refused:
                await client.legal_actions(game.game_id, 1, bob)
            assert refused.value.reason == "not_your_seat"
            with pytest.raises(NotAuthorized) as wrong:
                await client.legal_actions(game.game_id, 1, "not-dee-0123456789abcdefg")
            assert wrong.value.reason == "bad_seat_token"


async def test_a_bot_account_joins_and_plays_with_the_client(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann_id, ann = await _register(http, "Ann")
        bot_id, botty = await _register(http, "Botty", bot=True)
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            game = await client.create_game(
                [SeatInfo("human", "", bind_to_caller=True), SeatInfo("human", "", open=True)],
                ruleset="nim",
                options={"max_take": 2},
                credential=ann,
            )
            assert await client.join_game(game.game_id, 1, "", credential=botty) == ""
            # A retry by the same player is a success that appends nothing.
            assert await client.join_game(game.game_id, 1, "", credential=botty) == ""
            view = await client.get_game(game.game_id)
            assert [s.player for s in view.seats] == [ann_id, bot_id]
            assert (await client.get_player(player_id=bot_id)).bot
            credentials = {0: ann, 1: botty}
            while not view.finished:
                seat = view.seats_to_act[0]
                moves = await client.legal_actions(game.game_id, seat, credentials[seat])
                moved = await client.play(game.game_id, seat, credentials[seat], moves[0].action)
                view = moved.game
            assert view.finished


async def test_bind_to_caller_needs_a_player_and_a_human_seat(served: StackFactory) -> None:
    async with served() as (stack, http):
        _ann_id, ann = await _register(http, "Ann")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            bound = pb.Seat(kind=pb.SEAT_KIND_HUMAN, bind_to_caller=True)
            code, reason = await _reason(
                stub.CreateGame(pb.CreateGameRequest(ruleset="nim", seats=[bound, bound]))
            )
            assert (code, reason) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "player_credential_invalid",
            )
            for bad in (
                pb.Seat(kind=pb.SEAT_KIND_BOT, name="b", bind_to_caller=True),
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, open=True, bind_to_caller=True),
            ):
                code, reason = await _reason(
                    stub.CreateGame(
                        pb.CreateGameRequest(ruleset="nim", seats=[bound, bad]),
                        metadata=_as(ann),
                    )
                )
                assert (code, reason) == (
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "bind_to_caller_invalid",
                )
            # A player id a client writes into a seat is ignored: only the gateway binds.
            forged = pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="x", player="someone-else")
            made = await stub.CreateGame(
                pb.CreateGameRequest(ruleset="nim", seats=[forged, forged])
            )
            game = await stub.GetGame(pb.GetGameRequest(game_id=made.game_id))
            assert [s.player for s in game.seats] == ["", ""]
