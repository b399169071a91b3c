"""The terminal table plays any registered ruleset (issue 14): Archaeology with its own
expedition and museum panels, Nim on the generic layout, replays of both to their final
scores, and ``teoti play``/``watch`` take their seat counts from the ruleset's RulesetInfo.

The apps run against the real embedded stack; the tests press keys and read the screen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services import cli
from services.app import Stack, StoreSettings, all_in_one
from services.cli import commands, games
from services.client import TeotiClient
from services.engine.domain.ruleset import info_of
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.tui import launch
from services.tui.app import LiveApp, ReplayApp
from services.tui.backend import Session, create_game
from services.tui.capture import screen_text
from services.tui.kit import TableKit, kit_for
from services.tui.timeline import Timeline
from services.tui.widgets.scoring import ResultScreen
from tests.nim import NimRuleset
from tests.tui.conftest import until
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log
from tests.unit.test_fixture_logs import registry as fixture_registry


def _my_turn(app: LiveApp) -> bool:
    return bool(
        app.frame
        and app.frame.legal
        and app.settled
        and app.actions.highlighted_choice is not None
        and not app.frame.view.finished
    )


async def test_archaeology_moves_through_the_table_update_the_log(client: TeotiClient) -> None:
    info = info_of(default_registry().get("archaeology"))
    game = await create_game(client, "ann", players=3, ruleset="archaeology", info=info)
    assert not game.solo  # Archaeology has no solo mode: two bot seats
    app = LiveApp(Session(client, game.game_id, game.seat, game.token))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: _my_turn(app) or bool(app.frame and app.frame.view.finished))
        assert app.kit is not None and app.kit.title == info.title
        screen = screen_text(app)
        assert "Expedition" in screen and "Your hand:" in screen and "Market:" in screen
        assert max(len(line) for line in screen.splitlines()) <= 80
        view = await client.get_game(game.game_id, game.seat, game.token)
        assert [s.name for s in view.seats] == ["ann", "Bot 1", "Bot 2"]

        mine_before = 0
        for _ in range(4):  # a few of the person's decisions, each the highlighted choice
            await until(pilot, lambda: _my_turn(app) or bool(app.frame.view.finished), 90)
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
            await until(pilot, lambda: _my_turn(app) or bool(app.frame and app.frame.view.finished))
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


@pytest.fixture
def _quiet_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """main() runs in this process: no process-wide logging set-up, files under tmp."""
    monkeypatch.setattr(commands, "configure_logging", lambda level: None)
    monkeypatch.setattr(launch, "log_to_file", lambda path, level="INFO": None)
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("_quiet_cli")
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["play", "--ruleset", "archaeology", "--players", "6"],
            "--players: Archaeology: The New Expedition seats 2 to 5 players, not 6",
        ),
        (
            ["play", "--ruleset", "archaeology", "--solo"],
            "--solo: Archaeology: The New Expedition has no solo mode",
        ),
        (["play", "--players", "5"], "--players: Teotihuacan: City of Gods seats 2 to 4"),
        (
            ["watch", "--ruleset", "archaeology", "--players", "1"],
            "--players: Archaeology: The New Expedition seats 2 to 5 players, not 1",
        ),
    ],
)
def test_the_cli_refuses_a_seat_count_the_game_does_not_have(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"teoti {argv[0]}: error: {expected}"), err
    assert len(err.strip().splitlines()) == 1


def test_seat_counts_and_solo_come_from_the_ruleset() -> None:
    registry = default_registry()
    teotihuacan = info_of(registry.get("teotihuacan"))
    archaeology = info_of(registry.get("archaeology"))
    assert teotihuacan.solo is not None
    assert games.table_seats(teotihuacan, None, False) == (teotihuacan.solo.seats, True)
    assert games.table_seats(teotihuacan, 3, False) == (3, False)
    assert games.table_seats(archaeology, None, False) == (max(2, archaeology.min_seats), False)
    for seats in range(archaeology.min_seats, archaeology.max_seats + 1):
        assert games.table_seats(archaeology, seats, False) == (seats, False)


@pytest.mark.parametrize("stem", ["archaeology_3_pyramid", "nim_2_bots"])
async def test_replay_any_game_to_its_final_scores(stem: str) -> None:
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
