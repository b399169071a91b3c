"""TournamentService end to end over gRPC on a real Redis: a 16-bot Swiss over 3 rounds
played to the end by the bot worker and the director, its export and audit; refusals."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.app import Stack
from services.rpc.errors import error_info
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.tournament.aggregate import fold
from services.tournament.repository import token_hash
from services.tournament.service import export_json

TOKEN = "player-token-0123456789abcdef"
ORGANISER = "organiser-token-0123456789abcdef"


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield pb_grpc.TournamentServiceStub(channel)


def nim_config(**changes: Any) -> Any:
    fields: dict[str, Any] = {
        "name": "Nim open",
        "ruleset": "nim",
        "format": pb.TOURNAMENT_FORMAT_SWISS,
        "min_seats": 2,
        "max_seats": 2,
        "rounds": 3,
        "rated": True,
    }
    fields.update(changes)
    return pb.TournamentConfig(**fields)


async def refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    return caught.value.code(), info.reason if info is not None else ""


async def test_swiss_of_16_bots_over_3_rounds(stub: Any, stack: Stack) -> None:
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(organiser_token=ORGANISER, config=nim_config())
    )
    tid = created.tournament.tournament_id
    for n in range(16):
        await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid, player=f"bot{n:02}", bot=True, organiser_token=ORGANISER
            )
        )
    started = await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
    )
    assert len(started.tournament.rounds) == 1
    assert len(started.tournament.rounds[0].tables) == 8

    watched: list[str] = []

    async def watch() -> None:
        async for message in stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid)):
            watched.append(message.event.type)

    watcher = asyncio.create_task(watch())
    for _ in range(600):
        got = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
        if got.status == "finished":
            break
        await asyncio.sleep(0.1)
    assert got.status == "finished", got
    await asyncio.wait_for(watcher, 10)
    assert watched[-2:] == ["TournamentFinished", "SeedRevealed"]
    assert watched.count("RoundPaired") == 3

    # Every table played once, every player seated once per round.
    assert len(got.rounds) == 3
    for round_ in got.rounds:
        seated = [p for t in round_.tables for p in t.players]
        assert sorted(seated) == [f"bot{n:02}" for n in range(16)]
        assert all(t.finished and sorted(t.places) == [1, 2] for t in round_.tables)
    games = {t.game_id for r in got.rounds for t in r.tables}
    assert len(games) == 24
    total = sum(row.points for row in got.standings)
    assert total == 24  # 1 point per table (2 seats: 1, 0) over 24 tables

    verified = await stub.VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid))
    assert verified.chain_ok and verified.pairings_ok, verified
    assert verified.rounds_checked == 3

    # The export is the log's: folding the stored events again gives the same document.
    exported = json.loads(
        (await stub.ExportTournament(pb.ExportTournamentRequest(tournament_id=tid))).json
    )
    stored = await stack.store.read(f"t-{tid}")
    assert exported == json.loads(json.dumps(export_json(fold(stored))))

    board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(ruleset="nim"))
    assert len(board.rows) == 16
    assert all(row.games == 3 for row in board.rows)
    # Bots are rated under their own identity, never under a person's name.
    assert sorted(row.player for row in board.rows) == [f"bot:bot{n:02}" for n in range(16)]
    listed = await stub.ListTournaments(pb.ListTournamentsRequest())
    assert [t.tournament_id for t in listed.tournaments] == [tid]


async def test_refusals(stub: Any, stack: Stack) -> None:
    bad_size = stub.CreateTournament(
        pb.CreateTournamentRequest(
            organiser_token=ORGANISER, config=nim_config(min_seats=2, max_seats=6)
        )
    )
    assert await refusal(bad_size) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "table_size_unsupported",
    )
    no_bot = stub.CreateTournament(
        pb.CreateTournamentRequest(
            organiser_token=ORGANISER, config=nim_config(timeout_policy="bot_takeover")
        )
    )
    assert await refusal(no_bot) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "timeout_policy_unsupported",
    )

    bad_options = stub.CreateTournament(
        pb.CreateTournamentRequest(
            organiser_token=ORGANISER, config=nim_config(options_json='{"max_take": "lots"}')
        )
    )
    assert (await refusal(bad_options))[0] == grpc.StatusCode.INVALID_ARGUMENT
    bad_tiebreak = stub.CreateTournament(
        pb.CreateTournamentRequest(
            organiser_token=ORGANISER, config=nim_config(tiebreaks=["coin_flip"])
        )
    )
    assert await refusal(bad_tiebreak) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_config")

    full = await stub.CreateTournament(
        pb.CreateTournamentRequest(organiser_token=ORGANISER, config=nim_config(max_players=2))
    )
    tid = full.tournament.tournament_id
    await stub.RegisterPlayer(
        pb.RegisterPlayerRequest(tournament_id=tid, player="ann", player_token=TOKEN)
    )
    again = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(tournament_id=tid, player="ann", player_token=TOKEN)
    )
    assert await refusal(again) == (grpc.StatusCode.FAILED_PRECONDITION, "already_registered")
    weak = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(tournament_id=tid, player="bea", player_token="short")
    )
    assert await refusal(weak) == (grpc.StatusCode.INVALID_ARGUMENT, "seat_token_strength")
    await stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid, player="b1", bot=True, organiser_token=ORGANISER
        )
    )
    third = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid, player="b2", bot=True, organiser_token=ORGANISER
        )
    )
    assert await refusal(third) == (grpc.StatusCode.FAILED_PRECONDITION, "tournament_full")

    started = await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
    )
    game = started.tournament.rounds[0].tables[0]
    assert sorted(game.players) == ["ann", "b1"]
    # ann's seat in the game is bound to her player token (she plays with it).
    snapshot = await stack.reader.load(game.game_id)
    seat = list(game.players).index("ann")
    assert snapshot.seats[seat].accepts(TOKEN)
    assert not snapshot.seats[1 - seat].accepts(TOKEN)
    not_hers = stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(
            tournament_id=tid, player="ann", player_token="another-token-0123456789abcdef"
        )
    )
    assert await refusal(not_hers) == (grpc.StatusCode.PERMISSION_DENIED, "not_your_player")
    left = await stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(tournament_id=tid, player="ann", player_token=TOKEN)
    )
    assert [p.withdrawn for p in left.tournament.players] == [True, False]
    late = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid, player="b3", bot=True, organiser_token=ORGANISER
        )
    )
    assert await refusal(late) == (grpc.StatusCode.FAILED_PRECONDITION, "tournament_started")
    twice = stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
    )
    assert await refusal(twice) == (grpc.StatusCode.FAILED_PRECONDITION, "tournament_started")

    closed = await stub.CreateTournament(
        pb.CreateTournamentRequest(
            organiser_token=ORGANISER,
            config=nim_config(registration_closes_at="2000-01-01T00:00:00+00:00"),
        )
    )
    after_window = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=closed.tournament.tournament_id,
            player="b9",
            bot=True,
            organiser_token=ORGANISER,
        )
    )
    assert await refusal(after_window) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "registration_closed",
    )
    taken = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=closed.tournament.tournament_id,
            player="ann",
            player_token="another-token-0123456789abcdef",
        )
    )
    assert await refusal(taken) == (grpc.StatusCode.FAILED_PRECONDITION, "name_taken")
    unknown = stub.GetTournament(pb.GetTournamentRequest(tournament_id="nope"))
    assert await refusal(unknown) == (grpc.StatusCode.NOT_FOUND, "tournament_not_found")
    # A tournament's log is not a game: GameService does not serve it.
    with pytest.raises(LookupError):
        await stack.reader.load(f"t-{tid}")


async def test_create_is_idempotent_by_command_id(stub: Any) -> None:
    request = pb.CreateTournamentRequest(
        organiser_token=ORGANISER, config=nim_config(), command_id="create-1"
    )
    first = await stub.CreateTournament(request)
    again = await stub.CreateTournament(request)
    assert first.tournament.tournament_id == again.tournament.tournament_id
    other = stub.CreateTournament(
        pb.CreateTournamentRequest(
            organiser_token=ORGANISER, config=nim_config(rounds=4), command_id="create-1"
        )
    )
    assert await refusal(other) == (grpc.StatusCode.FAILED_PRECONDITION, "command_id_reused")
    listed = await stub.ListTournaments(pb.ListTournamentsRequest())
    assert len(listed.tournaments) == 1
    for n in range(4):
        await stub.CreateTournament(
            pb.CreateTournamentRequest(organiser_token=ORGANISER, config=nim_config(name=f"t{n}"))
        )
    seen: list[str] = []
    token = ""
    while True:
        page = await stub.ListTournaments(pb.ListTournamentsRequest(page_size=2, page_token=token))
        seen += [t.name for t in page.tournaments]
        token = page.next_page_token
        if not token:
            break
    assert sorted(seen) == ["Nim open", "t0", "t1", "t2", "t3"]


@pytest.mark.parametrize(
    ("fmt", "players", "seats", "advance", "rounds"),
    [
        pytest.param(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 6, 2, 0, 5, id="round_robin"),
        pytest.param(pb.TOURNAMENT_FORMAT_ELIMINATION, 16, 4, 2, 5, id="elimination"),
    ],
)
async def test_round_robin_and_elimination_play_out_and_verify(
    stub: Any, fmt: int, players: int, seats: int, advance: int, rounds: int
) -> None:
    config = nim_config(
        format=fmt, min_seats=2, max_seats=seats, advance=advance, rounds=rounds, rated=False
    )
    tid = (
        await stub.CreateTournament(
            pb.CreateTournamentRequest(organiser_token=ORGANISER, config=config)
        )
    ).tournament.tournament_id
    for n in range(players):
        await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid, player=f"p{n:02}", bot=True, organiser_token=ORGANISER
            )
        )
    await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
    )
    for _ in range(600):
        got = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
        if got.status == "finished":
            break
        await asyncio.sleep(0.1)
    assert got.status == "finished"
    verified = await stub.VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid))
    assert verified.chain_ok and verified.pairings_ok, verified
    assert verified.rounds_checked == len(got.rounds)
    if fmt == pb.TOURNAMENT_FORMAT_ROUND_ROBIN:
        met = {frozenset(t.players) for r in got.rounds for t in r.tables}
        assert len(met) == 15  # 6 players, 5 rounds: everyone met everyone once
    else:
        assert len(got.rounds[0].tables) == 4
        assert len(got.rounds[-1].tables) == 1  # a final table


async def test_only_the_organiser_starts_enters_bots_and_withdraws_others(
    stub: Any, stack: Stack
) -> None:
    created = await stub.CreateTournament(pb.CreateTournamentRequest(config=nim_config()))
    tid, organiser = created.tournament.tournament_id, created.organiser_token
    assert len(organiser) >= 22
    # Only a hash is kept, and not in the log.
    stored = await stack.store.read(f"t-{tid}")
    logged = json.dumps([dict(e.payload) for e in stored])
    assert organiser not in logged and token_hash(organiser) not in logged

    denied = (grpc.StatusCode.PERMISSION_DENIED, "not_the_organiser")
    for wrong in ("", "stranger-token-0123456789abcdef"):
        start = stub.StartTournament(
            pb.StartTournamentRequest(tournament_id=tid, organiser_token=wrong)
        )
        assert await refusal(start) == denied
        bot = stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid, player="mbot", bot=True, organiser_token=wrong
            )
        )
        assert await refusal(bot) == denied

    # An empty player token gets a generated one, and it is the player's.
    joined = await stub.RegisterPlayer(pb.RegisterPlayerRequest(tournament_id=tid, player="alice"))
    alice = joined.player_token
    assert len(alice) >= 22
    as_stranger = stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(
            tournament_id=tid, player="alice", organiser_token="stranger-token-0123456789abcdef"
        )
    )
    assert await refusal(as_stranger) == denied
    # A bot may not wear a person's name (it would be rated as her); a person may not
    # take the bots' rating namespace.
    impostor = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(
            tournament_id=tid, player="alice", bot=True, organiser_token=organiser
        )
    )
    assert await refusal(impostor) == (grpc.StatusCode.FAILED_PRECONDITION, "name_taken")
    bot_name = stub.RegisterPlayer(
        pb.RegisterPlayerRequest(tournament_id=tid, player="bot:b1", player_token=TOKEN)
    )
    assert await refusal(bot_name) == (grpc.StatusCode.INVALID_ARGUMENT, "player_name")
    # Nor a player account's (one rating book: ``player:<id>``), a person nor a bot.
    for bot in (False, True):
        account_name = stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid,
                player="Player:a0a0a0a0a0a0a0a0a0a0",
                player_token=TOKEN,
                bot=bot,
                organiser_token=organiser,
            )
        )
        assert await refusal(account_name) == (grpc.StatusCode.INVALID_ARGUMENT, "player_name")

    for name in ("b1", "b2", "b3"):
        await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid, player=name, bot=True, organiser_token=organiser
            )
        )
    out = await stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(tournament_id=tid, player="b3", organiser_token=organiser)
    )
    assert [p.withdrawn for p in out.tournament.players] == [False, False, False, True]
    left = await stub.WithdrawPlayer(
        pb.WithdrawPlayerRequest(tournament_id=tid, player="alice", player_token=alice)
    )
    assert left.tournament.players[0].withdrawn
    started = await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=organiser)
    )
    assert started.tournament.status == "running"


async def test_create_retry_keeps_the_organiser_token(stub: Any) -> None:
    request = pb.CreateTournamentRequest(
        config=nim_config(), command_id="c-1", organiser_token=ORGANISER
    )
    first = await stub.CreateTournament(request)
    again = await stub.CreateTournament(request)
    assert again.organiser_token == first.organiser_token == ORGANISER
    hijack = stub.CreateTournament(
        pb.CreateTournamentRequest(
            config=nim_config(), command_id="c-1", organiser_token="stranger-token-0123456789ab"
        )
    )
    assert await refusal(hijack) == (grpc.StatusCode.PERMISSION_DENIED, "not_the_organiser")
    weak = stub.CreateTournament(
        pb.CreateTournamentRequest(config=nim_config(), organiser_token="short")
    )
    assert await refusal(weak) == (grpc.StatusCode.INVALID_ARGUMENT, "seat_token_strength")


@pytest.mark.parametrize("tid", ["a b", "../x", "ab:cd", "{s1}", "nope", "x" * 200])
async def test_malformed_or_unknown_tournament_ids_are_not_found(stub: Any, tid: str) -> None:
    missing = (grpc.StatusCode.NOT_FOUND, "tournament_not_found")
    calls = [
        stub.VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid)),
        stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid)),
        stub.ExportTournament(pb.ExportTournamentRequest(tournament_id=tid)),
        stub.StartTournament(
            pb.StartTournamentRequest(tournament_id=tid, organiser_token=ORGANISER)
        ),
        stub.RegisterPlayer(
            pb.RegisterPlayerRequest(tournament_id=tid, player="zed", player_token=TOKEN)
        ),
        stub.WithdrawPlayer(
            pb.WithdrawPlayerRequest(tournament_id=tid, player="zed", player_token=TOKEN)
        ),
    ]
    for call in calls:
        assert await refusal(call) == missing
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for _ in stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid)):
            pass
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_paging_bounds_are_refused(stub: Any) -> None:
    for size in (-1, 101, 1_000_000):
        listed = stub.ListTournaments(pb.ListTournamentsRequest(page_size=size))
        assert await refusal(listed) == (grpc.StatusCode.INVALID_ARGUMENT, "page_size")
    for limit in (-5, 501):
        board = stub.GetLeaderboard(pb.GetLeaderboardRequest(ruleset="nim", limit=limit))
        assert await refusal(board) == (grpc.StatusCode.INVALID_ARGUMENT, "limit")


async def test_configs_are_refused_not_normalised(stub: Any) -> None:
    points = [pb.PlacePoints(table_size=2, points=[1, 0])]
    bad = [
        nim_config(rounds=0),
        nim_config(points_by_place=[*points, pb.PlacePoints(table_size=2, points=[9, 9])]),
        nim_config(points_by_place=[*points, pb.PlacePoints(table_size=0, points=[])]),
        nim_config(points_by_place=[pb.PlacePoints(table_size=2, points=[math.nan, -math.inf])]),
        nim_config(bye_points=math.inf),
        nim_config(registration_opens_at="yesterday"),
        nim_config(registration_closes_at="2030-01-01T00:00:00"),
    ]
    for config in bad:
        created = stub.CreateTournament(pb.CreateTournamentRequest(config=config))
        assert await refusal(created) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_config")
    twice = stub.CreateTournament(
        pb.CreateTournamentRequest(config=nim_config(tiebreaks=["wins", "wins"]))
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await twice
    assert "repeated: ['wins']" in (caught.value.details() or "")
