"""Names that could drive a terminal (issue 18, finding 6): the server refuses new ones
(``name_invalid``), and every printer escapes those already in old logs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from services.cli.tournament import print_round, print_standings
from services.client import GameView, SeatInfo
from services.engine.domain.game_seats import MAX_NAME_LENGTH, InvalidName, check_seat_name
from services.engine.domain.ruleset import InvalidOptions
from services.safe_text import printable
from services.tournament.config import MAX_TOURNAMENT_NAME, check_tournament_name
from services.tui.backend import Frame
from services.tui.words import seat_label

HOSTILE = ["\x1b[2J", "a\x00b", "\x9b31m", "x\ny", "\x1b]0;title\x07", "a\u2028b"]


@pytest.mark.parametrize("name", HOSTILE)
def test_seat_names_with_controls_are_refused(name: str) -> None:
    with pytest.raises(InvalidName) as refused:
        check_seat_name(name)
    assert refused.value.rule == "name_invalid"


def test_seat_name_length_and_fine_names() -> None:
    for fine in ("", "ann", "Zoë Ångström", "名前", "x" * MAX_NAME_LENGTH):
        assert check_seat_name(fine) == fine
    with pytest.raises(InvalidName):
        check_seat_name("x" * (MAX_NAME_LENGTH + 1))


@pytest.mark.parametrize("name", [*HOSTILE, "t" * (MAX_TOURNAMENT_NAME + 1)])
def test_tournament_names_with_controls_or_too_long_are_refused(name: str) -> None:
    with pytest.raises(InvalidOptions) as refused:
        check_tournament_name(name)
    assert refused.value.rule == "name_invalid"


def test_blank_tournament_name_keeps_its_reason() -> None:
    with pytest.raises(InvalidOptions) as refused:
        check_tournament_name("  ")
    assert refused.value.rule == "invalid_config"
    check_tournament_name("Spring cup — 2026")


def test_printable_escapes_every_control_and_keeps_the_rest() -> None:
    assert printable("Zoë 名前") == "Zoë 名前"
    for name in HOSTILE:
        shown = printable(name)
        assert shown.isprintable() and "\x1b" not in shown and "\x00" not in shown
    assert printable("a\x1b[31mb\x00") == "a\\x1b[31mb\\x00"


def test_terminal_printers_escape_names_from_old_logs(capsys: pytest.CaptureFixture[str]) -> None:
    evil = "\x1b[2J\x1b[31mX\x00"
    row = SimpleNamespace(
        rank=1, player=evil, points=1.0, tiebreaks=[0.0], rounds_played=1, withdrawn=False
    )
    tournament = SimpleNamespace(
        config=SimpleNamespace(format=1), tiebreaks=["buchholz"], standings=[row]
    )
    print_standings(tournament)
    table = SimpleNamespace(table=1, players=[evil, "bob"], game_id="g", places=[])
    print_round(SimpleNamespace(round=1, tables=[table], byes=[evil]))
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x00" not in out
    assert out.count("\\x1b[2J") == 3
    view = GameView(
        "g", "nim", 1, {}, (SeatInfo("bot", evil), SeatInfo("bot", "")), (0,), False,
        (), (), "", "", ""
    )  # fmt: skip
    names = Frame(view).names
    assert all(name.isprintable() for name in names)
    assert seat_label([evil], 0).isprintable() and seat_label(names, 1) == "seat 1"
