"""``teoti play`` of Archaeology in a real terminal: quitting speaks of its own points,
not another game's VP (the terminal play of any game: tests/e2e/test_play_terminal.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal
from tests.e2e.test_play_terminal import PLAY_FILES, finish, wait_for


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_quitting_another_game_speaks_of_its_own_points(tmp_path: Path) -> None:
    term = Terminal(
        ["play", "--ruleset", "archaeology", "--players", "2", "--name", "zoe", *PLAY_FILES],
        tmp_path,
    )
    try:
        await wait_for(term, "Your choices")
        term.press("q")
        assert await finish(term) == 0
    finally:
        term.kill()
    said = term.text
    assert re.search(r"zoe: \d+ points", said), said
    assert " VP" not in said
