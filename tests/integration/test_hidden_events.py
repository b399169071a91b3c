"""Hidden information stays hidden in the event stream while a game runs (RULES.md §1.2.4):
other seats' dealt starting tiles and secret choices are redacted for the public and for
other seats, shown to their own seat, and the hash still covers the stored event."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.app import all_in_one
from services.engine.rulesets import RulesetRegistry
from services.rpc.stubs import load_stubs

TOKENS = ("ann-secret", "bob-secret")


@pytest.fixture
async def stub(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Any]:
    async with (
        all_in_one(redis_url, registry=registry, key_prefix=key_prefix) as stack,
        grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel,
    ):
        yield load_stubs().game_pb2_grpc.GameServiceStub(channel)


async def _events(stub: Any, game_id: str, seat: int | None = None) -> dict[str, Any]:
    pb = load_stubs().game_pb2
    request = pb.ListEventsRequest(game_id=game_id)
    if seat is not None:
        request.seat = seat
        request.seat_token = TOKENS[seat]
    reply = await stub.ListEvents(request)
    return {e.type: e for e in reply.events}


async def test_secret_starting_tile_choice_is_redacted_for_others(stub: Any) -> None:
    pb = load_stubs().game_pb2
    seats = [
        pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n, token=t) for n, t in zip("ab", TOKENS, strict=True)
    ]
    standard = '{"first_game": false}'
    created = await stub.CreateGame(
        pb.CreateGameRequest(ruleset="teotihuacan", seats=seats, options_json=standard)
    )
    own = await stub.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=created.game_id, seat=0, seat_token=TOKENS[0])
    )
    choice = own.actions[0].action_json
    await stub.SubmitAction(
        pb.SubmitActionRequest(
            game_id=created.game_id, seat=0, seat_token=TOKENS[0], action_json=choice
        )
    )
    chosen = json.loads(choice)["tiles"]

    public = await _events(stub, created.game_id)
    assert json.loads(public["StartingTilesChosen"].payload_json)["tiles"] == []
    assert public["StartingTilesChosen"].redacted and public["StartingTilesChosen"].hash
    hands = json.loads(public["GameSetUp"].payload_json)["state"]["players"]
    assert [p["starting_tiles"] for p in hands] == [[], []]

    other = await _events(stub, created.game_id, seat=1)
    assert json.loads(other["StartingTilesChosen"].payload_json)["tiles"] == []
    other_hands = json.loads(other["GameSetUp"].payload_json)["state"]["players"]
    assert other_hands[0]["starting_tiles"] == [] and len(other_hands[1]["starting_tiles"]) == 4

    mine = await _events(stub, created.game_id, seat=0)
    assert json.loads(mine["StartingTilesChosen"].payload_json)["tiles"] == chosen
    assert not mine["StartingTilesChosen"].redacted
    assert mine["StartingTilesChosen"].hash == public["StartingTilesChosen"].hash

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        request = pb.ListEventsRequest(game_id=created.game_id, seat=0, seat_token=TOKENS[1])
        await stub.ListEvents(request)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
