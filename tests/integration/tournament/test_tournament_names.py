"""Issue 30 item 13: a tournament player's identity is the name normalised (NFKC, trimmed,
case-folded); the display form is kept.

Seen before: ``"Ann "`` registered beside ``"ann"`` as a different player (and so could
another token's ``"ANN"``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.app import Stack
from services.players.names import name_key
from services.rpc.errors import error_info
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc

TOKEN = "player-token-0123456789abcdef"
OTHER = "another-token-0123456789abcdef"
ORGANISER = "organiser-token-0123456789abcdef"
FULL_WIDTH_ANN = "\uff21\uff2e\uff2e"
"""``ANN`` in full-width letters (NFKC: ``ANN``)."""


def test_name_keys_fold_width_case_and_spaces() -> None:
    assert name_key("Ann ") == name_key("ann") == name_key(FULL_WIDTH_ANN) == name_key(" ANN")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("ﬁona") == name_key("Fiona")  # NFKC: the ligature is two letters
    assert name_key("ann") != name_key("anne")


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield pb_grpc.TournamentServiceStub(channel)


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    return caught.value.code(), info.reason if info is not None else ""


async def _tournament(stub: Any) -> str:
    config = pb.TournamentConfig(
        name="Nim open",
        ruleset="nim",
        format=pb.TOURNAMENT_FORMAT_SWISS,
        min_seats=2,
        max_seats=2,
        rounds=1,
    )
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(organiser_token=ORGANISER, config=config)
    )
    return str(created.tournament.tournament_id)


def _register(stub: Any, tid: str, player: str, token: str = TOKEN, bot: bool = False) -> Any:
    return stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid,
            player=player,
            player_token="" if bot else token,
            bot=bot,
            organiser_token=ORGANISER if bot else "",
        )
    )


async def test_one_player_per_normalised_name(stub: Any) -> None:
    tid = await _tournament(stub)
    first = await _register(stub, tid, "Ann ")
    assert [p.name for p in first.tournament.players] == ["Ann"]  # display form, trimmed
    for same in ("ann", FULL_WIDTH_ANN, "  aNN"):
        refused = await _refusal(_register(stub, tid, same))
        assert refused == (grpc.StatusCode.FAILED_PRECONDITION, "already_registered"), same
    # Another token cannot take the name in any spelling, nor a bot wear it.
    assert await _refusal(_register(stub, tid, "ANN", OTHER)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "name_taken",
    )
    assert await _refusal(_register(stub, tid, "ann", bot=True)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "name_taken",
    )
    # Named in another spelling, the player is found (here: withdrawn by her token).
    left = await stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(tournament_id=tid, player="ANN", player_token=TOKEN)
    )
    assert [(p.name, p.withdrawn) for p in left.tournament.players] == [("Ann", True)]

    # In a later tournament the same person, however spelt, is the same player (one
    # identity, so one rating): registered under the display form first claimed.
    later = await _tournament(stub)
    again = await _register(stub, later, "aNN")
    assert [p.name for p in again.tournament.players] == ["Ann"]
