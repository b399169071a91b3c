"""``teoti_client.TeotiClient`` against a real server: results, events and refusals.

The standalone client decodes refusals from the ErrorInfo alone (no server code): each
error kind the README lists arrives as its own ``GameServiceError`` subclass with the
status code, the reason and the server's message; events arrive as ``Event``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from teoti_client import (
    Event,
    GameNotFound,
    GameServiceError,
    InvalidArgument,
    NotAuthorized,
    RuleViolation,
    SeatInfo,
    TeotiClient,
    VersionConflict,
)

from tests.game_samples import game_names
from tests.nim import NimRuleset


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


async def _nim_game(client: TeotiClient) -> tuple[str, str]:
    created = await client.create_game(
        [SeatInfo("human", "ann", token="ann-token-0123456789abcdef"), SeatInfo("human", "bob")],
        ruleset="nim",
        options={"max_take": 2},
    )
    return created.game_id, created.seat_tokens[0]


async def test_a_game_played_through_the_client(client: TeotiClient) -> None:
    game_id, token = await _nim_game(client)
    view = await client.get_game(game_id)
    assert view.ruleset == "nim" and [s.name for s in view.seats] == ["ann", "bob"]
    seat = view.seats_to_act[0]
    assert seat == 0  # nim: seat 0 starts
    moves = await client.legal_actions(game_id, 0, token)
    assert moves and all(isinstance(m.action, dict) for m in moves)
    result = await client.submit_action(game_id, 0, token, moves[0].action, view.version)
    assert result.version > view.version
    events = await client.events(game_id)
    assert all(isinstance(e, Event) for e in events)
    assert [e.version for e in events] == list(range(1, result.version + 1))
    assert events[0].type == "GameCreated" and events[0].seat == -1
    assert not any(e.redacted for e in events)  # shown exactly as stored and chained
    assert events[-1].seat == 0
    # Each event in words, seat 0 by its name (issue 33).
    assert events[0].description == "Game created (nim, 2 seats)"
    assert events[-1].description.startswith("ann takes"), events[-1]
    assert (await client.verify(game_id)).ok


async def test_refusals_arrive_as_their_own_error_classes(client: TeotiClient) -> None:
    game_id, token = await _nim_game(client)
    with pytest.raises(NotAuthorized) as denied:
        await client.legal_actions(game_id, 0, "not-ann")
    assert denied.value.code == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(GameNotFound) as missing:
        await client.get_game("no-such-game")
    assert missing.value.code == grpc.StatusCode.NOT_FOUND
    with pytest.raises(RuleViolation) as refused:
        await client.submit_action(game_id, 0, token, {"take": 9})
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.reason == "nim.take_range" and str(refused.value)
    with pytest.raises(VersionConflict) as stale:
        await client.submit_action(game_id, 0, token, {"take": 1}, expected_version=1)
    assert stale.value.expected == 1 and stale.value.actual > 1
    with pytest.raises(InvalidArgument):
        await client.create_game([SeatInfo("human", "x")], ruleset="no-such-ruleset")
    assert issubclass(InvalidArgument, GameServiceError)


async def test_an_outage_stays_a_grpc_error() -> None:
    async with TeotiClient("127.0.0.1:1", timeout_s=2) as offline:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await offline.get_game("g")
    assert error.value.code() in {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


async def test_rulesets_and_their_seat_counts_come_from_the_server(client: TeotiClient) -> None:
    from services.engine.domain.ruleset import info_of
    from services.engine.domain.rulesets import default_registry

    listed = {r.name: r for r in await client.list_rulesets()}
    registry = default_registry()
    assert set(listed) == set(registry.names()) | {"nim"}
    assert sum(r.is_default for r in listed.values()) == 1
    for name in registry.names():
        info = info_of(registry.get(name))
        entry = listed[name]
        assert (entry.title, entry.min_seats, entry.max_seats) == (
            info.title,
            info.min_seats,
            info.max_seats,
        )
        if info.solo is None:
            assert entry.solo_seats == 0 and entry.solo_options == {}
        else:
            assert entry.solo_options == dict(info.solo.options)
            assert (entry.solo_seats, entry.solo_opponent) == (info.solo.seats, info.solo.opponent)
    # The same metadata refuses a seat count at creation, naming the rule (every game).
    for name in game_names():
        too_many = listed[name].max_seats + 1
        with pytest.raises(InvalidArgument) as refused:
            await client.create_game(
                [SeatInfo("bot", f"bot {i}") for i in range(too_many)], ruleset=name
            )
        assert refused.value.reason == "seat_count" and str(too_many) in str(refused.value)


async def test_a_seat_follows_the_others_moves_with_its_view(client: TeotiClient) -> None:
    ann, bob = "ann-token-0123456789abcdef", "bob-token-0123456789abcdef"
    created = await client.create_game(
        [SeatInfo("human", "ann", token=ann), SeatInfo("human", "bob", token=bob)],
        ruleset="nim",
        options={"max_take": 2},
    )
    moved = await client.play(created.game_id, 0, ann, {"take": 1})
    updates = client.watch_as_seat(created.game_id, 1, bob)
    seen = []
    async for update in updates:
        seen.append(update)
        if update.event.version == moved.version:
            break
    await updates.aclose()
    assert [u.event.version for u in seen] == list(range(1, moved.version + 1))
    last = seen[-1]  # the last event of the batch carries bob's view at its version
    assert last.game is not None and last.game.version == moved.version
    assert list(last.game.seats_to_act) == [1]
    expected = await client.legal_actions(created.game_id, 1, bob)
    assert [m.action for m in last.legal_actions] == [m.action for m in expected] != []
    with pytest.raises(NotAuthorized):
        async for _ in client.watch_as_seat(created.game_id, 1, "not-bob-token-0123456789"):
            pass
