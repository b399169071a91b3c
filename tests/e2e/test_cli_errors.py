"""Every ``teoti`` subcommand given bad input: one line on stderr, exit 2, no traceback;
a server that can't be reached: one line, exit 1 (issue 13, item 6 and the sweep)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.cli import commands, main
from services.cli.commands import build_parser
from services.embedded_redis import free_port
from services.engine.domain.ruleset import info_of
from services.engine.domain.rulesets import default_registry
from services.tui import launch


def _seat_refusals() -> list[list[str]]:
    """For every registered game: a demo of one seat more than it seats, and a solo demo
    when it has no solo mode (the seat counts are the game's RulesetInfo)."""
    registry = default_registry()
    refused = []
    for name in registry.names():
        info = info_of(registry.get(name))
        refused.append(["demo", "--ruleset", name, "--players", str(info.max_seats + 1)])
        if info.solo is None:
            refused.append(["demo", "--ruleset", name, "--solo"])
    return refused


BAD_INPUT: list[list[str]] = [
    ["nosuchcommand"],
    ["--log-level", "LOUD", "demo"],
    ["serve", "--port", "x"],
    ["serve", "--port", "99999"],  # issue 30 item 17: was "unexpected OverflowError", exit 1
    ["serve", "--web-port", "-1"],
    ["engine", "--redis-url", "redis://127.0.0.1:1/0", "--link-port", "65536"],
    ["bot", "--redis-url", "redis://127.0.0.1:1/0", "--health-port", "70000"],
    ["serve", "--shards", "many"],
    ["serve", "--extra-ruleset", "no-equals-sign"],
    ["engine"],  # no Redis given
    ["engine", "--port", "-"],
    ["engine", "--link-port", "x"],
    ["gateway"],
    ["gateway", "--engine"],
    [
        "gateway",
        "--redis-url",
        "redis://127.0.0.1:1/0",
        "--engine",
        "engines:port",
    ],
    ["bot"],
    ["bot", "--concurrency", "x"],
    [
        "bot",
        "--redis-url",
        "redis://127.0.0.1:1/0",
        "--engine",
        "no-port-given",
    ],
    ["demo", "--options", "[1]"],
    ["demo", "--options", "not json"],
    ["demo", "--options", '"solo"'],
    ["demo", "--players", "7"],
    *_seat_refusals(),
    ["demo", "--timeout", "soon"],
    ["demo", "--extra-ruleset", "bad"],
    ["replay"],
    ["replay", "g", "--verify", "--step", "--nosuch"],
    ["play", "--options", "[1]"],
    ["play", "--players", "5"],
    # issue 30 item 17: bot_takeover needs an increment or a move deadline (its help says so)
    ["play", "--timeout-policy", "bot_takeover"],
    ["play", "--base-ms", "60000", "--timeout-policy", "bot_takeover"],
    ["play", "--join", "g", "--players", "3"],
    ["play", "--resume", "nosuchgame"],
    ["watch", "--pace", "x"],
    ["watch", "--players", "1"],
    ["redis-acl", "--redis-version", "x"],
    ["redis-acl", "--redis-version", "5.0"],
    ["export"],
    ["export", "g", "--nosuch"],
    ["archive", "--older-than-days", "x"],
    ["director"],  # no Redis given
    ["tournament"],
    ["tournament", "demo", "--players", "x"],
    ["tournament", "demo", "--format", "arena"],
    ["tournament", "join"],
    ["tournament", "withdraw", "t"],
    ["tournament", "withdraw", "t", "ann"],  # no token of either kind
    ["tournament", "watch"],
    ["tournament", "watch", "t", "--after-version", "x"],
    ["tournament", "list", "--limit", "0"],
    ["tournament", "leaderboard", "--limit", "x"],
    ["tournament", "leaderboard", "--since", "no-such-board.json"],
    ["tournament", "export"],
    ["tournament", "verify"],
    ["tournament", "verify", "no-such-export.jsonl"],
    ["ratings"],
    ["ratings", "leaderboard"],  # no --ruleset
    ["ratings", "leaderboard", "--ruleset", "nim", "--limit", "x"],
    ["ratings", "player", "--ruleset", "nim"],  # no player id
    ["ratings", "verify", "--ruleset", "nim"],  # no files
    ["ratings", "verify", "no-such-export.jsonl", "--ruleset", "nim"],
]


@pytest.fixture(autouse=True)
def _no_global_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """main() runs in this process: keep it from pointing the process-wide logging at
    this test's captured stderr (closed afterwards) or at a log file of its own."""
    monkeypatch.setattr(commands, "configure_logging", lambda level: None)
    monkeypatch.setattr(launch, "log_to_file", lambda path, level="INFO": None)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own exit
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_subcommand_is_covered() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None
    assert set(commands) <= {argv[0] for argv in BAD_INPUT}


@pytest.mark.parametrize("argv", BAD_INPUT, ids=" ".join)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    for name in ("REDIS_URL", "REDIS_CLUSTER_NODES", "TEOTI_PLAYER_TOKEN", "TEOTI_ORGANISER_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # play writes its log and seats file under .teoti/
    code, out, err = _run(argv, capsys)
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and out == ""
    assert err.startswith("teoti"), err


def test_a_server_that_is_not_there_is_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    nobody = f"127.0.0.1:{free_port()}"
    code, _, err = _run(["replay", "somegame", "--target", nobody], capsys)
    assert code == 1 and "unavailable" in err and len(err.strip().splitlines()) == 1


def test_options_wants_an_object(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = _run(["demo", "--options", "[1]"], capsys)
    assert "wants a JSON object" in err and "got an array" in err


def test_a_port_out_of_range_names_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["serve", "--port", "99999"], capsys)
    assert code == 2 and "--port" in err and "0 to 65535" in err, err


def test_replay_of_a_file_that_is_not_text_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    picture = tmp_path / "file.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    code, out, err = _run(["replay", str(picture), "--verify"], capsys)
    assert code == 2 and out == "", (out, err)
    assert err.strip().splitlines() == [err.strip()], err
    assert "not a teoti export file" in err and "UTF-8" in err, err
    assert "unexpected" not in err and "UnicodeDecodeError" not in err, err


@pytest.mark.parametrize("path", ["/nonexistent.jsonl", "exports/game.jsonl", "game.jsonl"])
def test_replay_of_a_missing_file_says_no_such_file(
    path: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # A gateway that would answer GameNotFound must not even be asked.
    nobody = f"127.0.0.1:{free_port()}"
    code, out, err = _run(["replay", path, "--target", nobody], capsys)
    assert (code, out) == (2, ""), (out, err)
    assert err.strip() == f"teoti replay: error: no such file: {path}", err


def test_an_unknown_option_points_to_the_subcommands_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = _run(["archive", "--days", "3"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "unrecognized arguments: --days" in err, err
    assert "see teoti archive --help" in err and "see teoti --help" not in err, err
    assert "--older-than-days" in err  # the option that was probably meant


def test_tournament_demo_refuses_too_few_players_before_creating_anything(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from services import app, embedded_redis

    monkeypatch.delenv("REDIS_URL", raising=False)
    started: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        started.append("started")
        raise AssertionError("a server was started for a tournament that cannot run")

    monkeypatch.setattr(embedded_redis.EmbeddedRedis, "start", refuse)
    monkeypatch.setattr(app, "all_in_one", refuse)
    code, out, err = _run(["tournament", "demo", "--players", "1"], capsys)
    assert (code, out, started) == (2, "", []), (out, err)
    assert len(err.strip().splitlines()) == 1 and "--players" in err, err
    assert "2-seat table" in err, err


def test_bot_takeover_says_what_it_needs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REDIS_URL", raising=False)
    code, _, err = _run(["play", "--base-ms", "60000", "--timeout-policy", "bot_takeover"], capsys)
    assert code == 2 and "--increment-ms" in err and "--move-deadline-ms" in err, err
    assert not (tmp_path / ".teoti").exists()  # refused before any server or file
