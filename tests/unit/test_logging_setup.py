"""Logs are JSON lines on stderr, libraries' stdlib logging included; levels are checked."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from services import logging_setup
from services.cli.commands import build_parser


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    """Undo configure_logging: its handlers write to this test's captured stderr."""
    root = logging.getLogger()
    level = root.level
    uvicorn_level = logging.getLogger("uvicorn.error").level
    saved = structlog.get_config()
    yield
    logging.getLogger("uvicorn.error").setLevel(uvicorn_level)
    structlog.configure(**saved)
    if logging_setup._stdlib_handler is not None:  # it writes to this test's captured stderr
        root.removeHandler(logging_setup._stdlib_handler)
        logging_setup._stdlib_handler = None
    root.setLevel(level)


@pytest.mark.usefixtures("restore_root_logger")
def test_a_library_logging_through_stdlib_writes_json_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logging_setup.configure_logging("info")
    logging.getLogger("some.library").warning("hello %s", "world")
    logging.getLogger("some.library").debug("not at INFO")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["event"] == "hello world"
    assert record["level"] == "warning" and record["logger"] == "some.library"
    assert record["timestamp"].endswith("Z")


def test_an_unknown_level_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        logging_setup.configure_logging("verbose")
    parser = build_parser()
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--log-level", "BOGUS", "demo"])
    assert exit_.value.code == 2
    assert parser.parse_args(["demo", "--log-level", "debug"]).log_level == "DEBUG"


@pytest.mark.usefixtures("restore_root_logger")
@pytest.mark.parametrize(("level", "shown"), [("info", False), ("warning", False), ("debug", True)])
def test_uvicorn_s_line_per_websocket_is_shown_at_debug_only(
    capsys: pytest.CaptureFixture[str], level: str, shown: bool
) -> None:
    logging_setup.configure_logging(level)
    uvicorn = logging.getLogger("uvicorn.error")
    uvicorn.info('127.0.0.1:55798 - "WebSocket /v1/play" [accepted]')
    uvicorn.error("a real problem")
    events = [json.loads(line)["event"] for line in capsys.readouterr().err.splitlines()]
    assert ('127.0.0.1:55798 - "WebSocket /v1/play" [accepted]' in events) == shown
    assert "a real problem" in events
