"""Resigning from the terminal table (issue 32): R asks first (n keeps playing), y
resigns, and a 2-player game then ends with the person ranked last."""

from __future__ import annotations

import pytest

from services.client import TeotiClient
from services.tui.app import LiveApp
from services.tui.backend import Session, create_game
from services.tui.capture import screen_text
from services.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import until


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_r_asks_then_resigns_and_the_game_ends(client: TeotiClient) -> None:
    game = await create_game(client, "ann", players=2, solo=False)
    app = LiveApp(Session(client, game.game_id, game.seat, game.token))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.frame is not None and app.settled)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Resign this game?" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not (await client.get_game(game.game_id)).finished

        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: app.frame is not None and app.frame.view.finished)

        view = await client.get_game(game.game_id)
        assert view.finished and view.ranking[-1] == game.seat
        assert view.seats_resigned == (game.seat,)
        assert "You resigned: the game is over." in str(app.message)
