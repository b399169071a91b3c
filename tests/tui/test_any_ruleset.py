"""The terminal table plays any registered ruleset (issue 14): Nim on the generic layout
and replayed to its final scores, and ``teoti play``/``watch`` take every game's seat
counts from its RulesetInfo. (Each game's own panels, replay and refusals are tested in
its folder: services/games/<name>/tests/tui/.)

The apps run against the real embedded stack; the tests press keys and read the screen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.cli import games
from services.client import TeotiClient
from services.engine.domain.ruleset import info_of
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.tui.app import LiveApp, ReplayApp
from services.tui.backend import Session, create_game
from services.tui.capture import screen_text
from services.tui.kit import TableKit, kit_for
from services.tui.timeline import Timeline
from services.tui.widgets.scoring import ResultScreen
from tests.game_samples import game_names
from tests.nim import NimRuleset
from tests.tui.conftest import my_turn, until
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log
from tests.unit.test_fixture_logs import registry as fixture_registry


@pytest.fixture
def nim_registry() -> RulesetRegistry:
    """The shipped rulesets plus the test Nim."""
    registry = default_registry()
    registry.register("nim", NimRuleset)
    return registry


@pytest.fixture
async def nim_stack(
    redis_url: str, key_prefix: str, nim_registry: RulesetRegistry
) -> AsyncIterator[Stack]:
    """The whole service, knowing Nim."""
    async with all_in_one(
        redis_url, store=StoreSettings(key_prefix), registry=nim_registry
    ) as running:
        yield running


async def test_nim_plays_on_the_generic_table(
    nim_stack: Stack, nim_registry: RulesetRegistry
) -> None:
    assert type(kit_for("nim", nim_registry)) is TableKit  # no kit of its own
    async with TeotiClient(f"127.0.0.1:{nim_stack.port}") as client:
        info = info_of(nim_registry.get("nim"))
        game = await create_game(client, "ann", players=2, ruleset="nim", info=info)
        app = LiveApp(Session(client, game.game_id, game.seat, game.token), registry=nim_registry)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: my_turn(app) or bool(app.frame and app.frame.view.finished))
            assert app.frame is not None
            pile = app.frame.view.state["pile"]
            screen = screen_text(app)
            # The generic view: the JSON view's keys in words, the seats, the choices.
            assert "Table" in screen and f"pile: {pile}" in screen and "max take: 3" in screen
            # Nim's actions ({"take": n}) have no type: one generic heading.
            assert "Your turn" in screen and "Choices" in screen and "take 1" in screen
            version = app.frame.version
            await pilot.press("enter")  # take the highlighted (first) choice
            await until(pilot, lambda: app.frame is not None and app.frame.version > version)
            await until(pilot, lambda: any(x.startswith("ann takes") for x in app.log_panel.recent))
            await pilot.press("l")
            await pilot.pause()
            assert "ann takes" in screen_text(app) and "What happened" in screen_text(app)
            # The footer offers no game-specific keys Nim does not have.
            assert "eclipse" not in screen_text(app) and "unlock" not in screen_text(app)


def test_seat_counts_and_solo_come_from_the_ruleset() -> None:
    registry = default_registry()
    for name in game_names():
        info = info_of(registry.get(name))
        if info.solo is not None:
            assert games.table_seats(info, None, False) == (info.solo.seats, True)
        else:
            assert games.table_seats(info, None, False) == (max(2, info.min_seats), False)
        for seats in range(info.min_seats, info.max_seats + 1):
            assert games.table_seats(info, seats, False) == (seats, False)


@pytest.mark.parametrize("stem", ["nim_2_bots"])
async def test_replay_any_game_to_its_final_scores(stem: str) -> None:
    await replay_to_its_final_scores(stem)


async def replay_to_its_final_scores(stem: str) -> None:
    """Step the fixture log ``stem`` on the replay table (a milestone key, the log panel)
    to its final scores; each game's folder replays one of its own logs with this."""
    path = next(p for p in LOGS if p.name.startswith(stem))
    expected = expected_of(path)
    rules = fixture_registry()
    timeline = Timeline(expected["game_id"], load_log(path), rules)
    app = ReplayApp(timeline)
    ruleset = rules.get(expected["ruleset"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.version == timeline.first_version
        await pilot.press("right", "right")
        assert app.version == timeline.first_version + 2
        await pilot.press("l")
        await pilot.pause()
        shown = app.log_panel.recent
        assert shown and all(not line.startswith("seat ") for line in shown)  # names, not numbers
        await pilot.press("]")  # the next of the ruleset's own milestones (or the end)
        event = timeline.event(app.version)
        assert event is not None
        assert ruleset.is_milestone(event.to_domain()) or app.version == timeline.last_version
        await pilot.press("end")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        await until(pilot, lambda: "Final scores" in screen_text(app))
        assert app.version == expected["version"]
        winner = expected["seats"][expected["result"]["ranking"][0]]["name"]
        assert f"{winner} wins!" in screen_text(app)
