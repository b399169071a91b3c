"""Teotihuacan's options over gRPC: a wrong type is refused, not coerced (the gateway's
error mapping for any ruleset: tests/integration/test_grpc_errors.py)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2

from services.engine.adapters import RedisEventStore
from services.rpc.errors import error_info
from tests.integration.test_grpc_errors import expect, stub

__all__ = ["stub"]  # the fixture, shared with the generic error tests


@pytest.mark.parametrize(
    ("options_json", "named"),
    [
        ('{"first_game": "no"}', "option 'first_game' must be a boolean"),
        ('{"first_game": 1}', "option 'first_game' must be a boolean"),
        ('{"solo": true, "teotibot": {"cocoa_vp": "1"}}', "'teotibot.cocoa_vp' must be an integer"),
        ('{"first_gmae": false}', "unknown option 'first_gmae'"),
    ],
)
async def test_teotihuacan_options_of_a_wrong_type_are_refused_not_coerced(
    stub: Any, redis_store: RedisEventStore, options_json: str, named: str
) -> None:
    # Issue 13 item 7: {"first_game": "no"} and {"first_game": 1} used to start a game.
    pb = game_service_pb2
    seats = [
        pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n, token=f"t{i}-0123456789abcdefghij")
        for i, n in enumerate("ab")
    ]
    request = pb.CreateGameRequest(ruleset="teotihuacan", seats=seats, options_json=options_json)
    error = await expect(stub.CreateGame(request), grpc.StatusCode.INVALID_ARGUMENT)
    info = error_info(error)
    assert info is not None and info.reason == "game_options"
    assert named in dict(info.metadata)["message"] and named in (error.details() or "")
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            ruleset="teotihuacan", seats=seats, options_json='{"first_game": false}'
        )
    )
    assert created.game_id  # the same request with a JSON boolean is accepted
