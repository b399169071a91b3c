"""ResignSeat and ClaimSeatForBot over gRPC (issue 32) on a real Redis, with the gateway
reaching the engine in process and over the engine link: tokens checked, outcomes
reported, refusals named, and the public log with the new events verifies (VerifyGame)
and folds from a fresh reader."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc

from services.app import Stack
from services.engine.adapters import RedisEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.rpc.errors import error_info
from tests.clocks.helpers import FakeClock
from tests.integration.helpers import game_service
from tests.leaving_samples import leaving_registry

ABSENCE_MS = 60_000


@dataclass
class Service:
    stub: Any
    clock: FakeClock
    store: RedisEventStore


@pytest.fixture(params=["in_process", "remote_engine"])
async def service(
    request: pytest.FixtureRequest, redis_store: RedisEventStore
) -> AsyncIterator[Service]:
    registry = leaving_registry()
    clock = FakeClock()
    engine = Engine(
        redis_store, registry, clock=clock, seed_source=fixed_seed("g"), absence_ms=ABSENCE_MS
    )
    async with game_service(engine, GameReader(redis_store, registry), request.param) as stub:
        yield Service(stub, clock, redis_store)


async def create(stub: Any, ruleset: str, seats: int) -> tuple[str, list[str]]:
    request = pb.CreateGameRequest(
        ruleset=ruleset,
        seats=[pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=f"p{i}") for i in range(seats)],
    )
    reply = await stub.CreateGame(request)
    return reply.game_id, [t.token for t in reply.seat_tokens]


def reason_of(info: pytest.ExceptionInfo[grpc.aio.AioRpcError]) -> str:
    detail = error_info(info.value)
    assert detail is not None
    return str(detail.reason)


async def test_a_two_seat_resignation_ends_the_game_and_the_log_verifies(
    service: Service,
) -> None:
    stub = service.stub
    game, tokens = await create(stub, "nim", 2)

    reply = await stub.ResignSeat(
        pb.ResignSeatRequest(game_id=game, seat=0, seat_token=tokens[0], command_id="gg")
    )

    assert reply.outcome == pb.RESIGN_OUTCOME_GAME_ENDED and reply.finished
    again = await stub.ResignSeat(
        pb.ResignSeatRequest(game_id=game, seat=0, seat_token=tokens[0], command_id="gg")
    )
    assert (again.version, again.first_version, again.outcome) == (
        reply.version,
        reply.first_version,
        reply.outcome,
    )
    view = await stub.GetGame(pb.GetGameRequest(game_id=game))
    assert view.finished and list(view.result.ranking) == [1, 0]
    verified = await stub.VerifyGame(pb.VerifyGameRequest(game_id=game))
    assert verified.ok, verified.problems
    events = await service.store.read(game)
    assert audit_log(game, events, leaving_registry()).ok
    with pytest.raises(grpc.aio.AioRpcError) as over:
        await stub.ResignSeat(pb.ResignSeatRequest(game_id=game, seat=1, seat_token=tokens[1]))
    assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(over) == "game_over"


async def test_a_resignation_needs_the_seats_own_token(service: Service) -> None:
    stub = service.stub
    game, tokens = await create(stub, "nim", 3)
    for token in ("", tokens[1]):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.ResignSeat(pb.ResignSeatRequest(game_id=game, seat=0, seat_token=token))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    version = (await stub.GetGame(pb.GetGameRequest(game_id=game))).version

    reply = await stub.ResignSeat(pb.ResignSeatRequest(game_id=game, seat=0, seat_token=tokens[0]))

    assert reply.outcome == pb.RESIGN_OUTCOME_FORFEITED and not reply.finished
    assert reply.first_version == version + 1
    view = await stub.GetGame(pb.GetGameRequest(game_id=game))
    assert list(view.seats_resigned) == [0] and list(view.seats_out) == [0]
    assert list(view.seats_played_by_bot) == [0]
    with pytest.raises(grpc.aio.AioRpcError) as out:
        await stub.ResignSeat(pb.ResignSeatRequest(game_id=game, seat=0, seat_token=tokens[0]))
    assert out.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(out) == "seat_out"


async def test_a_game_declaring_bot_plays_reports_it(service: Service) -> None:
    game, tokens = await create(service.stub, "handnim", 2)
    reply = await service.stub.ResignSeat(
        pb.ResignSeatRequest(game_id=game, seat=1, seat_token=tokens[1])
    )
    assert reply.outcome == pb.RESIGN_OUTCOME_TAKEN_OVER and not reply.finished


async def test_a_claim_needs_an_absence_and_the_claimers_token(service: Service) -> None:
    stub = service.stub
    game, tokens = await create(stub, "botnim", 3)
    claim = pb.ClaimSeatForBotRequest(
        game_id=game, seat=0, claimed_by=1, seat_token=tokens[1], command_id="c"
    )
    with pytest.raises(grpc.aio.AioRpcError) as early:
        await stub.ClaimSeatForBot(claim)
    assert early.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(early) == "seat_not_absent"
    service.clock.advance(ABSENCE_MS)
    wrong = pb.ClaimSeatForBotRequest(game_id=game, seat=0, claimed_by=1, seat_token=tokens[0])
    with pytest.raises(grpc.aio.AioRpcError) as denied:  # seat 0's token is not seat 1's
        await stub.ClaimSeatForBot(wrong)
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED

    reply = await stub.ClaimSeatForBot(claim)
    view = await stub.GetGame(pb.GetGameRequest(game_id=game))
    assert list(view.seats_played_by_bot) == [0] and not view.seats_out

    events = await service.store.read(game, reply.first_version - 1)
    assert [e.type for e in events] == ["SeatClaimedForBot", "SeatTakenOver"]
    assert events[0].payload["claimed_by"] == 1 and events[0].payload["reason"] == "absent"
    assert tokens[1] not in str([e.payload for e in events])  # credentials stay out
    verified = await stub.VerifyGame(pb.VerifyGameRequest(game_id=game))
    assert verified.ok, verified.problems


async def test_the_bot_worker_finishes_for_a_resigned_seat_on_the_whole_stack(
    stack: Stack,
) -> None:
    """``teoti serve``'s stack: seat 0 resigns a 3-seat game, the other two play on, and
    the bot worker (the zombie) makes seat 0's moves until the game ends with seat 0
    last."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        game, tokens = await create(stub, "nim", 3)
        reply = await stub.ResignSeat(
            pb.ResignSeatRequest(game_id=game, seat=0, seat_token=tokens[0])
        )
        assert reply.outcome == pb.RESIGN_OUTCOME_FORFEITED
        loop = asyncio.get_running_loop()
        give_up = loop.time() + 30
        while not (view := await stub.GetGame(pb.GetGameRequest(game_id=game))).finished:
            assert loop.time() < give_up, "the game stalled"
            to_act = list(view.seats_to_act)
            if to_act and to_act[0] != 0:
                seat = to_act[0]
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        game_id=game,
                        seat=seat,
                        seat_token=tokens[seat],
                        action_json='{"take":1}',
                        expected_version=view.version,
                    )
                )
            else:
                await asyncio.sleep(0.05)  # the bot worker's turn for seat 0
        assert list(view.result.ranking)[-1] == 0
        verified = await stub.VerifyGame(pb.VerifyGameRequest(game_id=game))
        assert verified.ok, verified.problems
