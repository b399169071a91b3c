"""``teoti tournament`` list / withdraw / standings / leaderboard / watch / export /
verify end to end against a real server in this process (TournamentService over gRPC,
the bot worker and the director of ``teoti serve``, a real Redis).

The known small tournament: one rated round of Nim between the human "ann" and the bot
"robot"; ann withdraws while seated, so her seat is forfeited (the tournament's policy)
and robot wins the table. Its standings and the ratings it makes are known exactly.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.app import Stack
from services.engine.domain.chain import hash_of
from services.engine.domain.event_json import event_from_json, event_to_json
from services.logging_setup import configure_logging
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.tournament.aggregate import fold
from services.tournament.service import export_json
from tests.e2e.test_cli import ROOT
from tests.e2e.test_cli_export import published_keys_file
from tests.integration.tournament.cli_helpers import Ran, teoti

ORGANISER = "organiser-token-0123456789abcdef"
ANN = "ann-token-0123456789abcdefghij"
WAIT_S = 30.0
NOWHERE = "127.0.0.1:9"
"""A --target nothing listens on: an offline command must not need it."""


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """No tokens from the environment, and the server's logs (same process) kept out of
    the commands' captured output (tests/plugin.py puts logging back afterwards)."""
    monkeypatch.delenv("TEOTI_ORGANISER_TOKEN", raising=False)
    monkeypatch.delenv("TEOTI_PLAYER_TOKEN", raising=False)
    configure_logging("ERROR")


@pytest.fixture
def target(stack: Stack) -> str:
    return f"127.0.0.1:{stack.port}"


async def _stub_call(target: str, method: str, request: Any) -> Any:
    async with grpc.aio.insecure_channel(target) as channel:
        return await getattr(pb_grpc.TournamentServiceStub(channel), method)(request)


