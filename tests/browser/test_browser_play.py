"""The reference web client in a real headless chromium against a real ``teoti serve``:
create a game, join it from a second browser context (another person), play moves (over
the Play WebSocket, or HTTP in a browser without one), see the other side's moves arrive
over the event stream, and get a refusal shown with its rule. Select them with
``-k browser``."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.game_samples import game_names

expect: Any = pytest.importorskip("playwright.sync_api").expect


def create(page: Any, name: str, ruleset: str, players: int, others: str = "open") -> str:
    """Create a game from the lobby form; returns its id (the page sits at seat 0)."""
    page.fill("#player-name", name)
    if ruleset in game_names():  # the lobby lists the registered games
        page.select_option("#create-ruleset", ruleset)
    else:
        page.fill("#create-ruleset-other", ruleset)
    page.fill("#create-players", str(players))
    page.select_option("#create-others", others)
    page.click("#create-game")
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#game-id")).not_to_be_empty()
    return str(page.locator("#game-id").inner_text())


def join(page: Any, name: str, game_id: str, seat: int) -> None:
    """Join ``seat`` of ``game_id`` from the lobby's list of open games."""
    page.fill("#player-name", name)
    page.click("#refresh-games")
    page.click(f'button[data-game="{game_id}"][data-seat="{seat}"]')
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#my-seat")).to_have_text(str(seat))


def moves_over(page: Any) -> tuple[int, int]:
    """(moves sent over the Play WebSocket, over HTTP) by ``page``, as it counts them."""
    status = page.locator("#play-status")
    return (
        int(status.get_attribute("data-socket-moves") or 0),
        int(status.get_attribute("data-http-moves") or 0),
    )


def socket_open(page: Any) -> None:
    """Wait until ``page``'s Play WebSocket is open."""
    expect(page.locator("#play-status")).to_have_attribute("data-open", "yes")


def version(page: Any) -> int:
    text = page.locator("#game-version").inner_text()
    return int(text) if text else 0


def move_buttons(page: Any) -> Any:
    """The seat's moves in the page's list, unfolded first: under a drawn board a list of
    more than a dozen moves starts folded (the board makes them)."""
    page.evaluate(
        "() => { const list = document.getElementById('move-list'); if (list) list.open = true; }"
    )
    return page.locator("#legal-actions button")


