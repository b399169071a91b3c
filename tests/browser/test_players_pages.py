"""The reference web client's player pages (issue 33, "Lobby and players") in a real
chromium against a real ``teoti serve``: two people register in two browsers (one a
phone), quick-match each other, land in the same game, and the one waiting sees the
"your turn" badge arrive live on their page (WatchPlayer over server-sent events) when
the other moves. Also: the credential never in a URL, signing out forgets it, a lobby
table opened and shared by its link, and the pages' layout on a phone."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_browser_layout import DESKTOP, PHONE, page_width, small_controls
from tests.browser.test_browser_play import play_move, to_act

expect: Any = pytest.importorskip("playwright.sync_api").expect

SHOTS = Path("/tmp/pages-shots")
LIVE_MS = 20_000  # a notice's way to the page (engine, notifier, stream) on a loaded machine

# Every control with no accessible name: its text, aria-label, title, or its label.
UNNAMED_JS = """() => [...document.querySelectorAll('button, a, input, select, textarea, summary')]
  .filter((el) => el.offsetParent !== null)
  .filter((el) => !((el.innerText || '').trim() || el.getAttribute('aria-label')
    || el.getAttribute('title') || (el.labels && [...el.labels].some((l) => l.innerText.trim()))))
  .map((el) => el.outerHTML.slice(0, 80))"""


def shot(page: Any, name: str) -> None:
    """A full-page screenshot in /tmp/pages-shots/ (looked at by hand, not compared)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def sign_up(page: Any, name: str) -> None:
    """Register ``name`` on the #me page; waits until it says who is signed in."""
    page.goto("/#me")
    page.fill("#register-name", name)
    page.click("#register")
    expect(page.locator("#account-name")).to_have_text(name)


def credential_of(page: Any) -> str:
    """The player credential this browser keeps (localStorage, never the URL)."""
    return str(page.evaluate("JSON.parse(localStorage.getItem('teoti:player')).credential"))


def quick_match(page: Any, ruleset: str = "nim") -> None:
    page.select_option("#seek-ruleset", ruleset)
    page.fill("#seek-seats", "2")
    page.click("#seek")


@pytest.mark.slow
def test_browser_two_players_quick_match_and_see_their_turn_arrive(new_page: Any) -> None:
    tag = uuid.uuid4().hex[:6]
    ann = new_page(viewport=DESKTOP)
    bob = new_page(viewport=PHONE, path="/#me")
    expect(bob.locator("#register-name")).to_be_visible()  # signed out: the sign-in form
    assert bob.evaluate(UNNAMED_JS) == []
    assert page_width(bob) <= PHONE["width"] and small_controls(bob, "#sign-in") == []
    shot(bob, "sign-in-phone")
    sign_up(ann, f"ann-{tag}")
    sign_up(bob, f"bob-{tag}")
    for page in (ann, bob):
        assert "tpc_" not in page.url and credential_of(page).startswith("tpc_")
        assert page.evaluate(UNNAMED_JS) == []
    assert page_width(bob) <= PHONE["width"]
    assert small_controls(bob, "#home") == []
    shot(ann, "me-desktop")
    shot(bob, "me-phone")

    quick_match(ann)
    expect(ann.locator("#seeking")).to_contain_text("Searching")
    quick_match(bob)
    for page in (ann, bob):  # matched: both land in the game, at their own seats
        expect(page.locator("#table")).to_be_visible(timeout=30_000)
        expect(page.locator("#game-id")).not_to_be_empty()
    game_id = ann.locator("#game-id").inner_text()
    assert bob.locator("#game-id").inner_text() == game_id
    seats = {page.locator("#my-seat").inner_text() for page in (ann, bob)}
    assert seats == {"0", "1"}, seats
    for page in (ann, bob):
        assert "tpc_" not in page.url and f"game={game_id}" in page.url

    mover = to_act([ann, bob])
    waiting = bob if mover is ann else ann
    waiting.go_back()  # the back button: from the game to the player's home
    card = waiting.locator(f'#my-games li[data-game="{game_id}"]')
    expect(card).to_be_visible()
    expect(waiting.locator("#player-stream")).to_have_attribute("data-state", "following")
    expect(card.locator(".turn-badge")).to_have_count(0)
    play_move(mover, [])
    # The badge arrives over the waiting player's stream, with no reload.
    expect(card.locator(".turn-badge")).to_have_text("your turn", timeout=LIVE_MS)
    shot(waiting, "your-turn-" + ("phone" if waiting is bob else "desktop"))
    # From the badge into the game, at the waiting player's seat, with moves to make.
    card.locator("button[data-open]").click()
    expect(waiting.locator("#game-id")).to_have_text(game_id)
    assert to_act([waiting]) is waiting
    play_move(waiting, [mover])
    waiting.go_back()
    expect(card.locator(".turn-badge")).to_have_count(0, timeout=LIVE_MS)  # GetGame: not their turn


