"""A browser's own EventSource on a finished game's WatchGame stops after ``end``
(issue 33, "The API contract"): it reconnects once with the last id it saw, gets 204,
and closes for good, where 200 and ``end`` again went round every few seconds for ever.
Debian's chromium against a real ``teoti serve``."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

from tests.web_serve import Served

SERVICE = "/gameserver.v1.GameService/"


def _call(served: Served, method: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        served.web + SERVICE + method,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        result: dict[str, Any] = json.loads(reply.read())
    return result


def _finished_bot_game(served: Served) -> str:
    bot = {"kind": "SEAT_KIND_BOT", "name": "bot"}
    game = str(_call(served, "CreateGame", {"ruleset": "nim", "seats": [bot, bot]})["game_id"])
    deadline = time.monotonic() + 30
    while not _call(served, "GetGame", {"game_id": game})["finished"]:
        assert time.monotonic() < deadline, "the bots never finished"
        time.sleep(0.05)  # bots play in another task of the server: poll its answer
    return game


@pytest.mark.slow
def test_event_source_stops_after_the_end_of_a_finished_game(new_page: Any, served: Served) -> None:
    game = _finished_bot_game(served)
    page = new_page()
    page.evaluate(
        """(game) => {
            window.seen = {messages: [], ends: 0, errors: 0};
            const source = new EventSource(
                "/gameserver.v1.GameService/WatchGame?game_id=" + encodeURIComponent(game));
            window.source = source;
            source.addEventListener("message", (e) => window.seen.messages.push(e.lastEventId));
            source.addEventListener("end", () => { window.seen.ends += 1; });
            source.onerror = () => { window.seen.errors += 1; };
        }""",
        game,
    )
    # After `end` the server closes the response; EventSource reconnects (about 3 s in
    # chromium) with Last-Event-ID, gets 204 and moves to CLOSED (2) for good.
    page.wait_for_function("window.source.readyState === 2", timeout=20_000)
    seen = page.evaluate("window.seen")
    assert seen["ends"] == 1, seen
    assert seen["messages"] == [str(v) for v in range(1, len(seen["messages"]) + 1)]
    time.sleep(4)  # longer than a reconnect delay: nothing more arrives
    assert page.evaluate("window.seen")["ends"] == 1
    assert page.evaluate("window.source.readyState") == 2
