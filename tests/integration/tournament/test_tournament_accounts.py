"""Tournaments register players by their player account (issue 32): a player calling
RegisterPlayer with ``authorization: Player <credential>`` enters as itself (its name, no
tournament token), the account is public on the entrant, its tables' seats are bound to
it so it plays them with its credential, it is told where each table is on its player
stream (``tournament_pairing``), and it withdraws with the same credential."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client import TeotiClient

from services.app import Stack
from services.notices.inbox import RedisInbox
from services.notices.notice import NoticeKind
from services.rpc.errors import error_info
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from tests.integration.tournament.cli_helpers import teoti

ORGANISER = "organiser-token-0123456789abcdef"


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield pb_grpc.TournamentServiceStub(channel)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[TeotiClient]:
    async with TeotiClient(f"127.0.0.1:{stack.port}") as teoti:
        yield teoti


def as_player(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Player {credential}"),)


async def new_tournament(stub: Any) -> str:
    config = pb.TournamentConfig(
        name="Accounts cup", ruleset="nim", format=pb.TOURNAMENT_FORMAT_SWISS,
        min_seats=2, max_seats=2, rounds=1,
    )  # fmt: skip
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(organiser_token=ORGANISER, config=config)
    )
    return str(created.tournament.tournament_id)


async def test_accounts_enter_play_with_their_credentials_and_are_told_their_tables(
    stub: Any, client: TeotiClient, stack: Stack, key_prefix: str
) -> None:
    ann = await client.register_player("Ann")
    bob = await client.register_player("Bob")
    tid = await new_tournament(stub)
    for player in (ann, bob):
        entered = await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(tournament_id=tid, player="ignored"),
            metadata=as_player(player.credential),
        )
        assert entered.player_token == ""  # no tournament token: the account is the key
    players = {p.name: p.player_id for p in entered.tournament.players}
    assert players == {"Ann": ann.player.player_id, "Bob": bob.player.player_id}

    started = await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
    )
    table = started.tournament.rounds[0].tables[0]
    game = await client.get_game(table.game_id)
    assert sorted(seat.player for seat in game.seats) == sorted(players.values())

    # Each account is told where its game is, on its own player stream.
    inbox = RedisInbox(stack.store.client, key_prefix)
    for player in (ann, bob):
        notices = await inbox.since(player.player.player_id)
        (notice,) = [n for n in notices if n.kind is NoticeKind.TOURNAMENT_PAIRING]
        assert notice.data["tournament_id"] == tid and notice.data["game_id"] == table.game_id
        seat = notice.data["seat"]
        assert game.seats[seat].player == player.player.player_id
        # ...and plays that seat with its player credential (no seat token exists).
        moves = await client.legal_actions(table.game_id, seat, player.credential)
        assert isinstance(moves, list)


async def test_an_account_enters_once_and_withdraws_with_its_credential(
    stub: Any, client: TeotiClient
) -> None:
    cy = await client.register_player("Cy")
    dee = await client.register_player("Dee")
    tid = await new_tournament(stub)
    request = pb.RegisterPlayerRequest(tournament_id=tid)
    await stub.RegisterPlayer(request, metadata=as_player(cy.credential))
    with pytest.raises(grpc.aio.AioRpcError) as again:
        await stub.RegisterPlayer(request, metadata=as_player(cy.credential))
    assert error_info(again.value).reason == "already_registered"
    with pytest.raises(grpc.aio.AioRpcError) as forged:
        await stub.RegisterPlayer(request, metadata=as_player("tpc_" + "x" * 43))
    assert forged.value.code() is grpc.StatusCode.PERMISSION_DENIED
    # Another account may not withdraw Cy; Cy's own credential may.
    withdraw = pb.WithdrawPlayerRequest(tournament_id=tid, player="Cy")
    with pytest.raises(grpc.aio.AioRpcError) as not_yours:
        await stub.WithdrawPlayer(withdraw, metadata=as_player(dee.credential))
    assert error_info(not_yours.value).reason == "not_your_player"
    left = await stub.WithdrawPlayer(withdraw, metadata=as_player(cy.credential))
    assert [p.withdrawn for p in left.tournament.players] == [True]


async def test_a_token_registration_keeps_its_name_from_an_account(
    stub: Any, client: TeotiClient
) -> None:
    tid = await new_tournament(stub)
    await stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid, player="Eve", player_token="eve-token-0123456789abcdefgh"
        )
    )
    eve = await client.register_player("EVE")  # an account of the same name identity
    other = await new_tournament(stub)
    with pytest.raises(grpc.aio.AioRpcError) as taken:
        await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(tournament_id=other), metadata=as_player(eve.credential)
        )
    assert error_info(taken.value).reason == "name_taken"


async def test_teoti_tournament_join_enters_a_player_account(
    stub: Any, client: TeotiClient, stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    fay = await client.register_player("Fay")
    tid = await new_tournament(stub)
    gateway = ("--target", f"127.0.0.1:{stack.port}")
    joined = await teoti(
        capsys, "tournament", "join", tid, "--credential", fay.credential, *gateway
    )
    assert joined.code == 0, joined.err
    assert fay.credential not in joined.out + joined.err
    got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
    assert [(p.name, p.player_id) for p in got.tournament.players] == [
        ("Fay", fay.player.player_id)
    ]
    nameless = await teoti(capsys, "tournament", "join", tid, *gateway)
    assert nameless.code != 0 and "--credential" in nameless.err
