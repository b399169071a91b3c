"""``teoti tournament create``'s request: the clock flags reach the tournament's config
on a real server (TournamentService over gRPC), and a bad clock is refused there."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.app import StoreSettings, all_in_one
from services.cli.commands import build_parser
from services.cli.tournament import tournament_config
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.errors import error_info
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc


@pytest.fixture
async def stub(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Any]:
    async with (
        all_in_one(
            redis_url,
            store=StoreSettings(key_prefix, shards=4),
            registry=registry,
            default_ruleset="nim",
        ) as stack,
        grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel,
    ):
        yield pb_grpc.TournamentServiceStub(channel)


def create_args(*flags: str) -> Any:
    args = build_parser().parse_args(
        ["tournament", "create", "clocked", "--ruleset", "nim", *flags]
    )
    assert args.run.__name__ == "_create"
    return args


async def test_clock_flags_reach_the_tournament(stub: Any) -> None:
    args = create_args(
        "--base-ms", "300000", "--increment-ms", "5000", "--timeout-policy", "forfeit"
    )
    request = pb.CreateTournamentRequest(config=tournament_config(args, args.name))
    created = await stub.CreateTournament(request)
    got = await stub.GetTournament(
        pb.GetTournamentRequest(tournament_id=created.tournament.tournament_id)
    )
    clock = got.tournament.config.time_control
    assert (clock.base_ms, clock.increment_ms, clock.move_deadline_ms) == (300_000, 5_000, 0)
    assert got.tournament.config.timeout_policy == "forfeit"

    correspondence = create_args("--move-deadline-ms", "86400000")
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(config=tournament_config(correspondence, "by post"))
    )
    assert created.tournament.config.time_control.move_deadline_ms == 86_400_000
    # No flags: no clocks.
    plain = tournament_config(create_args(), "plain")
    assert not plain.time_control.base_ms and not plain.time_control.move_deadline_ms


async def test_a_clock_the_games_cannot_run_is_refused(stub: Any) -> None:
    for flags in (("--increment-ms", "1000"), ("--base-ms", "5")):
        args = create_args(*flags)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.CreateTournament(
                pb.CreateTournamentRequest(config=tournament_config(args, "bad"))
            )
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        info = error_info(caught.value)
        assert info is not None and info.reason == "time_control_invalid", flags
    # Nim has no bot to take over a seat.
    args = create_args("--base-ms", "60000", "--timeout-policy", "bot_takeover")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateTournament(
            pb.CreateTournamentRequest(config=tournament_config(args, "bad"))
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.fixture
async def target(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[str]:
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix, shards=4),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        yield f"127.0.0.1:{stack.port}"


async def test_create_shows_the_organiser_token_that_start_and_bots_need(
    target: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEOTI_ORGANISER_TOKEN", raising=False)
    monkeypatch.delenv("TEOTI_PLAYER_TOKEN", raising=False)

    async def teoti(*argv: str) -> int:
        args = build_parser().parse_args(["tournament", *argv, "--target", target])
        code: int = await args.run(args)
        return code

    assert await teoti("create", "cup", "--ruleset", "nim", "--rounds", "1") == 0
    shown = capsys.readouterr()
    tid = shown.out.strip().splitlines()[-1]  # the id is the last line (after test logs)
    found = re.search(r"export TEOTI_ORGANISER_TOKEN=(\S+)", shown.err)
    assert found is not None, shown.err
    organiser = found.group(1)

    # No player token: the server makes one, and the CLI shows it.
    assert await teoti("join", tid, "ann") == 0
    assert re.search(r"export TEOTI_PLAYER_TOKEN=\S{22,}", capsys.readouterr().err)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await teoti("join", tid, "b1", "--bot")
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await teoti("start", tid)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED

    monkeypatch.setenv("TEOTI_ORGANISER_TOKEN", organiser)
    assert await teoti("join", tid, "b1", "--bot") == 0
    monkeypatch.delenv("TEOTI_ORGANISER_TOKEN")
    assert await teoti("start", tid, "--organiser-token", organiser) == 0
    assert "Round 1: 1 tables" in capsys.readouterr().out
    assert await teoti("standings", tid) == 0
    assert "sonneborn_berger" in capsys.readouterr().out  # the full column name
