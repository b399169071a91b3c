"""teoti_client's time controls against a real server and Redis: create_game with
clocks, GetGame's clocks as the client shows them, refusals of a bad control."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from services.app import StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient, TimeControl
from services.engine.domain.errors import InvalidArgument
from services.engine.domain.rulesets import RulesetRegistry


@pytest.fixture
async def client(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> AsyncIterator[TeotiClient]:
    async with (
        all_in_one(
            redis_url,
            store=StoreSettings(key_prefix, shards=4),
            registry=registry,
            default_ruleset="nim",
        ) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}") as c,
    ):
        yield c


async def test_a_clocked_game_shows_each_human_seats_clock(client: TeotiClient) -> None:
    control = TimeControl(base_ms=60_000, increment_ms=2_000, timeout_policy="forfeit")
    before_ms = int(time.time() * 1000)
    created = await client.create_game(
        [SeatInfo("human", "ann"), SeatInfo("human", "bob")],
        options={"max_take": 2},
        time_control=control,
    )
    game = await client.get_game(created.game_id)
    assert game.time_control == control
    assert [c.seat for c in game.clocks] == [0, 1]
    first = game.seats_to_act[0]
    running = game.clocks[first]
    assert running.remaining_ms == 60_000 and not running.forfeited and not running.taken_over
    assert running.deadline_ms is not None
    assert before_ms + 60_000 <= running.deadline_ms <= int(time.time() * 1000) + 60_000
    other = game.clocks[1 - first]
    assert other.deadline_ms is None and other.remaining_ms == 60_000

    await client.submit_action(created.game_id, first, created.seat_tokens[first], {"take": 1})
    after = await client.get_game(created.game_id)
    assert after.clocks[first].deadline_ms is None
    # Its budget was charged for the move and given the increment back.
    remaining = after.clocks[first].remaining_ms
    assert remaining is not None and 60_000 < remaining <= 62_000
    assert after.clocks[1 - first].deadline_ms is not None


async def test_a_game_without_clocks_shows_none(client: TeotiClient) -> None:
    created = await client.create_game([SeatInfo("human", "ann"), SeatInfo("bot", "b")])
    game = await client.get_game(created.game_id)
    assert game.time_control is None and game.clocks == ()


async def test_a_correspondence_deadline_and_refusals(client: TeotiClient) -> None:
    control = TimeControl(move_deadline_ms=86_400_000, timeout_policy="forfeit")
    created = await client.create_game(
        [SeatInfo("human", "ann"), SeatInfo("human", "bob")], time_control=control
    )
    game = await client.get_game(created.game_id)
    assert game.time_control == control
    assert all(c.remaining_ms is None for c in game.clocks)
    with pytest.raises(InvalidArgument, match="timeout_policy_unsupported"):  # Nim: no bot
        await client.create_game(
            [SeatInfo("human", "ann"), SeatInfo("human", "bob")],
            time_control=TimeControl(move_deadline_ms=86_400_000),
        )
    with pytest.raises(InvalidArgument, match="time_control_invalid"):  # under a second
        await client.create_game(
            [SeatInfo("human", "ann"), SeatInfo("human", "bob")],
            time_control=TimeControl(base_ms=10, timeout_policy="forfeit"),
        )
    with pytest.raises(InvalidArgument, match="time_control_invalid"):  # nothing to count
        await client.create_game(
            [SeatInfo("human", "ann"), SeatInfo("human", "bob")],
            time_control=TimeControl(timeout_policy="forfeit"),
        )
    with pytest.raises(KeyError):
        await client.create_game(
            [SeatInfo("human", "ann")], time_control=TimeControl(60_000, timeout_policy="nap")
        )