@pytest.mark.slow
def test_browser_a_table_is_shared_by_its_link_and_sign_out_forgets(new_page: Any) -> None:
    tag = uuid.uuid4().hex[:6]
    host = new_page(viewport=PHONE)
    sign_up(host, f"cy-{tag}")
    host.select_option("#table-ruleset", "nim")
    host.fill("#table-seats", "2")
    host.click("#open-table")
    expect(host.locator("#table-status")).to_have_text("waiting for players")
    link = host.url
    assert "#table=" in link and "tpc_" not in link
    assert page_width(host) <= PHONE["width"] and small_controls(host, "#table-page") == []
    shot(host, "table-phone")

    guest = new_page(viewport=DESKTOP)
    sign_up(guest, f"di-{tag}")
    guest.goto(link)  # the shared link opens the same table
    guest.click('button[data-sit="1"]')
    for page in (host, guest):  # the table filled, its game opened
        expect(page.locator("#open-table-game")).to_have_text("Play the game", timeout=30_000)
    guest.click("#open-table-game")
    expect(guest.locator("#my-seat")).to_have_text("1")

    # The credential, to sign in on another device: shown on demand, and it works there.
    host.click("#account details.credential summary")
    credential = host.locator("#my-credential").inner_text()
    assert credential == credential_of(host)
    other = new_page(viewport=PHONE, path="/#me")
    other.fill("#credential", credential)
    other.click("#use-credential")
    expect(other.locator("#account-name")).to_have_text(f"cy-{tag}")
    host.click("#sign-out")
    expect(host.locator("#register-name")).to_be_visible()
    assert host.evaluate("localStorage.getItem('teoti:player')") is None
    kept = host.evaluate("Object.values(localStorage).filter((v) => v.includes('tpc_'))")
    assert kept == [], "a credential stayed in the browser after signing out"


def play_out(pages: list[Any]) -> None:
    """Click legal actions on whichever page is to act until the game is over."""
    for _ in range(60):
        mover = to_act(pages)
        if mover is None:
            return
        play_move(mover, [page for page in pages if page is not mover])
    raise AssertionError("the game did not end")


@pytest.mark.slow
def test_browser_a_rematch_offered_accepted_and_resigned_from_the_home(new_page: Any) -> None:
    """After a game, one player offers a rematch from their home; the other sees the
    offer arrive live and accepts; the new game appears on both homes; resigning it
    there ends it for both."""
    tag = uuid.uuid4().hex[:6]
    host = new_page(viewport=DESKTOP)
    guest = new_page(viewport=PHONE)
    sign_up(host, f"fa-{tag}")
    sign_up(guest, f"gu-{tag}")
    host.select_option("#table-ruleset", "nim")
    host.click("#open-table")
    expect(host.locator("#table-status")).to_have_text("waiting for players")
    guest.goto(host.url)
    guest.click('button[data-sit="1"]')
    for page in (host, guest):
        page.locator("#open-table-game").click(timeout=30_000)
        expect(page.locator("#table")).to_be_visible()
    game_id = host.locator("#game-id").inner_text()
    play_out([host, guest])

    for page in (host, guest):
        page.goto("/#me")
        expect(page.locator(f'#my-games li[data-game="{game_id}"] .done')).to_contain_text(
            "place", timeout=LIVE_MS
        )
    host.click(f'button[data-rematch="{game_id}"]')
    expect(host.locator(f'#my-games li[data-game="{game_id}"]')).to_contain_text("rematch offered")
    guest.click(f'button[data-accept="{game_id}"]')  # arrived over the guest's stream
    for page in (host, guest):  # the rematch: a second game on each home, not over
        expect(page.locator("#my-games > li")).to_have_count(2, timeout=30_000)
    rematch = str(guest.locator("#my-games > li").first.get_attribute("data-game"))
    assert rematch != game_id
    shot(guest, "rematch-phone")

    guest.once("dialog", lambda dialog: dialog.accept())
    guest.click(f'button[data-resign="{rematch}"]')
    for page in (host, guest):
        expect(page.locator(f'#my-games li[data-game="{rematch}"] .done')).to_be_visible(
            timeout=LIVE_MS
        )
    expect(host.locator(f'#my-games li[data-game="{rematch}"] .done')).to_contain_text("place 1")