async def _finished(target: str, tid: str) -> None:
    """Wait (bounded) for TournamentFinished in the log."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        async with asyncio.timeout(WAIT_S):
            async for message in stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid)):
                if message.event.type == "TournamentFinished":
                    return


async def _ann_and_robot(capsys: pytest.CaptureFixture[str], target: str) -> str:
    """The known small tournament, started through the CLI: its id."""
    made = await teoti(
        capsys,
        *("tournament", "create", "Known cup", "--ruleset", "nim", "--rounds", "1"),
        *("--rated", "--move-deadline-ms", "3600000", "--organiser-token", ORGANISER),
        *("--command-id", "known-cup"),  # recorded in v1's metadata, which the hash covers
        *("--target", target),
    )
    assert made.code == 0, made.err
    tid = made.out.strip().splitlines()[-1]
    for argv in (
        ("join", tid, "ann", "--token", ANN),
        ("join", tid, "robot", "--bot", "--organiser-token", ORGANISER),
        ("start", tid, "--organiser-token", ORGANISER),
    ):
        ran = await teoti(capsys, "tournament", *argv, "--target", target)
        assert ran.code == 0, ran.err
    return tid


def _one_line(ran: Ran, code: int, *words: str) -> None:
    assert ran.code == code, (ran.out, ran.err)
    assert len(ran.err.strip().splitlines()) == 1, ran.err
    assert "Traceback" not in ran.err
    for word in words:
        assert word in ran.err, ran.err


async def test_withdraw_standings_leaderboard_of_a_known_tournament(
    capsys: pytest.CaptureFixture[str], target: str, tmp_path: Path
) -> None:
    saved = tmp_path / "board.json"
    before = await teoti(
        capsys, "tournament", "leaderboard", "--ruleset", "nim", "--save", str(saved),
        "--target", target,
    )  # fmt: skip
    assert before.code == 0 and "(no rated games yet)" in before.out
    tid = await _ann_and_robot(capsys, target)

    # Refusals: one line, exit 2, nothing changed.
    wrong = await teoti(
        capsys, "tournament", "withdraw", tid, "ann",
        "--organiser-token", "not-the-organiser-token-0123456789", "--target", target,
    )  # fmt: skip
    _one_line(wrong, 2, "PERMISSION_DENIED", "organiser token")
    nobody = await teoti(capsys, "tournament", "withdraw", tid, "ann", "--target", target)
    _one_line(nobody, 2, "needs the player's token")
    unknown = await teoti(
        capsys, "tournament", "withdraw", "nosuchtournament", "ann", "--token", ANN,
        "--target", target,
    )  # fmt: skip
    _one_line(unknown, 2, "NOT_FOUND")

    left = await teoti(
        capsys, "tournament", "withdraw", tid, "ann", "--token", ANN, "--target", target
    )
    assert left.code == 0, left.err
    assert left.out.splitlines()[0] == "ann withdrew (1 player left)"
    await _finished(target, tid)

    shown = await teoti(capsys, "tournament", "standings", tid, "--target", target)
    assert shown.code == 0, shown.err
    lines = shown.out.splitlines()
    assert lines[0] == "Known cup (finished), 1 rounds"
    assert lines[-3:] == [
        "rank  player              games  points  buchholz  sonneborn_berger      wins",
        "   1  robot                   1     1.0      0.00              0.00      1.00",
        "   2  ann (w)                 1     0.0      1.00              0.00      0.00",
    ]
    assert all(len(line) <= 80 for line in lines), shown.out

    board = await teoti(
        capsys, "tournament", "leaderboard", "--ruleset", "nim", "--since", str(saved),
        "--target", target,
    )  # fmt: skip
    assert board.code == 0, board.err
    assert board.out.splitlines() == [
        "Leaderboard of nim (rating: mu - 3 sigma, rounded)",
        "rank  player                                rating  games  change",
        "   1  bot:robot                                  3      1     new",
        "   2  ann                                       -2      1     new",
    ]
    # A table saved earlier gives the change since then, in whole rating points.
    saved.write_text(json.dumps({"ruleset": "nim", "ratings": {"bot:robot": 5, "ann": -2}}))
    since = await teoti(
        capsys, "tournament", "leaderboard", "--ruleset", "nim", "--since", str(saved),
        "--target", target,
    )  # fmt: skip
    assert [line[-6:] for line in since.out.splitlines()[2:]] == ["    -2", "     0"]

    listed = await teoti(capsys, "tournament", "list", "--target", target)
    assert listed.code == 0, listed.err
    row = next(line for line in listed.out.splitlines() if line.startswith(tid))
    assert row.split()[1:] == ["Known", "cup", "nim", "finished", "2", "1"]


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_watch_export_and_verify(
    capsys: pytest.CaptureFixture[str], target: str, tmp_path: Path
) -> None:
    tid = await _ann_and_robot(capsys, target)
    # Watching a running tournament: the command ends when it finishes.
    watching = asyncio.create_task(teoti(capsys, "tournament", "watch", tid, "--target", target))
    await asyncio.sleep(0.2)
    await _stub_call(
        target,
        "WithdrawPlayer",
        pb.WithdrawPlayerRequest(tournament_id=tid, player="ann", player_token=ANN),
    )
    async with asyncio.timeout(WAIT_S):
        watched = await watching
    assert watched.code == 0, watched.err
    out = watched.out
    assert "ann registered (human)" in out and "robot registered (bot)" in out
    assert "started with 2 players" in out
    assert "round 1 table 1 finished: 1st robot, 2nd ann (forfeited: ann)" in out
    assert "Final standings" in out
    assert "   1  bot:robot" in out and "new" in out  # rated: the ratings it made
    assert out.splitlines()[-1].startswith("the tournament has finished (version ")
    versions = [int(line[1:6]) for line in out.splitlines() if line.startswith("v")]
    assert versions == sorted(versions) and versions[0] == 1

    # Watched again from the start: the standings of each round as they were then (the
    # log folded), and no ratings: they are known only as they are now.
    again = await teoti(capsys, "tournament", "watch", tid, "--target", target)
    assert again.code == 0 and "Leaderboard" not in again.out, again.out
    assert [line for line in again.out.splitlines() if line.startswith("v")] == [
        line for line in out.splitlines() if line.startswith("v")
    ]

    # Resumed after a version: only the events after it.
    resumed = await teoti(
        capsys, "tournament", "watch", tid, "--after-version", str(versions[-2]),
        "--target", target,
    )  # fmt: skip
    assert resumed.code == 0, resumed.err
    assert [int(line[1:6]) for line in resumed.out.splitlines() if line.startswith("v")] == [
        versions[-1]
    ]

    past = await teoti(
        capsys, "tournament", "watch", tid, "--after-version", "99", "--target", target
    )
    _one_line(past, 2, "--after-version 99 is past the tournament's log")

    # Export, then verify offline (no server asked) and on the server.
    path = tmp_path / "cup.jsonl"
    exported = await teoti(capsys, "tournament", "export", tid, "-o", str(path), "--target", target)
    assert exported.code == 0, exported.err
    assert exported.out.strip() == (
        f"exported {versions[-1]} events of tournament {tid} (finished) to {path}"
    )
    offline = await teoti(capsys, "tournament", "verify", str(path), "--target", NOWHERE)
    assert offline.code == 0, (offline.out, offline.err)
    assert "chain: ok" in offline.out and "pairings: 1 rounds re-derived" in offline.out
    assert "standings: the exported standings and rounds are the log's own" in offline.out
    assert offline.out.splitlines()[-1].startswith("verify: OK (chain head ")
    online = await teoti(capsys, "tournament", "verify", tid, "--target", target)
    assert online.code == 0, online.err
    assert "server VerifyTournament: chain ok" in online.out

    # A forger swaps the table's places and re-hashes the whole chain: the pairings and
    # the chain still check, the summary the file carries no longer matches its log.
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    events = [event_from_json(line) for line in lines[1:]]
    previous = "0" * 64
    forged = []
    for event in events:
        if event.type == "TableFinished":
            payload = dict(event.payload) | {"places": list(reversed(event.payload["places"]))}
            event = event_from_json(event_to_json(event) | {"payload": payload})
        previous = hash_of(previous, event)
        forged.append(event_to_json(event) | {"hash": previous})
    header = lines[0] | {"head": {"version": len(forged), "hash": previous}}
    bad = tmp_path / "forged.jsonl"
    bad.write_text("".join(json.dumps(line) + "\n" for line in [header, *forged]))
    refused = await teoti(capsys, "tournament", "verify", str(bad), "--target", NOWHERE)
    assert refused.code == 1, refused.out
    assert "verify: FAILED (the exported summary" in refused.out.splitlines()[-1]

    # An edit without re-hashing breaks the chain at that event (v2: ann registered).
    assert lines[2]["payload"] == {"player": "ann", "kind": "human"}
    lines[2]["payload"] = {"player": "ann", "kind": "bot"}
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(line) + "\n" for line in lines))
    broken = await teoti(capsys, "tournament", "verify", str(edited), "--target", NOWHERE)
    assert broken.code == 1 and "chain: BROKEN" in broken.out, broken.out
    assert "PROBLEM: chain broken at version 2" in broken.out

    not_a_log = await teoti(
        capsys, "tournament", "verify", str(tmp_path / "board.jsonl"), "--target", NOWHERE
    )
    _one_line(not_a_log, 2, "no such file")
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"format": "teoti-public-log"}\n')
    _one_line(
        await teoti(capsys, "tournament", "verify", str(junk), "--target", NOWHERE),
        2,
        "not a teoti export file",
        "teoti-tournament-log",
    )


@pytest.mark.parametrize("command", ["standings", "watch", "export", "verify"])
async def test_an_unknown_tournament_is_one_line_and_exit_2(
    command: str, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    ran = await teoti(capsys, "tournament", command, "nosuchtournament", "--target", target)
    _one_line(ran, 2, "teoti tournament: error: NOT_FOUND")
    assert ran.out == ""


async def test_elimination_standings_follow_elimination(
    capsys: pytest.CaptureFixture[str], target: str
) -> None:
    """Six bots, two-seat tables, the winner of each goes on: round 1 three tables,
    round 2 one table and a bye, round 3 the final. The standings are printed in
    elimination's order (services/tournament/elimination_standings.py), each row's
    result matching the rounds the log records."""
    made = await teoti(
        capsys,
        *("tournament", "create", "Knockout", "--ruleset", "nim", "--format", "elimination"),
        *("--rounds", "3", "--organiser-token", ORGANISER, "--target", target),
    )
    assert made.code == 0, made.err
    tid = made.out.strip().splitlines()[-1]
    for n in range(6):
        joined = await teoti(
            capsys, "tournament", "join", tid, f"b{n}", "--bot", "--organiser-token", ORGANISER,
            "--target", target,
        )  # fmt: skip
        assert joined.code == 0, joined.err
    started = await teoti(
        capsys, "tournament", "start", tid, "--organiser-token", ORGANISER, "--target", target
    )
    assert started.code == 0, started.err
    await _finished(target, tid)
    got = await _stub_call(target, "GetTournament", pb.GetTournamentRequest(tournament_id=tid))
    rounds = got.tournament.rounds
    assert [len(r.tables) for r in rounds] == [3, 1, 1] and len(rounds[1].byes) == 1

    shown = await teoti(capsys, "tournament", "standings", tid, "--target", target)
    assert shown.code == 0, shown.err
    lines = shown.out.splitlines()
    header = lines.index("rank  player              round  result")
    rows = [line.split(None, 3) for line in lines[header + 1 :]]
    assert [row[1] for row in rows] == [row.player for row in got.tournament.standings]

    def place(round_number: int, player: str) -> int:
        [table] = [t for t in rounds[round_number - 1].tables if player in t.players]
        return list(table.places)[list(table.players).index(player)]

    final = rounds[2].tables[0]
    assert [row[3] for row in rows[:2]] == ["final table, 1st", "final table, 2nd"]
    assert [row[1] for row in rows[:2]] == sorted(final.players, key=lambda p: place(3, p))
    assert rows[2][2:] == ["2", "out in round 2 (2nd at the table)"]
    assert rows[2][1] in rounds[1].tables[0].players
    assert [row[2:] for row in rows[3:]] == [["1", "out in round 1 (2nd at the table)"]] * 3
    assert {row[0] for row in rows[3:]} == {"4"}  # three 2nds of round 1 share 4th
    assert {row[1] for row in rows[3:]} == {
        p for t in rounds[0].tables for p in t.players if place(1, p) == 2
    }


def _forge(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A forger's tournament export: the table's places swapped, every hash recomputed,
    and the summary made to match (what the log now folds to)."""
    previous = "0" * 64
    forged = []
    for line in lines[1:]:
        event = event_from_json(line)
        if event.type == "TableFinished":
            payload = dict(event.payload) | {"places": list(reversed(event.payload["places"]))}
            event = event_from_json(event_to_json(event) | {"payload": payload})
        previous = hash_of(previous, event)
        forged.append(event_to_json(event) | {"hash": previous})
    summary = export_json(fold([event_from_json(line) for line in forged]))
    head = {"version": len(forged), "hash": previous}
    return [lines[0] | {"head": head, "summary": summary}, *forged]


