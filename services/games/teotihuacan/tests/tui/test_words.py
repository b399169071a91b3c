"""Player-facing words: tile labels survive as text, refusals read as sentences, the log
names discovery tiles, saved seat tokens are private (issue 13, items 2, 3 and 8), and
counted things read "1 mask", "2 masks" (never "mask(s)")."""

from __future__ import annotations

import io
import stat
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from textual.app import App, ComposeResult

from services.engine.domain.ruleset import DomainEvent
from services.games.teotihuacan.rules.describe import describe_action
from services.games.teotihuacan.tests.builders import RULES, new_game
from services.games.teotihuacan.tui.seats import render_seats
from services.games.teotihuacan.tui.tracks import render_tracks
from services.games.teotihuacan.tui.words import action_words, discovery_words, event_words
from services.tui import saved_seats
from services.tui.capture import screen_text
from services.tui.widgets.actions import ActionList, Choice
from services.tui.words import refusal_words


class _Choices(App[None]):
    def compose(self) -> ComposeResult:
        yield ActionList()


async def test_tile_labels_are_never_taken_for_markup() -> None:
    app = _Choices()
    labels = ["decoration [g-br] on the left side, step 1", "pyramid tile [b·Rg] on level 1"]
    async with app.run_test(size=(80, 10)) as pilot:
        choices = [Choice({"type": "x"}, words, "Decorations") for words in labels]
        app.query_one(ActionList).set_choices("Your choices", [("Decorations", choices)])
        await pilot.pause()
        screen = screen_text(app)
    for label in labels:
        assert label in screen


def test_a_refusal_is_a_sentence_naming_the_rule() -> None:
    words = refusal_words(
        "free_action_not_allowed",
        "RULES.md §2 (pay 3 cocoa to unlock): {'type': 'pay_unlock'} is not possible now; "
        "possible: []",
        "pay 3 cocoa to unlock all workers",
    )
    assert words.startswith("Not possible: pay 3 cocoa to unlock all workers")
    assert "free action not allowed" in words and "RULES.md §2" in words
    assert words.endswith(".")
    for developer_text in ("{", "[", "'", "pay_unlock", "; possible"):
        assert developer_text not in words


def test_the_log_names_discovery_tiles_by_what_they_are() -> None:
    for tile in range(3):
        line = event_words(DomainEvent("DiscoveryClaimed", {"seat": 1, "tile": tile}), ["a", "b"])
        assert line == f"b claims a discovery tile: {discovery_words(tile, with_cost=False)}"
        assert "tile 0" not in line and "tile 1" not in line


def test_worship_spaces_are_numbered_as_on_the_web_table() -> None:
    # The web table shows the ruleset's words (worship space 1 is the first); the terminal
    # once said "space 0" for the same action.
    for space in range(3):
        action = {"type": "worship", "space": space, "mode": "ability_then_discovery"}
        words = action_words(action, {"players": []}, 0)
        assert words == describe_action(action)
        assert f"worship space {space + 1}:" in words


def test_saved_seats_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    path = tmp_path / ".teoti" / "seats.json"
    first = saved_seats.SavedSeat("g1", 0, "t1", "ann", saved_seats.EMBEDDED, "data")
    second = saved_seats.SavedSeat("g2", 1, "t2", "bob", "host:50051")
    saved_seats.save(first, path)
    saved_seats.save(second, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert saved_seats.load(path) == {"g1": first, "g2": second}
    assert saved_seats.load(tmp_path / "absent.json") == {}


def _shown(renderable: RenderableType) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def _view(**changes: Any) -> dict[str, Any]:
    view = dict(RULES.view(new_game(seats=2), 0))
    view.update(changes)
    return view


def test_masks_read_singular_for_one_and_plural_for_two() -> None:
    for masks, words in (([3], "1 mask"), ([3, 5], "2 masks")):
        view = _view()
        view["players"] = [dict(p, masks=masks) for p in view["players"]]
        shown = _shown(render_seats(view, ["ann", "bob"]))
        assert words in shown and "(s)" not in shown
    assert "1 masks" not in _shown(render_seats(_view(), ["ann", "bob"]))


def test_eclipse_countdown_reads_singular_for_one_and_plural_for_two() -> None:
    one = _shown(render_tracks(_view(eclipse_countdown=1), ["ann", "bob"]))
    two = _shown(render_tracks(_view(eclipse_countdown=2), ["ann", "bob"]))
    assert "eclipse in 1 round end" in one and "round ends" not in one
    assert "eclipse in 2 round ends" in two
    assert "(s)" not in one + two
