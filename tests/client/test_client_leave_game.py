"""The Python client's resign and claim_seat_for_bot (issue 32) against a real server,
and the README's "Leaving a game" example run as written."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from teoti_client import NotAuthorized, Resigned, RuleViolation, SeatInfo, TeotiClient

from tests.nim import NimRuleset

README = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"


@pytest.fixture
async def client(redis_url: str, key_prefix: str) -> AsyncIterator[TeotiClient]:
    from services.app import StoreSettings, all_in_one
    from services.engine.domain.rulesets import default_registry

    registry = default_registry()
    registry.register("nim", NimRuleset)
    async with (
        all_in_one(redis_url, store=StoreSettings(key_prefix), registry=registry) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}") as connected,
    ):
        yield connected


async def test_resign_returns_the_outcome_and_ends_a_two_seat_game(client: TeotiClient) -> None:
    game = await client.create_game(
        [SeatInfo("human", "ann"), SeatInfo("human", "bob")], ruleset="nim"
    )
    with pytest.raises(NotAuthorized):
        await client.resign(game.game_id, 0, game.seat_tokens[1])

    resigned = await client.resign(game.game_id, 0, game.seat_tokens[0], command_id="r")

    assert isinstance(resigned, Resigned)
    assert resigned.outcome == "game_ended" and resigned.finished
    view = await client.get_game(game.game_id)
    assert view.finished and view.ranking == (1, 0)
    assert view.seats_resigned == (0,) and view.seats_out == (0,)
    with pytest.raises(RuleViolation) as over:
        await client.resign(game.game_id, 1, game.seat_tokens[1])
    assert over.value.reason == "game_over"
    assert (await client.verify(game.game_id)).ok


async def test_the_readme_example_runs_as_written(
    client: TeotiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    match = re.search(r"```python leave\n(.*?)```", README.read_text("utf-8"), re.S)
    assert match is not None, "the client README shows leaving a game"
    namespace: dict[str, object] = {}
    exec(compile(match.group(1), str(README), "exec"), namespace)
    await namespace["resign_example"](client)  # type: ignore[operator]
    printed = capsys.readouterr().out.splitlines()  # the server's log lines are there too
    assert printed.index("seat_not_absent") < printed.index("forfeited False")
