"""The table at the sizes people's terminals have: 80x24 and 120x40 show the choices
whenever it is the person's turn, the other views are a key away, headings stay
readable, and a too-small window says so (issue 13, item 1)."""

from __future__ import annotations

import pytest

from services.client import TeotiClient
from services.tui.app import MIN_SIZE, LiveApp
from services.tui.backend import Session, create_game
from services.tui.capture import screen_text
from services.tui.widgets.actions import ActionList
from tests.tui.conftest import row_of, until

SEAT_HEADINGS = ("seat", "VP", "cocoa", "wood", "stone", "gold", "tech", "tiles")


def _fully_on_screen(app: LiveApp, widget: ActionList) -> bool:
    region = widget.region
    width, height = app.size
    return region.height >= 3 and region.right <= width and region.bottom <= height


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_choices_are_on_screen_on_your_turn(
    client: TeotiClient, size: tuple[int, int]
) -> None:
    game = await create_game(client, "ann")
    app = LiveApp(Session(client, game.game_id, game.seat, game.token, game.solo))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: bool(app.frame and app.frame.legal and app.settled))
        await pilot.pause()
        screen = screen_text(app)
        assert "Your choices" in screen
        assert _fully_on_screen(app, app.actions)
        chosen = app.actions.highlighted_choice
        assert chosen is not None and chosen.words in screen  # the cursor's line is visible
        assert max(len(line) for line in screen.splitlines()) <= size[0]

        # Seats and offers: a key away, with every seat-table heading whole.
        await pilot.press("s")
        await pilot.pause()
        screen = screen_text(app)
        header = row_of(screen, " VP ")
        assert header.split("│")[1].split() == list(SEAT_HEADINGS)
        assert "…" not in header
        assert "Your choices" in screen and _fully_on_screen(app, app.actions)
        # Technology texts are whole (wrapped, never cut): the first one's last word shows.
        tech = app.frame.view.state["technologies"][0] if app.frame else 0
        from services.games.teotihuacan.tui.words import technology_words

        last_word = technology_words(tech).split()[-1]
        assert last_word in screen

        # The log, then back to the board: the choices never leave.
        await pilot.press("l")
        await pilot.pause()
        assert "What happened" in screen_text(app) and _fully_on_screen(app, app.actions)
        await pilot.press("b")
        await pilot.pause()
        assert "Rondel" in screen_text(app) and _fully_on_screen(app, app.actions)

        # Enter plays the highlighted choice the person can see.
        version = app.frame.version if app.frame else 0
        await pilot.press("enter")
        await until(pilot, lambda: app.frame is not None and app.frame.version > version)


async def test_a_too_small_window_says_what_it_needs(client: TeotiClient) -> None:
    game = await create_game(client, "ann")
    app = LiveApp(Session(client, game.game_id, game.seat, game.token, game.solo))
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.pause()
        screen = screen_text(app)
        assert f"needs at least {MIN_SIZE[0]}x{MIN_SIZE[1]}" in screen and "60x20" in screen
        assert "Rondel" not in screen
        await pilot.resize_terminal(*MIN_SIZE)
        await pilot.pause()
        screen = screen_text(app)
        assert "needs at least" not in screen and "Rondel" in screen


async def test_a_frame_arriving_after_the_table_closed_is_dropped(client: TeotiClient) -> None:
    """issue 30 item 15: the table's workers (refresh, follow, submit) await the server;
    when the table closes (q, or a test leaving ``run_test``) Textual removes its widgets
    before it cancels those workers, so one resuming then used to update ``#status`` on a
    screen that is gone (NoMatches, "#status not found", seen under load). What such a
    worker does after its await, done here at that moment: it must be a no-op."""
    game = await create_game(client, "ann")
    app = LiveApp(Session(client, game.game_id, game.seat, game.token, game.solo))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.frame is not None)
        frame = app.frame
    assert frame is not None and not app.is_running
    late = await app.session.frame()
    app.show(late)
    app.say("a late notice")
    assert app.frame is frame  # nothing shown on a table that is gone
