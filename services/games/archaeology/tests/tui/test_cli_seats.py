"""``teoti play``/``watch`` refuse a seat count Archaeology does not have, and its solo
mode (it has none), naming the game (tests/tui/test_any_ruleset.py: any ruleset)."""

from __future__ import annotations

import pytest

from services import cli


@pytest.mark.usefixtures("quiet_cli")
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["play", "--ruleset", "archaeology", "--players", "6"],
            "--players: Archaeology: The New Expedition seats 2 to 5 players, not 6",
        ),
        (
            ["play", "--ruleset", "archaeology", "--solo"],
            "--solo: Archaeology: The New Expedition has no solo mode",
        ),
        (
            ["watch", "--ruleset", "archaeology", "--players", "1"],
            "--players: Archaeology: The New Expedition seats 2 to 5 players, not 1",
        ),
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
