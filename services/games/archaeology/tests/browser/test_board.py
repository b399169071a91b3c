"""Archaeology's board in a real chromium against a real ``teoti serve`` (issue 33): a
game against a bot played to its end by clicking the board (the dig site, hand cards,
seats, the tent and turn buttons), never the page's list of moves; the hand drawn equals
the seat's view; a trade built card by card shows what is offered and taken, with their
values, and is cancelled from the board. Screenshots of the board at 1280x800 and 390x844
go to ``$TEOTI_SHOTS`` when it is set (for people to look at; nothing is compared)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

# The browser fixtures live with the generic browser tests; a game's tests sit outside
# tests/ (a game is one folder), so they are imported, not inherited from a conftest.
from services.games.archaeology.rules.describe import KIND_NAMES, kind_count
from services.safe_text import count
from tests.browser.conftest import browser, new_page, served  # noqa: F401
from tests.browser.test_browser_layout import DESKTOP, PHONE, TOUCH_PX, page_width
from tests.browser.test_browser_play import create, to_act, version

expect: Any = pytest.importorskip("playwright.sync_api").expect

BOARD_MOVES = "#arch-board button[data-action]"
MOVE_LIMIT = 800
"""Moves of ours after which the test gives up (a whole 2-seat game is about 150)."""

# Which of the board's moves the test prefers, so the expedition ends: dig whenever owed,
# settle sandstorms and thieves, sell once the dig site is empty (the game ends when it
# and every hand are), otherwise end the turn.
PREFERENCE = ("dig", "tent", "lose", "rob", "mine", "take", "no_peek")


def seat_view(page: Any) -> dict[str, Any]:
    """The seat's view as the page holds it (the JSON block below the board)."""
    view: dict[str, Any] = json.loads(page.locator("#view").text_content())
    return view


def drawn_cards(page: Any, within: str) -> dict[str, int]:
    """``{kind: count}`` of the cards drawn under ``within`` (their data attributes)."""
    pairs = page.locator(f"{within} [data-kind]").evaluate_all(
        "els => els.map(e => [e.dataset.kind, Number(e.dataset.count)])"
    )
    return {kind: count for kind, count in pairs}


def board_moves(page: Any) -> list[dict[str, Any]]:
    """The legal moves placed on the board, in the order drawn."""
    texts = page.locator(BOARD_MOVES).evaluate_all("els => els.map(e => e.dataset.action)")
    return [json.loads(text) for text in texts]


def click_move(page: Any, index: int) -> None:
    """Click the board's ``index``-th move and wait until the page shows its result."""
    before = version(page)
    page.locator(BOARD_MOVES).nth(index).click()
    expect(page.locator("#game-version")).not_to_have_text(str(before))
    expect(page.locator("#refusal")).to_be_hidden()


def check_every_move_is_on_the_board(page: Any, moves: list[dict[str, Any]]) -> None:
    """Every legal move in the page's list is on the board, but a sphinx exploration,
    made by naming two kinds in its room's picker (which is then drawn)."""
    texts = page.locator("#legal-actions button").evaluate_all(
        "els => els.map(e => e.dataset.action)"
    )
    listed = [json.loads(text) for text in texts]
    named = [m for m in listed if m["type"] == "explore" and "named" in m]

    def canonical(actions: list[dict[str, Any]]) -> list[str]:
        return sorted(json.dumps(m, sort_keys=True) for m in actions if m not in named)

    assert canonical(listed) == canonical(moves)
    rooms = {m["room"] for m in named}
    pickers = page.locator("#arch-board .arch-sphinx").evaluate_all(
        "els => els.map(e => Number(e.dataset.room))"
    )
    assert set(pickers) == rooms, (pickers, rooms)


def pick(moves: list[dict[str, Any]], view: dict[str, Any]) -> int:
    """The index of the move the test plays (see PREFERENCE)."""
    types = [m["type"] for m in moves]
    for kind in PREFERENCE:
        if kind in types:
            return types.index(kind)
    if "sell" in types and (view["dig_site_size"] == 0 or view["compulsory_selling"]):
        counts = [m.get("count", 0) if m["type"] == "sell" else -1 for m in moves]
        return counts.index(max(counts))
    if "end_turn" in types:
        return types.index("end_turn")
    return 0


