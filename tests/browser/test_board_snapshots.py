"""Each game's board compared with committed screenshots (issue 33): a fresh game with a
fixed seed (``seeded_page``), drawn for the seat to act at 1280x800 and at 390x844, must
match ``<game folder>/tests/browser/snapshots/start-<width>x<height>.png`` within
tests.browser.snapshots' tolerance. A game takes part by naming its board's selector
(``GameSamples.board_selector``). After a deliberate change to a board:
``TEOTI_UPDATE_SNAPSHOTS=1 .venv/bin/pytest -m slow`` this file, then look at the new
PNGs and commit them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.snapshots import check_snapshot, fresh_game_to_act
from tests.browser.test_browser_layout import DESKTOP, PHONE
from tests.game_samples import game_dir, game_names, samples_of

expect: Any = pytest.importorskip("playwright.sync_api").expect

BOARDS = [(name, samples_of(name).board_selector) for name in game_names()]


@pytest.mark.slow  # a browser and a stack of its own: 5-15 s each
@pytest.mark.parametrize(("game", "selector"), [b for b in BOARDS if b[1]], ids=lambda v: v)
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_fresh_game_s_board_matches_its_snapshot(
    seeded_page: Any, viewport: dict[str, int], game: str, selector: str
) -> None:
    page = fresh_game_to_act(seeded_page, game, viewport)
    board = page.locator(selector)
    expect(board).to_be_visible()
    # Nothing in the board varies by run (no game id, clock or time is drawn in it).
    snapshots = game_dir(game) / "tests" / "browser" / "snapshots"
    check_snapshot(board, snapshots / f"start-{viewport['width']}x{viewport['height']}.png")


def test_every_shipped_game_has_its_board_compared() -> None:
    """A game with a web board and snapshots names its selector (else its screenshots
    would silently go unchecked)."""
    for name, selector in BOARDS:
        has_snapshots = any((game_dir(name) / "tests" / "browser" / "snapshots").glob("*.png"))
        assert bool(selector) == has_snapshots, name
