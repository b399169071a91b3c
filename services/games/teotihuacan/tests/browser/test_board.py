"""Teotihuacan's board in a real chromium against a real ``teoti serve`` (issue 33): a
game against a bot played by clicking the board (a worker, then a highlighted board; the
choice panel; a pyramid slot, the tile rotated, then placed), never the page's list of
moves, through a construction step; the drawing follows the seat's view (goods, workers,
placed pyramid tiles with their rotation); every control has a name and the page is no
wider than the window. Screenshots of the board at 1280x800 and 390x844 go to
``$TEOTI_SHOTS`` when it is set (for people to look at; nothing is compared)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

# The browser fixtures live with the generic browser tests; a game's tests sit outside
# tests/ (a game is one folder), so they are imported, not inherited from a conftest.
from tests.browser.conftest import browser, new_page, served  # noqa: F401
from tests.browser.test_browser_layout import DESKTOP, PHONE, page_width, small_controls
from tests.browser.test_browser_play import create, to_act, version

expect: Any = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.slow  # a game played up to a construction step: 10-40 s each

CONSTRUCTION = 8
STONE_QUARRY = 3
MOVE_LIMIT = 120
"""Turns of ours after which the test gives up reaching a construction step."""

UNNAMED_CONTROLS = """() => [...document.querySelectorAll(
    'button, [role=button], select, input, textarea, summary, a[href]')]
  .filter(e => e.offsetParent !== null || e.closest('svg'))
  .filter(e => !(e.getAttribute('aria-label') || e.textContent || '').trim()
    && !document.querySelector(`label[for="${e.id}"]`))
  .map(e => e.outerHTML.slice(0, 120))"""
"""Visible controls with no accessible name (no aria-label, no text, no label)."""


def seat_view(page: Any) -> dict[str, Any]:
    """The seat's view as the page holds it (the JSON block below the board)."""
    view: dict[str, Any] = json.loads(page.locator("#view").text_content())
    return view


def listed_moves(page: Any) -> list[dict[str, Any]]:
    """The seat's legal moves as the page's list shows them (read only, never clicked),
    each with its JSON text as sent (under ``"_json"``)."""
    texts = page.locator("#legal-actions button").evaluate_all(
        "els => els.map(e => e.dataset.action)"
    )
    return [{**json.loads(text), "_json": text} for text in texts]