def to_act(pages: list[Any], timeout_s: float = 20.0) -> Any:
    """The page whose seat has to act (its banner says so), or None once the game is over."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for page in pages:
            banner = page.locator("#turn-banner").inner_text()
            if banner.startswith("Your turn") and page.locator("#legal-actions button").count():
                return page
            if banner.startswith("The game is over"):
                return None
        pages[0].wait_for_timeout(50)
    raise AssertionError("no page got its turn")


def play_move(mover: Any, watchers: list[Any], pick: str = "first") -> int:
    """Click one of the mover's legal actions; returns the version it reached, after
    checking that every other page received the new events over its stream."""
    before = version(mover)
    buttons = move_buttons(mover)
    (buttons.first if pick == "first" else buttons.last).click()
    expect(mover.locator("#game-version")).not_to_have_text(str(before))
    reached = version(mover)
    for page in watchers:
        # The event arrived over WatchGame (the stream), and the view followed it.
        expect(page.locator(f'#events li[data-version="{reached}"]')).to_have_count(1)
        expect(page.locator("#game-version")).to_have_text(str(reached))
    return reached


@pytest.mark.slow  # 4-6 s a game; the default run keeps the whole game of Nim below
@pytest.mark.parametrize("ruleset", game_names())
def test_browser_two_people_play_and_see_each_other(new_page: Any, ruleset: str) -> None:
    ann = new_page()
    game_id = create(ann, "ann", ruleset, 2)
    bob = new_page()
    join(bob, "bob", game_id, 1)
    # ann's page learns of bob's join over its stream: seat 1 has a name now.
    expect(ann.locator("#seats li").nth(1)).to_contain_text("bob")
    pages = [ann, bob]
    seats_moved = set()
    for _ in range(6):
        mover = to_act(pages)
        assert mover is not None, "the game ended after a few moves"
        other = bob if mover is ann else ann
        play_move(mover, [other])
        seat = int(mover.locator("#my-seat").inner_text())
        seats_moved.add(seat)
        mover_events = other.locator(f'#events li[data-seat="{seat}"]')
        assert mover_events.count() >= 1, "the other side's move is not in the event list"
    # A refusal names its rule: the seat that is not to act tries to act anyway.
    mover = to_act(pages)
    waiting = bob if mover is ann else ann
    waiting.click("#by-hand summary")
    waiting.fill("#custom-action", '{"kind": "pass"}')
    waiting.click("#submit-custom")
    expect(waiting.locator("#refusal")).to_be_visible()
    expect(waiting.locator("#refusal .reason")).to_have_text("not_your_turn")
    expect(waiting.locator("#refusal")).to_contain_text("FAILED_PRECONDITION")


def test_browser_a_whole_game_to_its_end(new_page: Any) -> None:
    """Two people play a whole game (the test Nim, short) until both pages show its end."""
    ann = new_page()
    game_id = create(ann, "ann", "nim", 2)
    bob = new_page()
    join(bob, "bob", game_id, 1)
    pages = [ann, bob]
    for page in pages:
        socket_open(page)
    for _ in range(40):
        mover = to_act(pages)
        if mover is None:
            break
        play_move(mover, [bob if mover is ann else ann], pick="last")
    for page in pages:  # every move went over the WebSocket, none over HTTP
        over_socket, over_http = moves_over(page)
        assert over_socket >= 1 and over_http == 0, (over_socket, over_http)
    for page in pages:
        expect(page.locator("#turn-banner")).to_have_text("The game is over.")
        expect(page.locator("#finished")).to_be_visible()
        expect(page.locator("#stream-status")).to_have_text("(the game is over)")
    rankings = {page.locator("#ranking").inner_text().replace(" (you)", "") for page in pages}
    assert len(rankings) == 1, rankings  # both see the same result


def test_browser_without_websockets_plays_over_http(browser: Any, served: Any) -> None:
    """A browser without WebSocket (or one whose socket cannot open) plays over HTTP."""
    context = browser.new_context(base_url=served.web)
    try:
        context.add_init_script("delete window.WebSocket")
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto("/")
        create(page, "ann", "nim", 2, others="bot")
        expect(page.locator("#play-status")).to_have_text("(HTTP)")
        mover = to_act([page])
        assert mover is page
        play_move(page, [], pick="first")
        assert moves_over(page) == (0, 1)
    finally:
        context.close()


def test_browser_a_bad_action_is_refused_with_its_rule(new_page: Any) -> None:
    """Malformed JSON typed by hand comes back as INVALID_ARGUMENT with its reason
    (over the Play WebSocket: a refusal answers the request, the socket stays open)."""
    ann = new_page()
    create(ann, "ann", "nim", 2, others="bot")
    socket_open(ann)
    ann.click("#by-hand summary")
    ann.fill("#custom-action", "{not json")
    ann.click("#submit-custom")
    expect(ann.locator("#refusal .reason")).to_have_text("invalid_argument")
    expect(ann.locator("#refusal")).to_contain_text("INVALID_ARGUMENT")
    expect(ann.locator("#refusal")).to_contain_text("action_json is not valid JSON")
    expect(ann.locator("#play-status")).to_have_attribute("data-open", "yes")


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", game_names())
def test_browser_a_whole_game_against_a_bot(new_page: Any, ruleset: str) -> None:
    """One person plays a whole game of a real ruleset in the browser against a bot."""
    ann = new_page()
    create(ann, "ann", ruleset, 2, others="bot")
    choose = random.Random(f"browser-{ruleset}")  # the first move can loop (trade back)
    refusals = []
    moves = 0
    while moves < 3000:
        mover = to_act([ann], timeout_s=60)
        if mover is None:
            break
        moves += 1
        before = version(ann)
        buttons = move_buttons(ann)
        buttons.nth(choose.randrange(buttons.count())).click()
        # Either the move is taken, or (the bot moved since the list was drawn) refused.
        ann.wait_for_function(
            "v => document.getElementById('game-version').textContent !== String(v)"
            " || !document.getElementById('refusal').hidden",
            arg=before,
        )
        if ann.locator("#refusal").is_visible():
            refusals.append(ann.locator("#refusal").inner_text())
            assert len(refusals) < 5, refusals
    assert mover is None, "the game did not end"
    expect(ann.locator("#finished")).to_be_visible()
    print(f"{ruleset}: {moves} moves in the browser, refusals on stale lists: {refusals}")


def test_browser_resign_asks_then_ends_a_two_player_game(new_page: Any) -> None:
    """The Resign button asks first (a dismissed question changes nothing), then resigns;
    both pages see the game end with the resigning seat last and marked resigned."""
    ann = new_page()
    game_id = create(ann, "ann", "nim", 2)
    bob = new_page()
    join(bob, "bob", game_id, 1)
    expect(ann.locator("#seats li").nth(1)).to_contain_text("bob")
    expect(bob.locator("#resign")).to_be_visible()
    bob.once("dialog", lambda dialog: dialog.dismiss())
    bob.click("#resign")
    expect(bob.locator("#finished")).to_be_hidden()
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.click("#resign")
    for page in (ann, bob):
        expect(page.locator("#turn-banner")).to_have_text("The game is over.")
        expect(page.locator("#ranking")).to_contain_text("1 bob (resigned)")
    expect(bob.locator("#resign")).to_be_hidden()
