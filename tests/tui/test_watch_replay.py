"""Watching a running bot game to its end, then stepping through it as a replay."""

from __future__ import annotations

import json
import re

import pytest

from services.client import SeatInfo, TeotiClient
from services.engine.domain.rulesets import default_registry
from services.tui.app import LiveApp, ReplayApp
from services.tui.backend import Session
from services.tui.capture import screen_text
from services.tui.timeline import Timeline
from services.tui.widgets.common import LETTERS
from services.tui.widgets.scoring import ResultScreen
from tests.tui.conftest import SCREEN, until


@pytest.mark.slow  # 10-16 s: run by .ci/run's slow step, not the default run
async def test_watch_a_bot_game_to_its_end(client: TeotiClient) -> None:
    created = await client.create_game([SeatInfo("bot", "Ix"), SeatInfo("bot", "Ek")])
    app = LiveApp(Session(client, created.game_id))
    async with app.run_test(size=SCREEN) as pilot:
        await until(pilot, lambda: app.frame is not None)
        assert "watching (read-only)" in screen_text(app)
        assert "Teotibot's action pyramid" not in screen_text(app)  # not a solo game
        # A whole bot game in this process: generous, as a loaded 2-core CI box is slow.
        await until(pilot, lambda: app.final_shown, within_s=300)
        await until(pilot, lambda: "Final scores" in screen_text(app))
        final = await client.get_game(created.game_id)
        assert final.finished
        screen = screen_text(app)
        winner = final.seats[final.ranking[0]].name
        assert f"{winner} wins!" in screen
        for place, seat in enumerate(final.ranking, start=1):
            name = f"{LETTERS[seat]} {final.seats[seat].name}"
            row = rf"│\s+{place} │ {name}\s+│\s+{final.scores[seat]} │"
            assert re.search(row, screen), (row, screen)
        assert "Eclipse 1 scored" in screen and "Eclipse 3 scored" in screen
        assert len(app.scorings) == 3
        assert any("the game ends" in line for line in app.log_panel.recent)
        # Read-only: a choice key is refused locally, nothing is sent.
        await pilot.press("escape", "u")
        await until(pilot, lambda: "no seat" in app.message.plain)
        assert app.session.submitted == 0


@pytest.mark.slow
async def test_replay_steps_forwards_and_backwards(client: TeotiClient) -> None:
    created = await client.create_game([SeatInfo("bot", "Ix"), SeatInfo("bot", "Ek")])
    async for _ in client.watch(created.game_id):
        pass
    final = await client.get_game(created.game_id)
    timeline = Timeline(created.game_id, await client.events(created.game_id), default_registry())
    last = timeline.step(timeline.last_version).view
    assert json.dumps(last.state, sort_keys=True) == json.dumps(final.state, sort_keys=True)

    app = ReplayApp(timeline)
    async with app.run_test(size=SCREEN) as pilot:
        await pilot.pause()
        assert app.version == timeline.first_version
        assert f"version {app.version} of {timeline.last_version}" in screen_text(app)
        await pilot.press("right", "right", "right")
        assert app.version == timeline.first_version + 3
        await pilot.press("left")
        assert app.version == timeline.first_version + 2
        await pilot.press("]")
        event = timeline.event(app.version)
        assert event is not None and event.type in ("RoundEnded", "EclipseTriggered")
        await pilot.press("end")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        await until(pilot, lambda: "Final scores" in screen_text(app))
        assert app.version == final.version
        await pilot.press("escape", "[")
        assert app.version < final.version
        await pilot.press("home")
        assert app.version == timeline.first_version
        assert app.frame is not None and app.frame.view.state["eclipses"] == 0
