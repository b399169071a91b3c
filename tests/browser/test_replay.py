"""The replay page (issue 33, "Replay viewer") in Debian's chromium against a real
``teoti serve``: a finished bot game of each shipped game opened from the lobby's link
(and by its URL), stepped back and forth on its board (buttons, arrow keys, the slider),
its log verified by the page's own WebCrypto code to the head the server reports, the
back button leaving it; ``teoti export``'s file verified in the page, and the same file
with one payload byte changed refused at the version the server's chain check names.
At 1280x800 and 390x844: no sideways scrolling, touch-sized controls, every control
named in chromium's accessibility tree. Screenshots go to /tmp/replay-shots/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.engine.domain.chain import verify_chain
from services.engine.domain.public_log import parse_public_log
from tests.browser.test_browser_layout import page_width, small_controls
from tests.game_samples import game_names
from tests.web_serve import ROOT, Served

expect: Any = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.slow

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SHOTS = Path("/tmp/replay-shots")
GAME = "/gameserver.v1.GameService/"
NAMED_ROLES = {"button", "link", "slider", "textbox", "combobox", "checkbox", "DisclosureTriangle"}


@pytest.fixture(scope="module")
def finished(served: Served) -> Iterator[dict[str, dict[str, Any]]]:
    """One finished two-bot game per shipped ruleset: ruleset → its GetGame reply."""
    games: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=served.web, timeout=30) as web:
        for ruleset in game_names():
            seats = [{"kind": "SEAT_KIND_BOT", "name": name} for name in ("Ann", "Bob")]
            created = web.post(f"{GAME}CreateGame", json={"ruleset": ruleset, "seats": seats})
            created.raise_for_status()
            games[ruleset] = {"game_id": created.json()["game_id"]}
        deadline = time.monotonic() + 180
        for ruleset, game in games.items():
            while True:  # the bots play on the server; nothing to wait on but its answer
                reply = web.post(f"{GAME}GetGame", json={"game_id": game["game_id"]}).json()
                if reply.get("finished"):
                    games[ruleset] = reply
                    break
                assert time.monotonic() < deadline, f"the {ruleset} bot game did not finish"
                time.sleep(0.5)
    yield games


def unnamed_controls(page: Any) -> list[str]:
    """Controls chromium's accessibility tree lists without a name (role: what it is)."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    unnamed = []
    for node in nodes:
        role = node.get("role", {}).get("value", "")
        if node.get("ignored") or role not in NAMED_ROLES:
            continue
        if not str(node.get("name", {}).get("value", "")).strip():
            unnamed.append(f"{role} (node {node.get('backendDOMNodeId')})")
    return unnamed