def explore(page: Any, moves: list[dict[str, Any]]) -> None:
    """Explore a room on the board: at the sphinx by naming two kinds in the room's
    picker (RULES.md E10), elsewhere by the room's own button."""
    before = version(page)
    picker = page.locator("#arch-board .arch-sphinx").first
    if picker.count():
        options = picker.locator("select").first.locator("option").all_inner_texts()
        picker.locator("select").nth(0).select_option(label=options[-1])
        picker.locator("select").nth(1).select_option(label=options[0])
        picker.locator("button[data-action]").click()
        expect(page.locator("#game-version")).not_to_have_text(str(before))
        return
    index = [m["type"] for m in moves].index("explore")
    click_move(page, index)


def shoot(page: Any, name: str) -> None:
    """A screenshot of the whole page, when ``$TEOTI_SHOTS`` names a folder."""
    folder = os.environ.get("TEOTI_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
        page.locator("#arch-board").screenshot(path=str(Path(folder) / f"{name}-board.png"))


def check_hand(page: Any) -> None:
    """The hand drawn face up is the seat's hand in its view, kind by kind."""
    view = seat_view(page)
    seat = int(page.locator("#my-seat").inner_text())
    hand = {k: n for k, n in view["seats"][seat]["hand"].items() if n}
    assert drawn_cards(page, "#arch-hand .arch-cards") == hand
    # A card's name agrees with its count: "coin" beside 1, "coins" beside 2.
    names = page.locator("#arch-hand .arch-card").evaluate_all(
        "els => els.map(e => [e.dataset.kind, Number(e.dataset.count),"
        " e.querySelector('.arch-card-name').textContent])"
    )
    for kind, n, name in names:
        assert name == KIND_NAMES[kind][0 if n == 1 else 1], (kind, n, name)
    sizes = page.locator("#arch-board .arch-hand-size").all_inner_texts()
    assert sizes == [count(s["hand_size"], "card") for s in view["seats"]]


def build_and_cancel_a_trade(page: Any) -> bool:
    """Offer up to two hand cards and take a market card, checking after each step that
    the trade drawn is the view's; then cancel it on the board. False if no offer was
    possible now."""
    hand_offers = page.locator("#arch-hand button[data-action*='\"offer\"']")
    if not hand_offers.count():
        return False
    hand_before = seat_view(page)["seats"][int(page.locator("#my-seat").inner_text())]["hand"]
    for _ in range(2):
        offers = page.locator("#arch-hand button[data-action*='\"offer\"']")
        if not offers.count():
            break
        before = version(page)
        offers.first.click()
        expect(page.locator("#game-version")).not_to_have_text(str(before))
        check_trade(page)
    takes = page.locator(".arch-market button[data-action*='\"choose\"']")
    if takes.count():
        before = version(page)
        takes.first.click()
        expect(page.locator("#game-version")).not_to_have_text(str(before))
        check_trade(page)
    shoot(page, f"trade-{page.viewport_size['width']}")
    before = version(page)
    page.locator("#arch-trade button", has_text="Cancel the trade").click()
    expect(page.locator("#game-version")).not_to_have_text(str(before))
    expect(page.locator("#arch-trade")).to_have_count(0)
    seat = int(page.locator("#my-seat").inner_text())
    assert seat_view(page)["seats"][seat]["hand"] == hand_before  # a cancel moves nothing
    return True


def check_trade(page: Any) -> None:
    """The trade panel lists what the view says is offered and taken, with their values."""
    pending = seat_view(page)["pending"]
    assert pending["kind"] == "trade"
    expect(page.locator("#arch-trade")).to_be_visible()
    assert drawn_cards(page, "#arch-trade-give") == pending["give"]
    assert drawn_cards(page, "#arch-trade-take") == pending["take"]
    expect(page.locator("#arch-trade-give-value")).to_have_text(f"value {pending['give_value']}")
    expect(page.locator("#arch-trade-take-value")).to_have_text(f"value {pending['take_value']}")
    # The defect (5 cards given for 2 unnoticed): value given away is said.
    left = pending["give_value"] - pending["take_value"]
    if left > 0 and pending["take"]:
        expect(page.locator("#arch-trade-warning")).to_contain_text(f"{left} value more")
    else:
        expect(page.locator("#arch-trade-warning")).to_have_count(0)
    # Every button of the trade is a touch target, and stays in reach.
    for button in page.locator("#arch-trade button").all():
        box = button.bounding_box()
        assert box["height"] >= TOUCH_PX and box["width"] >= TOUCH_PX, box


@pytest.mark.parametrize(
    ("viewport", "ruin"),
    [
        pytest.param(DESKTOP, "tomb", id="desktop-tomb", marks=pytest.mark.slow),
        # Every whole game in the slow run (.ci/run): each takes 12-20 s, and the
        # default run stays under 10 minutes; the spectator's board stays in it.
        pytest.param(PHONE, "sphinx", id="phone-sphinx", marks=pytest.mark.slow),
        pytest.param(DESKTOP, "mine", id="desktop-mine", marks=pytest.mark.slow),
        pytest.param(PHONE, "temple", id="phone-temple", marks=pytest.mark.slow),
    ],
)
def test_a_game_against_a_bot_is_played_to_its_end_on_the_board(
    new_page: Any,  # noqa: F811
    viewport: dict[str, int],
    ruin: str,
) -> None:
    ann = new_page(viewport=viewport)
    ann.fill("#create-options", json.dumps({"ruin": ruin}))
    create(ann, "ann", "archaeology", 2, others="bot")
    explored = 0
    expect(ann.locator("#arch-board")).to_be_visible()
    traded = False
    played = 0
    shot_mid = False
    while to_act([ann], timeout_s=60) is ann:
        check_hand(ann)
        assert page_width(ann) <= viewport["width"], "the board is wider than the window"
        moves = board_moves(ann)
        check_every_move_is_on_the_board(ann, moves)
        if not traded and any(m["type"] == "offer" for m in moves):
            traded = build_and_cancel_a_trade(ann)
            continue
        view = seat_view(ann)
        if explored < 2 and any(m["type"] == "explore" for m in moves):
            explore(ann, moves)  # the ruin's own step (tomb, mine, sphinx) on the board
            explored += 1
            shoot(ann, f"explored-{ruin}-{viewport['width']}-{explored}")
            continue
        if not shot_mid and view["dig_site_size"] < 30:
            shoot(ann, f"board-{ruin}-{viewport['width']}")
            shot_mid = True
        click_move(ann, pick(moves, view))
        played += 1
        assert played < MOVE_LIMIT, "the expedition did not end"
    expect(ann.locator("#finished")).to_be_visible()
    assert traded, "no trade was ever possible"
    view = seat_view(ann)
    assert view["ended"] and view["dig_site_size"] == 0
    shoot(ann, f"end-{ruin}-{viewport['width']}")


def test_a_spectator_sees_the_board_without_any_hand_or_move(new_page: Any) -> None:  # noqa: F811
    ann = new_page(viewport=PHONE)
    ann.fill("#create-options", json.dumps({"ruin": "buried_ruins"}))
    game_id = create(ann, "ann", "archaeology", 2, others="bot")
    assert to_act([ann], timeout_s=60) is ann
    click_move(ann, pick(board_moves(ann), seat_view(ann)))
    watcher = new_page(viewport=PHONE, path=f"/#game={game_id}")
    expect(watcher.locator("#arch-board")).to_be_visible()
    expect(watcher.locator("#game-version")).to_have_text(str(version(ann)))
    view = seat_view(watcher)
    assert all("hand" not in seat for seat in view["seats"])  # the public view
    expect(watcher.locator("#arch-hand")).to_have_count(0)
    expect(watcher.locator(BOARD_MOVES)).to_have_count(0)
    sizes = watcher.locator("#arch-board .arch-hand-size").all_inner_texts()
    assert sizes == [count(s["hand_size"], "card") for s in view["seats"]]
    # The buried ruins lie face up: every room's cards are drawn for everyone, each kind
    # in words agreeing with its count ("1 coin", "2 pottery shards").
    for index, room in enumerate(view["rooms"]):
        within = f'#arch-board .arch-room[data-room="{index}"]'
        drawn = drawn_cards(watcher, within)
        assert drawn == {k: n for k, n in room["cards"].items() if n}
        lines = watcher.locator(f"{within} .arch-cardline [data-kind]").evaluate_all(
            "els => els.map(e => [e.dataset.kind, Number(e.dataset.count), e.textContent])"
        )
        assert [text for _, _, text in lines] == [kind_count(n, k) for k, n, _ in lines]
    assert page_width(watcher) <= PHONE["width"]
    shoot(watcher, "spectator-buried_ruins-390")
