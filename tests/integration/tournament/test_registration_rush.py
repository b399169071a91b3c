"""An open tournament's sign-up rush: many registrations at once on one tournament all
enter, none refused ``busy`` (services.tournament.serial).

Seen before: 8 registrations in flight on a loaded machine each lost most appends to the
others and some gave up after 8 attempts with FAILED_PRECONDITION ``busy``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.app import Stack
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.tournament.serial import TournamentWriters

ORGANISER = "organiser-token-0123456789abcdef"
RUSH = 64


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield pb_grpc.TournamentServiceStub(channel)


async def test_sixty_four_registrations_at_once_all_enter(stub: Any) -> None:
    config = pb.TournamentConfig(
        name="rush",
        ruleset="nim",
        format=pb.TOURNAMENT_FORMAT_SWISS,
        min_seats=2,
        max_seats=2,
        rounds=1,
    )
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(organiser_token=ORGANISER, config=config)
    )
    tid = created.tournament.tournament_id

    def register(n: int) -> Any:
        return stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid, player=f"rusher-{n:02}", bot=True, organiser_token=ORGANISER
            )
        )

    await asyncio.gather(*(register(n) for n in range(RUSH)))
    # Withdrawals race the same way.
    await asyncio.gather(
        *(
            stub.WithdrawPlayer(
                pb.WithdrawPlayerRequest(
                    tournament_id=tid, player=f"rusher-{n:02}", organiser_token=ORGANISER
                )
            )
            for n in range(0, RUSH, 4)
        )
    )
    got = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
    names = sorted(p.name for p in got.players)
    assert names == sorted(f"rusher-{n:02}" for n in range(RUSH)), names
    withdrawn = sorted(p.name for p in got.players if p.withdrawn)
    assert withdrawn == sorted(f"rusher-{n:02}" for n in range(0, RUSH, 4)), withdrawn


async def test_writers_take_turns_and_keep_nothing_after() -> None:
    writers = TournamentWriters()
    inside: list[int] = []
    most = 0

    async def write(n: int) -> None:
        nonlocal most
        async with writers.turn("t1"):
            inside.append(n)
            most = max(most, len(inside))
            await asyncio.sleep(0)
            inside.remove(n)

    await asyncio.gather(*(write(n) for n in range(10)))
    assert most == 1 and len(writers) == 0
