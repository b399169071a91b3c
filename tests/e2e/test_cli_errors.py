"""Every ``teoti`` subcommand given bad input: one line on stderr, exit 2, no traceback;
a server that can't be reached: one line, exit 1 (issue 13, item 6 and the sweep)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services import cli
from services.cli import build_parser, main
from services.embedded_redis import free_port
from services.tui import launch

BAD_INPUT: list[list[str]] = [
    ["nosuchcommand"],
    ["--log-level", "LOUD", "demo"],
    ["serve", "--port", "x"],
    ["serve", "--shards", "many"],
    ["serve", "--extra-ruleset", "no-equals-sign"],
    ["engine"],  # no Redis given
    ["engine", "--port", "-"],
    ["engine", "--link-port", "x"],
    ["gateway"],
    ["gateway", "--engine"],
    ["gateway", "--engine-transport", "carrier-pigeon"],
    [
        "gateway",
        "--redis-url",
        "redis://127.0.0.1:1/0",
        "--engine-transport",
        "link",
        "--engine",
        "engines:port",
    ],
    ["bot"],
    ["bot", "--concurrency", "x"],
    [
        "bot",
        "--redis-url",
        "redis://127.0.0.1:1/0",
        "--engine-transport",
        "link",
        "--engine",
        "no-port-given",
    ],
    ["demo", "--options", "[1]"],
    ["demo", "--options", "not json"],
    ["demo", "--options", '"solo"'],
    ["demo", "--players", "7"],
    ["demo", "--ruleset", "archaeology", "--players", "6"],
    ["demo", "--ruleset", "archaeology", "--solo"],
    ["demo", "--timeout", "soon"],
    ["demo", "--extra-ruleset", "bad"],
    ["replay"],
    ["replay", "g", "--verify", "--step", "--nosuch"],
    ["play", "--options", "[1]"],
    ["play", "--players", "5"],
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
]


@pytest.fixture(autouse=True)
def _no_global_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """main() runs in this process: keep it from pointing the process-wide logging at
    this test's captured stderr (closed afterwards) or at a log file of its own."""
    monkeypatch.setattr(cli, "configure_logging", lambda level: None)
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
    for name in ("REDIS_URL", "REDIS_CLUSTER_NODES"):
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