async def test_export_with_games_catches_a_rewritten_result(
    capsys: pytest.CaptureFixture[str], target: str, tmp_path: Path
) -> None:
    """A tournament log is not signed, so a forger who rewrites a result and the summary
    with it passes the tournament's own checks; the games' signed logs exported beside
    it (--games) do not agree, and verify says which table."""
    tid = await _ann_and_robot(capsys, target)
    await _stub_call(
        target,
        "WithdrawPlayer",
        pb.WithdrawPlayerRequest(tournament_id=tid, player="ann", player_token=ANN),
    )
    await _finished(target, tid)
    path = tmp_path / "cup.jsonl"
    exported = await teoti(
        capsys, "tournament", "export", tid, "-o", str(path), "--games", str(tmp_path / "games"),
        "--target", target,
    )  # fmt: skip
    assert exported.code == 0, exported.err
    assert exported.out.splitlines()[1] == f"exported the logs of its 1 games to {tmp_path}/games"
    keys = await published_keys_file(target, tmp_path / "keys.json")
    nim = ("--extra-ruleset", "nim=tests.nim:NimRuleset", "--target", NOWHERE)

    good = await teoti(capsys, "tournament", "verify", str(path), "--public-key", keys, *nim)
    assert good.code == 0, good.out
    assert "games: 1 finished tables' places re-derived from their games' logs" in good.out
    assert "games' signatures: all 1 verify with the given keys" in good.out

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in _forge(lines)))
    without_games = tmp_path / "forged-alone.jsonl"
    alone = _forge(lines)
    alone[0] = alone[0] | {"games": {}}
    without_games.write_text("".join(json.dumps(line) + "\n" for line in alone))
    fooled = await teoti(capsys, "tournament", "verify", str(without_games), *nim)
    assert fooled.code == 0 and "games: not in the export" in fooled.out  # the limit
    # A crafted file may not make verify read outside its folder.
    game_id = next(iter(lines[0]["games"]))
    prying = tmp_path / "prying.jsonl"
    pry = [lines[0] | {"games": {game_id: "../../../etc/passwd"}}, *lines[1:]]
    prying.write_text("".join(json.dumps(line) + "\n" for line in pry))
    pried = await teoti(capsys, "tournament", "verify", str(prying), *nim)
    assert pried.code == 1 and "is outside the export's folder" in pried.out, pried.out

    caught = await teoti(capsys, "tournament", "verify", str(forged), *nim)
    assert caught.code == 1, caught.out
    found = re.search(
        r"PROBLEM: round 1 table 1: places (\[.*?\]) recorded, game \w+'s log "
        r"gives (\[.*?\])",
        caught.out,
    )
    assert found is not None, caught.out
    assert json.loads(found.group(1)) == json.loads(found.group(2))[::-1]  # the swap