def board_at(page: Any, version: int) -> str:
    """The board's HTML once the page has drawn it at ``version``."""
    expect(page.locator("#replay-version")).to_have_text(str(version))
    board = page.locator(f"#replay-board[data-version='{version}']")
    expect(board).to_be_visible()
    return str(board.inner_html())


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("ruleset", game_names())
def test_replay_steps_a_finished_game_and_verifies_it_in_the_browser(
    new_page: Any, finished: dict[str, dict[str, Any]], ruleset: str, size: str
) -> None:
    game = finished[ruleset]
    game_id, last = game["game_id"], int(game["version"])
    viewport = VIEWPORTS[size]
    page = new_page(viewport=viewport)
    page.select_option("#list-filter", "GAME_STATUS_FILTER_UNSPECIFIED")
    page.locator(f"a[data-replay='{game_id}']").click()
    # Opened at the last version: the URL names the game and the version, never a token.
    final = board_at(page, last)
    assert page.url.endswith(f"#replay={game_id}&v={last}"), page.url
    assert page.locator("#replay-sentence").inner_text().strip()
    page.locator("#step-prev").click()
    board_at(page, last - 1)
    page.locator("#step-first").click()
    expect(page.locator("#replay-version")).to_have_text("1")
    page.keyboard.press("ArrowRight")
    setup = board_at(page, 2)
    assert setup != final, "the board did not change between the setup and the end"
    page.locator("#step-slider").fill(str(last // 2))
    middle = board_at(page, last // 2)
    assert middle not in (setup, final)
    page.keyboard.press("End")
    assert board_at(page, last) == final
    # The raw event, one click away, wraps rather than widening the page.
    page.locator("#replay-event details.raw summary").click()
    expect(page.locator("#replay-event-json")).to_contain_text(f'"version": {last}')

    page.locator("#verify-log").click()
    result = page.locator("#verify-result")
    expect(result).to_contain_text(
        f"verified by your browser: {last} versions, head {game['head_hash']}", timeout=30_000
    )
    expect(result).to_contain_text("signature OK: the current key")
    expect(page.locator("#download-log")).to_be_visible()

    assert page_width(page) <= viewport["width"], "the replay is wider than the window"
    if size == "phone":
        assert small_controls(page, "#replay") == []
    assert unnamed_controls(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{ruleset}-{viewport['width']}.png"), full_page=True)

    # A link opens the same step; the back button leaves the replay for the lobby.
    page.go_back()
    expect(page.locator("#lobby")).to_be_visible()
    page.goto(f"/#replay={game_id}&v=2")
    assert board_at(page, 2) == setup


def export(served: Served, game_id: str, out: Path) -> str:
    """``teoti export`` of ``game_id`` (the CLI, from the server's gRPC face) into ``out``."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "services.cli",
            "export",
            game_id,
            "--target",
            served.grpc_target,
            "-o",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out.read_text(encoding="utf-8")


def tamper(text: str, line_number: int) -> str:
    """``text`` with one byte of line ``line_number``'s payload changed (a digit), still JSON."""
    lines = text.splitlines(keepends=True)
    line = lines[line_number - 1]
    start = line.index('"payload": ')
    at = next(i for i in range(start, len(line)) if line[i].isdigit())
    lines[line_number - 1] = line[:at] + ("2" if line[at] == "1" else "1") + line[at + 1 :]
    return "".join(lines)


@pytest.mark.parametrize("size", VIEWPORTS)
def test_an_exported_log_verifies_in_the_page_and_a_tampered_one_is_refused(
    new_page: Any,
    served: Served,
    finished: dict[str, dict[str, Any]],
    size: str,
    tmp_path: Path,
) -> None:
    game = min(finished.values(), key=lambda reply: int(reply["version"]))  # the shortest
    honest = export(served, game["game_id"], tmp_path / "game.jsonl")
    events = parse_public_log(honest.splitlines()).events
    middle = len(events) // 2
    forged = tamper(honest, middle + 1)  # line 1 is the header: this is version `middle`
    bad = verify_chain(parse_public_log(forged.splitlines()).events)
    assert not bad.ok and bad.first_bad_version == middle  # what the server's code says
    (tmp_path / "tampered.jsonl").write_text(forged, encoding="utf-8")

    page = new_page(viewport=VIEWPORTS[size], path=f"/#replay={game['game_id']}")
    result = page.locator("#verify-result")
    page.locator("#log-file").set_input_files(str(tmp_path / "game.jsonl"))
    expect(result).to_contain_text(
        f"verified by your browser: {len(events)} versions, head {game['head_hash']}",
        timeout=30_000,
    )
    expect(result).to_contain_text("signature OK")
    page.locator("#log-file").set_input_files(str(tmp_path / "tampered.jsonl"))
    expect(result).to_contain_text(f"version {middle} does not match", timeout=30_000)
    expect(result).not_to_contain_text("verified by your browser")
    assert "bad" in (result.get_attribute("class") or "")
    assert page_width(page) <= VIEWPORTS[size]["width"]
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"tampered-{VIEWPORTS[size]['width']}.png"), full_page=True)
    assert json.loads(honest.splitlines()[0])["head"]["hash"] == game["head_hash"]


def test_a_spectators_replay_of_a_running_game_grows_as_moves_arrive(
    new_page: Any, served: Served
) -> None:
    """A Nim game between two people: the replay (no token) shows the moves so far, a
    move made meanwhile arrives over WatchGame as a new last version, and the log up to
    then verifies in the page, not finished."""
    with httpx.Client(base_url=served.web, timeout=30) as web:
        seats = [{"kind": "SEAT_KIND_HUMAN", "name": name} for name in ("ann", "bob")]
        created = web.post(f"{GAME}CreateGame", json={"ruleset": "nim", "seats": seats}).json()
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["seat_tokens"]}

        def move() -> int:
            game = web.post(f"{GAME}GetGame", json={"game_id": game_id}).json()
            seat = game["seats_to_act"][0]
            legal = web.post(
                f"{GAME}ListLegalActions",
                json={"game_id": game_id, "seat": seat, "seat_token": tokens[seat]},
            ).json()
            action = legal["actions"][0]["action_json"]
            reply = web.post(
                f"{GAME}SubmitAction",
                json={
                    "game_id": game_id,
                    "seat": seat,
                    "seat_token": tokens[seat],
                    "action_json": action,
                },
            )
            assert reply.status_code == 200, reply.text
            return int(web.post(f"{GAME}GetGame", json={"game_id": game_id}).json()["version"])

        before = move()
        page = new_page(viewport=VIEWPORTS["phone"], path=f"/#replay={game_id}")
        expect(page.locator("#replay-last")).to_have_text(str(before))
        assert "token" not in page.url
        after = move()
        assert after > before
        expect(page.locator("#replay-last")).to_have_text(str(after))
        page.locator("#step-last").click()
        board_at(page, after)
        page.locator("#verify-log").click()
        result = page.locator("#verify-result")
        expect(result).to_contain_text(f"verified by your browser: {after} versions")
        expect(result).to_contain_text("not finished")
        expect(result).to_contain_text("signature OK")
