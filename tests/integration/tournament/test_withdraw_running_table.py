"""Issue 30 item 4: the organiser's WithdrawPlayer settles the withdrawn player's running
table at once. Before, it only took the player out of later rounds, and the table waited
for the player's clock (24 hours with the default one). Now the engine applies the
tournament's timeout_policy to that seat (SeatForfeited or SeatTakenOver, as the
timekeeper does when a clock runs out), a bot plays the seat, the game ends, the round
completes and the logs still verify. Over gRPC on a real Redis, with the bot worker,
the timekeeper and the director of ``teoti serve``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.app import Stack
from services.rpc.errors import error_info
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc

ORGANISER = "organiser-token-0123456789abcdef"
PLAYER_TOKEN = "player-token-0123456789abcdef"
HOUR_MS = 3_600_000
WAIT_S = 20.0


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield pb_grpc.TournamentServiceStub(channel)


async def running_table(stub: Any, policy: str) -> tuple[str, str]:
    """A one-round Nim tournament of a bot and a human who never moves, clocked at an
    hour per move; started. Returns (tournament id, the table's game id)."""
    config = pb.TournamentConfig(
        name="stalled",
        ruleset="nim",
        format=pb.TOURNAMENT_FORMAT_SWISS,
        min_seats=2,
        max_seats=2,
        rounds=1,
        time_control=pb.TournamentTimeControl(move_deadline_ms=HOUR_MS),
        timeout_policy=policy,
    )
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(organiser_token=ORGANISER, config=config)
    )
    tid = created.tournament.tournament_id
    await stub.RegisterPlayer(
        pb.RegisterPlayerRequest(tournament_id=tid, player="ann", player_token=PLAYER_TOKEN)
    )
    await stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid, player="robot", bot=True, organiser_token=ORGANISER
        )
    )
    started = await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
    )
    [table] = started.tournament.rounds[0].tables
    return tid, table.game_id


async def human_seat(stack: Stack, game_id: str) -> int:
    """The seat of the human player ("ann") in the table's game."""
    snapshot = await stack.reader.load(game_id)
    [seat] = [i for i, s in enumerate(snapshot.seats) if s.name == "ann"]
    return seat


async def finished(stub: Any, tid: str) -> Any:
    """The tournament once its log says it finished (WatchTournament; the caller bounds
    the wait)."""
    async for message in stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid)):
        if message.event.type == "TournamentFinished":
            break
    got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
    return got.tournament


async def test_organiser_withdrawal_settles_the_running_table_now(stub: Any, stack: Stack) -> None:
    """Nim has no ruleset bot, so its tournaments forfeit (``bot_takeover`` through the
    engine: tests/clocks/test_withdraw_seat.py)."""
    tid, game_id = await running_table(stub, "forfeit")
    seat = await human_seat(stack, game_id)

    withdrawn = await stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(tournament_id=tid, player="ann", organiser_token=ORGANISER)
    )
    assert withdrawn.tournament.status == "running"

    async with asyncio.timeout(WAIT_S):  # before issue 30 item 4: an hour (the clock)
        tournament = await finished(stub, tid)
    assert tournament is not None and tournament.status == "finished"

    events = await stack.store.read(game_id)
    settled = [e for e in events if e.type == "SeatForfeited"]
    assert [e.payload["seat"] for e in settled] == [seat]
    assert not [e for e in events if e.type == "SeatTimedOut"]  # no clock ran out
    assert (await stack.reader.load(game_id)).is_terminal()
    report = await stack.reader.audit(game_id)  # chain, fold and every clock event
    assert report.ok, report.problems
    verified = await stub.VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid))
    assert verified.chain_ok and verified.pairings_ok


async def test_withdrawing_twice_or_by_the_player_changes_nothing_more(
    stub: Any, stack: Stack
) -> None:
    """The player's own token withdraws them too (settling their table); a second
    withdrawal is refused as before and appends nothing to the game."""
    tid, game_id = await running_table(stub, "forfeit")
    await stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(tournament_id=tid, player="ann", player_token=PLAYER_TOKEN)
    )
    async with asyncio.timeout(WAIT_S):
        tournament = await finished(stub, tid)
    assert tournament is not None and tournament.status == "finished"
    version = (await stack.reader.load(game_id)).version
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.WithdrawPlayer(
            pb.WithdrawPlayerRequest(tournament_id=tid, player="ann", organiser_token=ORGANISER)
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(caught.value) is not None
    assert (await stack.reader.load(game_id)).version == version