async def _teoti_process(*argv: str) -> asyncio.subprocess.Process:
    """``python -m services.cli ARGV``: a real ``teoti`` process, stdout and stderr apart."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "services.cli", *argv, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def test_a_real_teoti_process_refuses_in_one_line_and_stops_watching_on_ctrl_c(
    capsys: pytest.CaptureFixture[str], target: str
) -> None:
    refused = await _teoti_process("tournament", "standings", "nosuch", "--target", target)
    out, err = await asyncio.wait_for(refused.communicate(), WAIT_S)
    assert (refused.returncode, out) == (2, b""), err
    assert err.decode().splitlines() == [
        "teoti tournament: error: NOT_FOUND: tournament_not_found: unknown tournament 'nosuch'"
    ]

    # A tournament that stays running (ann never moves; her clock has an hour).
    tid = await _ann_and_robot(capsys, target)
    watching = await _teoti_process("tournament", "watch", tid, "--target", target)
    assert watching.stdout is not None and watching.stderr is not None
    async with asyncio.timeout(WAIT_S):
        seen = []
        while not seen or not seen[-1].startswith("v5 "):
            seen.append((await watching.stdout.readline()).decode())
        watching.send_signal(signal.SIGINT)
        rest, err = await watching.communicate()
    assert watching.returncode == 130, (seen, rest, err)
    assert err.decode().strip().splitlines()[-1] == (
        f"stopped after version 5: resume with teoti tournament watch {tid} --after-version 5"
    )
    # Running: the chain and standings check, the pairings wait for the seed.
    running = await teoti(capsys, "tournament", "verify", tid, "--target", target)
    assert running.code == 0, running.out
    assert "pairings: not checkable yet (the seed stays secret" in running.out
    assert "server VerifyTournament: chain ok" in running.out
