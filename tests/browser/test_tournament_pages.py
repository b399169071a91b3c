"""The reference web client's tournament pages (issue 33, "Tournament pages") in a real
chromium against a real ``teoti serve``: a small tournament (three bots made through the
API, one person who signs in and enters on the page) followed in the page to its final
standings. Its rounds are paired live (WatchTournament over server-sent events), the
person's "your game is ready" link opens their game at their seat, and the leaderboard
reads ratings as people do (rank, a whole number, games played)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest

from tests.browser.test_browser_layout import DESKTOP, PHONE, page_width, small_controls
from tests.browser.test_browser_play import play_move, to_act
from tests.browser.test_players_pages import UNNAMED_JS, shot, sign_up

expect: Any = pytest.importorskip("playwright.sync_api").expect

TOURNAMENTS = "/gameserver.v1.TournamentService/"


def make_tournament(web: str, name: str, bots: int, rounds: int) -> tuple[str, str]:
    """A Swiss tournament of Nim at 2-seat tables with ``bots`` bots entered; returns
    (its id, the organiser token)."""
    with httpx.Client(base_url=web, timeout=10) as http:
        created = http.post(
            TOURNAMENTS + "CreateTournament",
            json={
                "config": {
                    "name": name,
                    "ruleset": "nim",
                    "format": "TOURNAMENT_FORMAT_SWISS",
                    "min_seats": 2,
                    "max_seats": 2,
                    "rounds": rounds,
                    "rated": True,
                }
            },
        )
        assert created.status_code == 200, created.text
        tid = created.json()["tournament"]["tournament_id"]
        organiser = created.json()["organiser_token"]
        for index in range(bots):
            entered = http.post(
                TOURNAMENTS + "RegisterPlayer",
                json={
                    "tournament_id": tid,
                    "player": f"robot{index}",
                    "bot": True,
                    "organiser_token": organiser,
                },
            )
            assert entered.status_code == 200, entered.text
    return tid, organiser


def start(web: str, tid: str, organiser: str) -> None:
    with httpx.Client(base_url=web, timeout=30) as http:
        started = http.post(
            TOURNAMENTS + "StartTournament",
            json={"tournament_id": tid, "organiser_token": organiser},
        )
        assert started.status_code == 200, started.text


def play_to_the_end(page: Any) -> None:
    """Click the page's legal actions until its game is over (against a bot)."""
    for _ in range(60):
        if to_act([page], timeout_s=30) is None:
            return
        play_move(page, [])
    raise AssertionError("the game did not end")


@pytest.mark.slow
def test_browser_a_tournament_followed_to_its_standings(new_page: Any, served: Any) -> None:
    tag = uuid.uuid4().hex[:6]
    me = f"eve-{tag}"
    tid, organiser = make_tournament(served.web, f"Cup {tag}", bots=3, rounds=2)
    page = new_page(viewport=PHONE)
    sign_up(page, me)
    page.goto("/#tournaments")
    expect(page.locator(f'a[data-tournament="{tid}"]')).to_be_visible()
    assert page_width(page) <= PHONE["width"] and small_controls(page, "main") == []
    assert page.evaluate(UNNAMED_JS) == []
    shot(page, "tournaments-phone")
    page.click(f'a[data-tournament="{tid}"]')
    assert f"#tournament={tid}" in page.url and "tpc_" not in page.url
    expect(page.locator("#tournament-status")).to_have_text("registering")
    page.click("#register-tournament")
    expect(page.locator(f'#standings tr[data-player="{me}"]')).to_be_visible()
    expect(page.locator("#withdraw-tournament")).to_be_visible()

    start(served.web, tid, organiser)
    for round_number in (1, 2):
        # Paired live: the page learns of the round from its stream, no reload.
        ready = page.locator("#your-game")
        expect(ready).to_contain_text(f"round {round_number}", timeout=30_000)
        if round_number == 1:
            assert page_width(page) <= PHONE["width"] and small_controls(page, "#tournament") == []
            assert page.evaluate(UNNAMED_JS) == []
            shot(page, "tournament-ready-phone")
        href = str(page.locator("#your-game-link").get_attribute("href"))
        assert re.fullmatch(r"#game=[0-9a-f-]+&seat=[01]", href), href
        page.click("#your-game-link")
        expect(page.locator("#my-seat")).to_have_text(href.rsplit("=", 1)[1])
        play_to_the_end(page)
        page.go_back()  # back to the tournament's page
        expect(page.locator(f'.round[data-round="{round_number}"] h4')).to_contain_text(
            "finished", timeout=30_000
        )

    expect(page.locator("#tournament-status")).to_have_text("finished", timeout=30_000)
    expect(page.locator("#your-game")).to_have_count(0)
    expect(page.locator("#tournament-stream")).to_have_attribute(
        "data-state", "over", timeout=30_000
    )
    rows = page.locator("#standings tbody tr")
    expect(rows).to_have_count(4)
    ranks = [int(r) for r in page.locator("#standings tbody tr td:first-child").all_inner_texts()]
    assert ranks == sorted(ranks) and ranks[0] == 1, ranks
    mine = page.locator(f'#standings tr[data-player="{me}"] td').all_inner_texts()
    assert mine[3].startswith("2"), mine  # two rounds played
    shot(page, "tournament-final-phone")

    # The same page on a desktop, from its link; then the leaderboard of the rated games.
    desk = new_page(viewport=DESKTOP, path=f"/#tournament={tid}")
    expect(desk.locator("#tournament-status")).to_have_text("finished")
    expect(desk.locator("#tournament-stream")).to_have_attribute("data-state", "over")
    assert page_width(desk) <= DESKTOP["width"]
    shot(desk, "tournament-final-desktop")
    desk.goto("/#tournaments")
    desk.select_option("#leaderboard-ruleset", "nim")
    row = desk.locator("#leaderboard tbody tr", has_text=me)
    expect(row).to_have_count(1)
    cells = row.locator("td").all_inner_texts()
    assert re.fullmatch(r"-?\d+", cells[2]), cells  # a whole number, not a raw float
    assert cells[3] == "2", cells  # rated games played
    shot(desk, "leaderboard-desktop")


@pytest.mark.slow
def test_browser_entering_and_withdrawing_on_the_page(new_page: Any, served: Any) -> None:
    """A signed-in player enters a tournament on its page and withdraws: the standings
    say so; a signed-out visitor of a started one is offered links, no button."""
    tag = uuid.uuid4().hex[:6]
    me = f"wes-{tag}"
    tid, organiser = make_tournament(served.web, f"Open {tag}", bots=2, rounds=1)
    page = new_page(viewport=DESKTOP)
    sign_up(page, me)
    page.goto(f"/#tournament={tid}")
    page.click("#register-tournament")
    expect(page.locator(f'#standings tr[data-player="{me}"]')).to_be_visible()
    page.click("#withdraw-tournament")
    expect(page.locator(f'#standings tr[data-player="{me}"]')).to_contain_text("withdrew")
    expect(page.locator("#withdraw-tournament")).to_have_count(0)
    start(served.web, tid, organiser)
    visitor = new_page(viewport=PHONE, path=f"/#tournament={tid}")
    # Two bots play their one round at once: running, or already finished.
    expect(visitor.locator("#tournament-status")).to_have_text(re.compile("running|finished"))
    expect(visitor.locator("#tournament button")).to_have_count(0)
    expect(visitor.locator("#your-game")).to_have_count(0)