def shoot(page: Any, name: str) -> None:
    """A screenshot of the whole page and of the board, when ``$TEOTI_SHOTS`` names a folder."""
    folder = os.environ.get("TEOTI_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
        page.locator("#teo-board").screenshot(path=str(Path(folder) / f"{name}-board.png"))
        page.locator("#teo-board .teo-pyramid").screenshot(
            path=str(Path(folder) / f"{name}-pyramid.png")
        )


def wait_for_next_version(page: Any, before: int) -> None:
    expect(page.locator("#game-version")).not_to_have_text(str(before))
    expect(page.locator("#refusal")).to_be_hidden()


def check_drawing(page: Any, seat: int) -> None:
    """The player boards and the pyramid drawn equal the seat's view."""
    view = seat_view(page)
    for index, player in enumerate(view["players"]):
        board = page.locator(f'#teo-board .teo-player[data-seat="{index}"]')
        for good in ("cocoa", "wood", "stone", "gold"):
            expect(board.locator(f'[data-good="{good}"]')).to_have_attribute(
                "data-count", str(player[good])
            )
    drawn = page.locator("#teo-board .teo-pyramid-svg .teo-tile:not(.teo-preview)").count()
    assert drawn == len(view["pyramid_tiles"])
    mine = view["players"][seat]["workers"]
    on_boards = page.locator("#teo-board .teo-boards [data-worker]").count()
    assert on_boards <= sum(1 for w in mine if w["board"] and not w["locked"])


def check_every_move_is_on_the_board(page: Any, moves: list[dict[str, Any]]) -> None:
    """Each legal move can be made on the board: a worker to click for a move, a slot of
    the pyramid for a tile, a button with the move's JSON for the others."""
    on_board = set(
        page.locator("#teo-board button[data-action]").evaluate_all(
            "els => els.map(e => e.dataset.action)"
        )
    )
    workers = {
        int(w)
        for w in page.locator("#teo-board button[data-worker]").evaluate_all(
            "els => els.map(e => e.dataset.worker)"
        )
    }
    # Workers are numbered from 1 for the player (data-worker keeps the action's index).
    labels = page.locator("#teo-board button[data-worker]").evaluate_all(
        "els => els.map(e => [e.dataset.worker, e.getAttribute('aria-label')])"
    )
    for index, label in labels:
        assert label.startswith(f"Your worker {int(index) + 1} on "), (index, label)
    for move in moves:
        if move["type"] in ("move", "teleport"):
            assert move["worker"] in workers, move
        elif move["type"] == "place_pyramid_tile":
            expect(page.locator("#teo-board [data-slot]").first).to_be_attached()
        else:
            assert move["_json"] in on_board, move


def click_board_move(page: Any, view: dict[str, Any], seat: int) -> None:
    """Move a worker on the board: towards Construction when it is in reach and stone is
    in hand, else towards the Stone Quarry, else the first worker's first destination."""
    stone = view["players"][seat]["stone"]
    goal = CONSTRUCTION if stone >= 2 else STONE_QUARRY
    workers = page.locator("#teo-board button[data-worker]")
    for index in range(workers.count()):
        workers.nth(index).click()
        target = page.locator(f'#teo-board .teo-boardcard[data-board="{goal}"] button[data-action]')
        if target.count():
            before = version(page)
            target.first.click()
            wait_for_next_version(page, before)
            return
        workers.nth(index).click()  # unchosen again
    workers.first.click()
    before = version(page)
    page.locator("#teo-board .teo-boardcard.teo-legal button[data-action]").first.click()
    wait_for_next_version(page, before)


def construct(page: Any, width: int) -> tuple[int, int, int, int, int]:
    """A construction step on the board: a slot, the tile rotated, placed. Returns the tile
    placed as the view lists it (level, row, column, tile, rotation)."""
    page.locator("#teo-board [data-slot]").first.click()
    expect(page.locator("#teo-place")).to_be_visible()
    rotate = page.locator("#teo-rotate")
    if rotate.count():
        rotate.click()
    shoot(page, f"construction-{width}")
    place = page.locator("#teo-place-tile")
    action = json.loads(place.get_attribute("data-action"))
    before = version(page)
    place.click()
    wait_for_next_version(page, before)
    placed = (action["level"], action["row"], action["col"], action["tile"], action["rotation"])
    assert list(placed) in seat_view(page)["pyramid_tiles"]
    return placed


def click_choice(page: Any, moves: list[dict[str, Any]]) -> None:
    """Play a move placed on the board by its own button: the board's main action first
    (so a worker at Construction builds), then temples, technologies, other choices."""
    preferred = [m for m in moves if m["type"] == "main_action"]
    others = [m for m in moves if m["type"] not in ("move", "teleport", "unlock")]
    unlock = [m for m in moves if m["type"] == "unlock"]
    chosen = (preferred or others or unlock)[0]
    text = chosen["_json"]
    before = version(page)
    page.locator(f"#teo-board button[data-action='{text}']").first.click()
    wait_for_next_version(page, before)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_game_against_a_bot_reaches_a_construction_step_played_on_the_board(
    new_page: Any,  # noqa: F811
    viewport: dict[str, int],
) -> None:
    ann = new_page(viewport=viewport)
    ann.fill("#create-options", json.dumps({"first_game": True}))
    create(ann, "ann", "teotihuacan", 2, others="bot")
    expect(ann.locator("#teo-board")).to_be_visible()
    width = viewport["width"]
    seat = int(ann.locator("#my-seat").inner_text())
    placed: tuple[int, int, int, int, int] | None = None
    turns = 0
    while placed is None and to_act([ann], timeout_s=60) is ann:
        moves = listed_moves(ann)
        view = seat_view(ann)
        check_drawing(ann, seat)
        check_every_move_is_on_the_board(ann, moves)
        assert page_width(ann) <= width, "the board is wider than the window"
        if turns == 0:
            # The list names where each worker goes (describe_action_at), as the board does.
            first = ann.locator("#legal-actions button[data-action*='\"move\"']").first
            expect(first).to_contain_text(" from ")
            assert small_controls(ann, "#teo-board") == []
            assert ann.evaluate(UNNAMED_CONTROLS) == []
            shoot(ann, f"start-{width}")
        types = {m["type"] for m in moves}
        if "place_pyramid_tile" in types:
            assert small_controls(ann, "#teo-board") == []
            placed = construct(ann, width)
        elif types & {"move", "teleport"} and not types & {"main_action"}:
            click_board_move(ann, view, seat)
        else:
            click_choice(ann, moves)
        turns += 1
        assert turns < MOVE_LIMIT, "no construction step was reached"
    assert placed is not None
    # The tile is drawn where the view has it, and the page still fits the window.
    check_drawing(ann, seat)
    assert page_width(ann) <= width
    assert ann.evaluate(UNNAMED_CONTROLS) == []
    shoot(ann, f"after-construction-{width}")
    # The log reads as sentences; the rules' bookkeeping stays in it, out of sight.
    expect(ann.locator("#events li", has_text="moved a worker from").first).to_be_visible()
    expect(ann.locator('#events li[data-type="PyramidTilePlaced"]').first).to_contain_text(
        "placed a pyramid tile on level"
    )
    quiet = ann.locator('#events li[data-type="AgendaUpdated"]')
    assert quiet.count() > 0
    expect(quiet.first).to_be_hidden()


def test_a_solo_game_draws_teotibot_for_a_spectator_too(new_page: Any) -> None:  # noqa: F811
    ann = new_page(viewport=PHONE)
    ann.fill("#create-options", json.dumps({"solo": True}))
    game_id = create(ann, "ann", "teotihuacan", 2, others="bot")
    expect(ann.locator("#teo-board .teo-bot")).to_be_visible()
    watcher = new_page(viewport=PHONE, path=f"/#game={game_id}")
    expect(watcher.locator("#teo-board .teo-bot")).to_be_visible()
    expect(watcher.locator('#teo-board .teo-player[data-seat="1"]')).to_contain_text("Teotibot")
    expect(watcher.locator("#teo-board button[data-action]")).to_have_count(0)
    expect(watcher.locator("#teo-board button[data-worker]")).to_have_count(0)
    assert page_width(watcher) <= PHONE["width"]
    shoot(watcher, "solo-spectator-390")
