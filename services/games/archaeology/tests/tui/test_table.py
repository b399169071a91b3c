"""Archaeology on the terminal table (issue 14): its own expedition and museum panels,
moves chosen on the table update the log in game words, and a recorded game replays
to its final scores.

The app runs against the real embedded stack; the test presses keys and reads the screen.
"""

from __future__ import annotations

from services.client import TeotiClient
from services.engine.domain.ruleset import info_of
from services.engine.domain.rulesets import default_registry
from services.tui.app import LiveApp
from services.tui.backend import Session, create_game
from services.tui.capture import screen_text
from tests.tui.conftest import my_turn, until
from tests.tui.test_any_ruleset import replay_to_its_final_scores


async def test_archaeology_moves_through_the_table_update_the_log(client: TeotiClient) -> None:
    info = info_of(default_registry().get("archaeology"))
    game = await create_game(client, "ann", players=3, ruleset="archaeology", info=info)
    assert not game.solo  # Archaeology has no solo mode: two bot seats
    app = LiveApp(Session(client, game.game_id, game.seat, game.token))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(app) or bool(app.frame and app.frame.view.finished))
        assert app.kit is not None and app.kit.title == info.title
        screen = screen_text(app)
        assert "Expedition" in screen and "Your hand:" in screen and "Market:" in screen
        assert max(len(line) for line in screen.splitlines()) <= 80
        view = await client.get_game(game.game_id, game.seat, game.token)
        assert [s.name for s in view.seats] == ["ann", "Bot 1", "Bot 2"]

        mine_before = 0
        for _ in range(4):  # a few of the person's decisions, each the highlighted choice
            await until(pilot, lambda: my_turn(app) or bool(app.frame.view.finished), 90)
            if app.frame is None or app.frame.view.finished:
                break
            chosen = app.actions.highlighted_choice
            assert chosen is not None
            legal_words = {m.description for m in app.frame.legal}
            assert chosen.words in legal_words  # the ruleset's describe_action words
            mine_before = sum(1 for line in app.log_panel.recent if line.startswith("ann "))
            version = app.frame.version
            await pilot.press("enter")
            await until(pilot, lambda v=version: app.frame is not None and app.frame.version > v)
            # The log shows the person's move in game words, with the seat's name.
            await until(
                pilot,
                lambda n=mine_before: (
                    sum(1 for x in app.log_panel.recent if x.startswith("ann ")) > n
                ),
            )
        assert all("seat 0" not in line for line in app.log_panel.recent)
        await pilot.press("l")
        await pilot.pause()
        last = app.log_panel.recent[-1]
        assert last.split()[0] in screen_text(app)
        # The museum view (key s) lists every seat with its points and sales.
        await pilot.press("s")
        await pilot.pause()
        museum = screen_text(app)
        assert "Museum" in museum and "points" in museum
        for name in ("ann (you)", "Bot 1", "Bot 2"):
            assert name in museum


async def test_replay_an_archaeology_game_to_its_final_scores() -> None:
    await replay_to_its_final_scores("archaeology_3_pyramid")
