"""Archaeology's board compared with committed screenshots (issue 33): a fresh game with
a fixed seed (``seeded_page``), drawn for the seat to act at 1280x800 and at 390x844,
must match ``snapshots/start-<width>x<height>.png`` within tests.browser.snapshots'
tolerance. After a deliberate change to the board: ``TEOTI_UPDATE_SNAPSHOTS=1
.venv/bin/pytest -m slow`` this file, then look at the new PNGs and commit them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# The browser fixtures live with the generic browser tests; a game's tests sit outside
# tests/ (a game is one folder), so they are imported, not inherited from a conftest.
from tests.browser.conftest import browser, seeded_page, seeded_served  # noqa: F401
from tests.browser.snapshots import check_snapshot, fresh_game_to_act
from tests.browser.test_browser_layout import DESKTOP, PHONE

expect: Any = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.slow  # a browser and a stack of its own: 5-15 s each

SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_fresh_game_s_board_matches_its_snapshot(
    seeded_page: Any,  # noqa: F811
    viewport: dict[str, int],
) -> None:
    page = fresh_game_to_act(seeded_page, "archaeology", viewport)
    board = page.locator("#arch-board")
    expect(board).to_be_visible()
    # Nothing in the board varies by run (no game id, clock or time is drawn in it).
    check_snapshot(board, SNAPSHOTS / f"start-{viewport['width']}x{viewport['height']}.png")
