"""A person plays through the first eclipse against a bot on the terminal table.

The app runs against the real embedded stack; the test only presses keys and reads the
screen (Textual's pilot), as someone at the terminal would.
"""

from __future__ import annotations

import re

import pytest

from services.client import TeotiClient
from services.games.teotihuacan.tui.scoring import COLUMNS
from services.tui.app import LiveApp
from services.tui.backend import Session, create_game
from services.tui.capture import screen_text
from services.tui.widgets.common import LETTERS
from services.tui.widgets.scoring import ResultScreen
from tests.tui.conftest import SCREEN, row_of, until


def _cocoa_on_screen(screen: str) -> int:
    """The cocoa column of the person's row in the Seats panel."""
    row = row_of(screen, "(you)")
    numbers = re.findall(r"\b\d+\b", row.split("(you)", 1)[1])
    return int(numbers[1])  # VP, cocoa, wood, stone, gold, tech


@pytest.mark.slow  # 10-16 s: run by .ci/run's slow step, not the default run
async def test_play_through_the_first_eclipse(client: TeotiClient) -> None:
    game = await create_game(client, "ann")
    assert game.solo, "the server plays Teotibot (RULES.md §8)"
    app = LiveApp(Session(client, game.game_id, game.seat, game.token, game.solo))
    async with app.run_test(size=SCREEN) as pilot:

        def my_turn() -> bool:
            return (
                bool(app.frame and app.frame.legal and app.settled and not app.actions.disabled)
                and app.actions.highlighted_choice is not None
            )

        await until(pilot, my_turn)
        screen = screen_text(app)
        assert "You choose: a worker to move" in screen
        assert "Move a worker" in screen and "-> " in screen
        for board in ("Palace", "Forest", "Construction", "blue", "Avenue", "Calendar"):
            assert board in screen
        assert ("Teotibot" in screen) is game.solo
        # Teotibot's action pyramid: the tile at each position and the dice that pick it.
        view = await client.get_game(game.game_id)
        assert "Teotibot's action pyramid" in screen and "dice 6-8→1" in screen
        top = view.state["teotibot_tiles"][0].replace("_", " ")
        assert f"[1 {top}]" in screen

        # A free action that is not possible now: the server's reason is shown.
        await pilot.press("u")
        await until(pilot, lambda: "Not possible" in app.message.plain)
        refusal = app.message.plain
        assert refusal.startswith("Not possible: pay 3 cocoa to unlock all workers")
        assert "free action not allowed" in refusal  # the rule, in words
        for developer_text in ("{", "'type'", "pay_unlock", "possible: ["):
            assert developer_text not in refusal
        assert "Not possible" in screen_text(app)

        # Move the highlighted worker, then collect cocoa there.
        before = _cocoa_on_screen(screen_text(app))
        chosen = app.actions.highlighted_choice
        assert chosen is not None and chosen.action["type"] == "move"
        await pilot.press("enter")
        await until(pilot, lambda: my_turn() and "collect cocoa" in screen_text(app))
        assert "On the destination board" in screen_text(app)
        assert app.actions.highlighted_choice is not None
        # The choice in the rulebook's words (describe.py), as the web board shows it.
        words = app.actions.highlighted_choice.words
        assert words == "Collect cocoa instead of the board's action"
        await pilot.press("enter")

        def mine() -> list[str]:
            return [line for line in app.log_panel.recent if line.startswith("ann +")]

        await until(pilot, lambda: any("(collect cocoa)" in line for line in mine()))
        gained = int([line for line in mine() if "(collect cocoa)" in line][-1].split()[1])
        # The log says what the choice did; the Seats panel shows it (unless the bot's
        # turn already moved on to a decision that changes our cocoa again).
        await until(pilot, lambda: app.settled and _cocoa_on_screen(screen_text(app)) != before)
        assert _cocoa_on_screen(screen_text(app)) == before + gained

        # Keep taking the highlighted choice until the first eclipse is scored.
        presses = 0
        while not isinstance(app.screen, ResultScreen):
            await until(pilot, lambda: my_turn() or isinstance(app.screen, ResultScreen), 90)
            if isinstance(app.screen, ResultScreen):
                break
            version = app.frame.version if app.frame else 0
            await pilot.press("down", "up", "enter")  # arrows move, Enter chooses
            presses += 1
            await until(
                pilot,
                lambda v=version: (
                    (app.frame is not None and app.frame.version > v)
                    or isinstance(app.screen, ResultScreen)
                ),
            )
            assert presses < 400, "no eclipse after 400 choices"

        scored = app.scorings[0]
        await until(pilot, lambda: "Eclipse 1 scored" in screen_text(app))
        popup = screen_text(app)
        for row in scored["scores"]:
            label = f"{LETTERS[row['seat']]} {app.names[row['seat']]}"
            # The pop-up's row for that seat: its label followed by "+N" score cells (the
            # table behind it also names the seat, and may show "+" in a tile's cost).
            line = next(
                x
                for x in popup.splitlines()
                if label in x and re.search(r"\+\d+", x.split(label, 1)[1])
            )
            cells = re.findall(r"\+\d+", line.split(label, 1)[1])
            assert cells == [f"+{row[key]}" for key, _ in COLUMNS], line
        await pilot.press("enter")  # back to the table
        await until(pilot, lambda: not isinstance(app.screen, ResultScreen) and app.settled)
        server = await client.get_game(game.game_id, game.seat, game.token)
        table = screen_text(app)
        assert "eclipses scored: 1" in table or server.state["eclipses"] > 1
        vp_on_screen = int(re.findall(r"\b\d+\b", row_of(table, "(you)").split("(you)")[1])[0])
        assert vp_on_screen == app.frame.view.state["players"][0]["vp"] if app.frame else False
        assert any("eclipse 1 scored" in line for line in app.log_panel.recent)
