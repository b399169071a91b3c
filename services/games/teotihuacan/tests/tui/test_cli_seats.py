"""``teoti play`` refuses a seat count Teotihuacan (the default ruleset) does not have,
naming the game (tests/tui/test_any_ruleset.py: any ruleset)."""

from __future__ import annotations

import pytest

from services import cli


@pytest.mark.usefixtures("quiet_cli")
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["play", "--players", "5"], "--players: Teotihuacan: City of Gods seats 2 to 4"),
    ],
)
def test_the_cli_refuses_a_seat_count_the_game_does_not_have(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"teoti {argv[0]}: error: {expected}"), err
    assert len(err.strip().splitlines()) == 1
