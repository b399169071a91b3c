"""``teoti replay --step FILE``: stepping through an exported log, with no server at all."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from services.engine.adapters.log_files import read_public_log
from services.engine.domain.public_log import LogHeader, write_public_log
from services.engine.domain.rulesets import default_registry
from services.tui.app import ReplayApp
from services.tui.capture import screen_text
from services.tui.timeline import Timeline
from services.tui.widgets.scoring import ResultScreen
from tests.tui.conftest import SCREEN, until
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_step_through_an_exported_file_to_the_final_scores(tmp_path: Path) -> None:
    path = next(p for p in LOGS if p.name.startswith("first_game_4_bots"))
    expected = expected_of(path)
    events = load_log(path)
    header = LogHeader(
        expected["game_id"],
        "teotihuacan",
        True,
        expected["version"],
        expected["head_hash"],
        len(events),
    )
    text = io.StringIO()
    write_public_log(text, header, events)
    exported = tmp_path / "game.jsonl"
    exported.write_text(text.getvalue())

    public = read_public_log(exported)  # what `teoti replay --step FILE` reads
    timeline = Timeline(public.header.game_id, list(public.events), default_registry())
    app = ReplayApp(timeline)
    async with app.run_test(size=SCREEN) as pilot:
        await pilot.pause()
        assert app.version == timeline.first_version
        await pilot.press("right", "right")
        assert app.version == timeline.first_version + 2
        await pilot.press("end")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        await until(pilot, lambda: "Final scores" in screen_text(app))
        assert app.version == expected["version"]
        winner = expected["seats"][expected["result"]["ranking"][0]]["name"]
        assert f"{winner} wins!" in screen_text(app)
