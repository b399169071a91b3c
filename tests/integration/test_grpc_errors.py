"""Refusals come back with the right gRPC status and leave the stream unchanged.

Runs both wirings: gateway -> in-process engine, and gateway -> remote EngineService.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2

from services.engine.adapters import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.errors import error_info
from tests.integration.helpers import game_service


@pytest.fixture(params=["in_process", "remote_engine"])
async def stub(
    request: pytest.FixtureRequest, redis_store: RedisEventStore, registry: RulesetRegistry
) -> AsyncIterator[Any]:
    engine = Engine(redis_store, registry)
    async with game_service(engine, GameReader(redis_store, registry), request.param) as s:
        yield s


async def new_game(stub: Any) -> str:
    pb = game_service_pb2
    seats = [
        pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n, token=f"t{i}-0123456789abcdefghij")
        for i, n in enumerate(("ann", "bob"))
    ]
    reply = await stub.CreateGame(pb.CreateGameRequest(ruleset="nim", seats=seats))
    return str(reply.game_id)


async def expect(call: Any, code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    assert info.value.code() == code, info.value.details()
    detail = error_info(info.value)  # every refusal names its reason and explains itself
    assert detail is not None and detail.reason and dict(detail.metadata)["message"]
    return info.value


async def test_illegal_action_is_failed_precondition_naming_the_rule(
    stub: Any, redis_store: RedisEventStore
) -> None:
    pb = game_service_pb2
    game = await new_game(stub)
    before = await redis_store.read(game)
    error = await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game,
                seat=0,
                seat_token="t0-0123456789abcdefghij",
                action_json='{"take": 9}',
            )
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    info = error_info(error)
    assert info is not None and info.reason == "nim.take_range"
    assert "nim.take_range" in (error.details() or "")
    error = await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game,
                seat=1,
                seat_token="t1-0123456789abcdefghij",
                action_json='{"take": 1}',
            )
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert error_info(error).reason == "not_your_turn"  # type: ignore[union-attr]
    assert await redis_store.read(game) == before


async def test_stale_expected_version_is_aborted(stub: Any, redis_store: RedisEventStore) -> None:
    pb = game_service_pb2
    game = await new_game(stub)
    ok = await stub.SubmitAction(
        pb.SubmitActionRequest(
            game_id=game,
            seat=0,
            seat_token="t0-0123456789abcdefghij",
            action_json='{"take": 1}',
            expected_version=2,
        )
    )
    assert ok.version == 3
    before = await redis_store.read(game)
    error = await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game,
                seat=1,
                seat_token="t1-0123456789abcdefghij",
                action_json='{"take": 1}',
                expected_version=2,
            )
        ),
        grpc.StatusCode.ABORTED,
    )
    info = error_info(error)
    assert info is not None and dict(info.metadata)["actual"] == "3"
    assert await redis_store.read(game) == before


async def test_bad_requests_are_invalid_argument_or_not_found(stub: Any) -> None:
    pb = game_service_pb2
    game = await new_game(stub)
    bad = grpc.StatusCode.INVALID_ARGUMENT
    await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game, seat=0, seat_token="t0-0123456789abcdefghij", action_json="{"
            )
        ),
        bad,
    )
    await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game, seat=0, seat_token="t0-0123456789abcdefghij", action_json="[1]"
            )
        ),
        bad,
    )
    await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game, seat=5, seat_token="t5-0123456789abcdefghij", action_json="{}"
            )
        ),
        bad,
    )
    await expect(
        stub.GetGame(pb.GetGameRequest(game_id=game, seat=5, seat_token="t5-0123456789abcdefghij")),
        bad,
    )
    seat = pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="x")
    await expect(
        stub.CreateGame(pb.CreateGameRequest(ruleset="nim", seats=[seat, seat], options_json="{")),
        bad,
    )
    await expect(
        stub.CreateGame(
            pb.CreateGameRequest(ruleset="nim", seats=[seat, seat], options_json='{"max_take": 0}')
        ),
        bad,
    )
    await expect(stub.CreateGame(pb.CreateGameRequest(ruleset="chess", seats=[seat])), bad)
    await expect(
        stub.CreateGame(pb.CreateGameRequest(ruleset="nim", seats=[pb.Seat(name="x")])), bad
    )
    missing = grpc.StatusCode.NOT_FOUND
    await expect(stub.GetGame(pb.GetGameRequest(game_id="nope")), missing)
    await expect(stub.ListEvents(pb.ListEventsRequest(game_id="nope")), missing)
    await expect(
        stub.SubmitAction(
            pb.SubmitActionRequest(
                game_id="nope", seat=0, seat_token="t0-0123456789abcdefghij", action_json="{}"
            )
        ),
        missing,
    )

    async def watch() -> None:
        async for _ in stub.WatchGame(pb.WatchGameRequest(game_id="nope")):
            pass

    await expect(watch(), missing)


async def test_reads_and_legal_actions(stub: Any) -> None:
    pb = game_service_pb2
    game = await new_game(stub)
    legal = await stub.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=game, seat=0, seat_token="t0-0123456789abcdefghij")
    )
    assert [a.action_json for a in legal.actions] == ['{"take":1}', '{"take":2}', '{"take":3}']
    assert legal.actions[0].description == "take 1"
    assert (
        list(
            (
                await stub.ListLegalActions(
                    pb.ListLegalActionsRequest(
                        game_id=game, seat=1, seat_token="t1-0123456789abcdefghij"
                    )
                )
            ).actions
        )
        == []
    )
    got = await stub.GetGame(
        pb.GetGameRequest(game_id=game, seat=0, seat_token="t0-0123456789abcdefghij")
    )
    assert got.ruleset == "nim" and got.version == 2 and list(got.seats_to_act) == [0]
    assert not got.finished and [s.name for s in got.seats] == ["ann", "bob"]


async def test_a_weak_seat_token_is_refused_naming_the_rule(stub: Any) -> None:
    """docs/events.md "Seat tokens": 22 to 256 printable characters, else INVALID_ARGUMENT
    with ErrorInfo reason seat_token_strength; nothing is created."""
    pb = game_service_pb2
    weak = pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="ann", token="ann-secret")
    error = await expect(
        stub.CreateGame(pb.CreateGameRequest(ruleset="nim", seats=[weak])),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert error_info(error).reason == "seat_token_strength"  # type: ignore[union-attr]
    assert "22" in dict(error_info(error).metadata)["message"]  # type: ignore[union-attr]
