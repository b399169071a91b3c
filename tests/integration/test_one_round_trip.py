"""SubmitAction with ``return_view`` (issue 16): one call per move answers with the seat's
view after the action and its next legal actions, exactly what GetGame and
ListLegalActions would have said; without the flag the reply stays as it was, and a
refused or unauthorized call shows nothing. Through the real gRPC API and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import Stack
from services.client import SeatInfo, TeotiClient
from services.engine.domain.errors import NotAuthorized, RuleViolation

HUMANS = [SeatInfo("human", "ann"), SeatInfo("human", "bob")]


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[TeotiClient]:
    async with TeotiClient(f"127.0.0.1:{stack.port}") as c:
        yield c


async def test_a_whole_game_is_played_with_one_call_per_move(client: TeotiClient) -> None:
    created = await client.create_game(HUMANS, options={"max_take": 3})
    game, tokens = created.game_id, created.seat_tokens
    seat, calls = 0, 0
    while True:
        moved = await client.play(game, seat, tokens[seat], {"take": 1})
        calls += 1
        assert moved.game.version == moved.version  # nobody else acted in between
        # The reply is what the two reads it replaces would answer.
        assert moved.game == await client.get_game(game, seat=seat, token=tokens[seat])
        listed = await client.legal_actions(game, seat, tokens[seat])
        assert list(moved.legal_actions) == listed
        if moved.game.finished:
            assert moved.legal_actions == () and moved.game.state["winner"] == seat
            break
        assert moved.legal_actions == ()  # Nim alternates: the mover is not to act
        assert moved.game.seats_to_act == (1 - seat,)
        seat = moved.game.seats_to_act[0]
    pile = (await client.get_game_at(game, 2)).state["pile"]
    assert calls == pile  # one SubmitAction per stone taken, nothing else needed


async def test_the_next_seat_sees_its_legal_actions(client: TeotiClient) -> None:
    """With three seats taking turns, each reply shows the mover's own actions only:
    the list follows ListLegalActions for the seat that asked."""
    created = await client.create_game([*HUMANS, SeatInfo("human", "cy")], options={"max_take": 2})
    game, tokens = created.game_id, created.seat_tokens
    first = await client.play(game, 0, tokens[0], {"take": 2})
    assert first.legal_actions == () and first.game.seats_to_act == (1,)
    assert first.game.state["taken"] == [2, 0, 0]


async def test_without_the_flag_the_reply_carries_no_view(stack: Stack) -> None:
    pb = game_service_pb2
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(
            pb.CreateGameRequest(
                seats=[
                    pb.Seat(
                        kind=pb.SEAT_KIND_HUMAN, name="ann", token="ann-t-0123456789abcdefghij"
                    ),
                    pb.Seat(
                        kind=pb.SEAT_KIND_HUMAN, name="bob", token="bob-t-0123456789abcdefghij"
                    ),
                ]
            )
        )
        request = pb.SubmitActionRequest(
            game_id=created.game_id,
            seat=0,
            action_json='{"take":1}',
            seat_token="ann-t-0123456789abcdefghij",
        )
        reply = await stub.SubmitAction(request)
        assert reply.version == 3
        assert not reply.HasField("game") and len(reply.legal_actions) == 0
        request = pb.SubmitActionRequest(
            game_id=created.game_id,
            seat=1,
            action_json='{"take":1}',
            seat_token="bob-t-0123456789abcdefghij",
            return_view=True,
        )
        reply = await stub.SubmitAction(request)
        assert reply.HasField("game") and reply.game.version == reply.version == 4
        assert "ann-t-0123456789abcdefghij" not in str(
            reply
        ) and "bob-t-0123456789abcdefghij" not in str(reply)


async def test_refused_or_unauthorized_moves_show_nothing_and_change_nothing(
    client: TeotiClient,
) -> None:
    created = await client.create_game(HUMANS, options={"max_take": 2})
    game, tokens = created.game_id, created.seat_tokens
    before = await client.get_game(game)
    with pytest.raises(RuleViolation) as info:
        await client.play(game, 0, tokens[0], {"take": 3})
    assert info.value.rule == "nim.take_range"
    with pytest.raises(NotAuthorized):
        await client.play(game, 0, tokens[1], {"take": 1})
    with pytest.raises(NotAuthorized):
        await client.play(game, 1, "", {"take": 1})
    assert (await client.get_game(game)).version == before.version
