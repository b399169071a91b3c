"""The public API through TeotiClient against a real server and Redis: seat tokens and
views, JoinGame, ListGames paging and filters, GetGameAt, ListEvents paging, VerifyGame,
rate and size limits, deadlines."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import GatewayLimits, Stack, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.domain.errors import InvalidArgument, NotAuthorized, RuleViolation
from services.engine.domain.game_seats import hash_token
from services.engine.domain.rulesets import RulesetRegistry, default_ruleset
from services.rpc.limits import PeerRateLimiter
from services.tui.launch import seat_for_token


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[TeotiClient]:
    async with TeotiClient(f"127.0.0.1:{stack.port}") as c:
        yield c


HUMANS = [SeatInfo("human", "ann"), SeatInfo("human", "bob")]


async def test_only_the_seats_token_may_act_or_see_its_view(client: TeotiClient) -> None:
    created = await client.create_game(HUMANS, options={"max_take": 2})
    tokens = created.seat_tokens
    assert set(tokens) == {0, 1} and tokens[0] != tokens[1]
    public = await client.get_game(created.game_id)
    assert not any(s.open for s in public.seats)
    assert tokens[0] not in str(public)
    with pytest.raises(NotAuthorized):
        await client.submit_action(created.game_id, 0, tokens[1], {"take": 1})
    with pytest.raises(NotAuthorized):
        await client.submit_action(created.game_id, 0, "", {"take": 1})
    with pytest.raises(NotAuthorized):
        await client.get_game(created.game_id, seat=0, token="nope")
    with pytest.raises(NotAuthorized):
        await client.legal_actions(created.game_id, 0, tokens[1])
    own = await client.get_game(created.game_id, seat=0, token=tokens[0])
    assert own.state == public.state  # Nim hides nothing
    moves = await client.legal_actions(created.game_id, 0, tokens[0])
    assert [m.action for m in moves] == [{"take": 1}, {"take": 2}]
    done = await client.submit_action(created.game_id, 0, tokens[0], {"take": 1}, 2, "x")
    assert done.version == 3


async def test_token_in_metadata_and_bot_seats_refuse_everyone(stack: Stack) -> None:
    pb = game_service_pb2
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(
            pb.CreateGameRequest(
                seats=[
                    pb.Seat(
                        kind=pb.SEAT_KIND_HUMAN, name="ann", token="my-secret-0123456789abcdef"
                    ),
                    pb.Seat(kind=pb.SEAT_KIND_BOT, name="bot"),
                ]
            )
        )
        assert [(t.seat, t.token) for t in created.seat_tokens] == [
            (0, "my-secret-0123456789abcdef")
        ]
        request = pb.SubmitActionRequest(game_id=created.game_id, seat=0, action_json='{"take":1}')
        reply = await stub.SubmitAction(
            request, metadata=[("authorization", "Bearer my-secret-0123456789abcdef")]
        )
        assert reply.version == 3
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=created.game_id, seat=1, action_json='{"take":1}', seat_token="x"
                )
            )
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_open_seats_are_joined_once(client: TeotiClient) -> None:
    created = await client.create_game([SeatInfo("human", "ann"), SeatInfo("human", "", open=True)])
    assert set(created.seat_tokens) == {0}
    game = created.game_id
    view = await client.get_game(game)
    assert [s.open for s in view.seats] == [False, True]
    open_page, _ = await client.list_games(status=3)
    assert game in open_page
    token = await client.join_game(game, 1, "bob", token="bob-token-0123456789abcdef")
    assert token == "bob-token-0123456789abcdef"
    assert (
        await client.join_game(game, 1, "bob", token="bob-token-0123456789abcdef")
        == "bob-token-0123456789abcdef"
    )  # retry
    with pytest.raises(RuleViolation) as info:
        await client.join_game(game, 1, "eve")
    assert info.value.rule == "seat_not_open"
    with pytest.raises(RuleViolation):
        await client.join_game(game, 0, "eve")
    view = await client.get_game(game)
    assert [s.name for s in view.seats] == ["ann", "bob"] and not view.seats[1].open
    assert game not in (await client.list_games(status=3))[0]
    await client.submit_action(game, 0, created.seat_tokens[0], {"take": 1})
    await client.submit_action(game, 1, token, {"take": 1})


async def test_no_token_derived_value_is_in_the_log_or_any_reply(
    stack: Stack, client: TeotiClient
) -> None:
    """Seat tokens and their hashes never enter the log (the binding lives in the game's
    service-only ``tokens`` key), and no reply shows them; the log chains as read."""
    ann, bob = "ann-secret-0123456789abcdef", "bob-secret-0123456789abcdef"
    created = await client.create_game(
        [SeatInfo("human", "ann", token=ann), SeatInfo("human", "", open=True)]
    )
    game = created.game_id
    await client.join_game(game, 1, "bob", token=bob)
    derived = {ann, bob, hash_token(ann), hash_token(bob)}
    stored = await stack.store.read(game)
    assert not any(d in str([e.payload for e in stored]) for d in derived)
    assert (await stack.store.read_private(game)).token_hashes == {
        0: hash_token(ann),
        1: hash_token(bob),
    }

    pb = game_service_pb2
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        replies = [
            await stub.GetGame(pb.GetGameRequest(game_id=game)),
            await stub.GetGame(pb.GetGameRequest(game_id=game, seat=0, seat_token=ann)),
            await stub.GetGameAt(pb.GetGameAtRequest(game_id=game, version=2)),
            await stub.ListGames(pb.ListGamesRequest(page_size=100)),
            await stub.ListEvents(pb.ListEventsRequest(game_id=game)),
        ]
    for reply in replies:
        assert not any(d in str(reply) for d in derived), reply
    assert not any(e.redacted for e in replies[-1].events)
    assert (await client.verify(game)).ok


async def test_a_weak_client_chosen_token_is_refused_naming_the_rule(
    client: TeotiClient,
) -> None:
    """RULES: seat_token_strength (services/engine/domain/game_seats.py): 22+ characters."""
    for weak in ("ann-secret", "x" * 21, "has space 0123456789abcdef"):
        with pytest.raises(InvalidArgument, match="seat_token_strength"):
            await client.create_game([SeatInfo("human", "ann", token=weak)])
    created = await client.create_game(
        [SeatInfo("human", "ann", token="x" * 22), SeatInfo("human", "", open=True)]
    )
    with pytest.raises(InvalidArgument, match="seat_token_strength"):
        await client.join_game(created.game_id, 1, "bob", token="bob-secret")


async def test_a_token_finds_its_seat_or_claims_an_open_one(client: TeotiClient) -> None:
    """``teoti play --join``: with hashes hidden, the seat is found by asking its view."""
    created = await client.create_game(
        [
            SeatInfo("human", "ann", token="ann-secret-0123456789abcdef"),
            SeatInfo("human", "", open=True),
        ]
    )
    game = created.game_id
    assert await seat_for_token(client, game, "ann-secret-0123456789abcdef", None) == (
        0,
        "ann-secret-0123456789abcdef",
    )
    # claims the open seat, and then holds it
    assert await seat_for_token(client, game, "bob-secret-0123456789abcdef", None) == (
        1,
        "bob-secret-0123456789abcdef",
    )
    assert await seat_for_token(client, game, "bob-secret-0123456789abcdef", None) == (
        1,
        "bob-secret-0123456789abcdef",
    )
    with pytest.raises(LookupError, match="no seat is open"):
        await seat_for_token(client, game, "eve-secret-0123456789abcdef", None)
    with pytest.raises(LookupError, match=r"seat 1 of game .* is taken"):
        await seat_for_token(client, game, "eve-secret-0123456789abcdef", 1)


async def test_joining_without_a_token_makes_one_that_holds_the_seat(
    client: TeotiClient,
) -> None:
    """``teoti play --join G --seat 1`` without ``--token``: the token is returned, works."""
    created = await client.create_game(
        [
            SeatInfo("human", "ann", token="ann-secret-0123456789abcdef"),
            SeatInfo("human", "", open=True),
        ]
    )
    seat, token = await seat_for_token(client, created.game_id, "", 1, "bob")
    assert seat == 1 and len(token) >= 32
    view = await client.get_game(created.game_id, 1, token)  # the token opens the seat's view
    assert view.seats[1].name == "bob" and not view.seats[1].open


async def test_a_retried_join_never_answers_with_a_token_that_does_not_work(
    client: TeotiClient,
) -> None:
    seats = [SeatInfo("human", "ann"), SeatInfo("human", "", open=True)]
    created = await client.create_game(seats, command_id="create-join-retry")
    game = created.game_id
    token = await client.join_game(game, 1, "bob", command_id="join-1")  # server-made token
    eve = {"token": "eve-secret-0123456789abcdef"}
    for retry in ({}, eve):  # a fresh token again, or another one
        with pytest.raises(RuleViolation) as refused:
            await client.join_game(game, 1, "bob", command_id="join-1", **retry)
        assert refused.value.rule == "command_id_used"
    # The game's create command id is the creator's, not a joiner's (ids are scoped to
    # their sender): this join is judged as a new one, and seat 0 is held.
    with pytest.raises(RuleViolation) as refused:
        await client.join_game(game, 0, "eve", command_id="create-join-retry")
    assert refused.value.rule == "seat_not_open"
    assert await client.join_game(game, 1, "bob", token, command_id="join-1") == token
    await client.submit_action(game, 0, created.seat_tokens[0], {"take": 1})
    await client.submit_action(game, 1, token, {"take": 1})  # bob's first token still works


async def test_list_games_pages_and_filters(client: TeotiClient) -> None:
    games = [(await client.create_game(HUMANS)).game_id for _ in range(5)]
    seen: list[str] = []
    token = ""
    while True:
        page, token = await client.list_games(page_size=2, page_token=token)
        assert len(page) <= 2
        seen += page
        if not token:
            break
    assert seen == games  # oldest first, each once, across shards
    assert (await client.list_games(ruleset=default_ruleset()))[0] == []
    assert (await client.list_games(status=2))[0] == []
    with pytest.raises(InvalidArgument):
        await client.list_games(page_token="garbage")
    with pytest.raises(InvalidArgument):
        await client.list_games(page_size=1000)


async def test_events_read_in_words_with_seat_names_outside_the_hash(stack: Stack) -> None:
    """ListEvents and WatchGame fill ``Event.description`` (issue 33): the ruleset's
    sentence with seats named; the hash is the stored event's, words are in no hash."""
    pb = game_service_pb2
    ann = "ann-secret-0123456789abcdef"
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(
            pb.CreateGameRequest(
                ruleset="nim",
                seats=[
                    pb.Seat(kind=pb.SEAT_KIND_HUMAN, name="ann", token=ann),
                    pb.Seat(kind=pb.SEAT_KIND_BOT, name="Nimbot"),
                ],
            )
        )
        game = created.game_id
        await stub.SubmitAction(
            pb.SubmitActionRequest(game_id=game, seat=0, seat_token=ann, action_json='{"take":1}')
        )
        listed = (await stub.ListEvents(pb.ListEventsRequest(game_id=game))).events
        words = [e.description for e in listed]
        assert words[0] == "Game created (nim, 2 seats)" and "ann takes 1" in words, words
        assert all(words) and not any("seat 0" in w for w in words), words
        stored = await stack.store.read(game)
        assert [e.hash for e in listed] == [e.hash for e in stored[: len(listed)]]
        watched = []
        async for reply in stub.WatchGame(pb.WatchGameRequest(game_id=game, from_version=0)):
            watched.append(reply.event)
            if len(watched) == len(listed):
                break
        assert [e.description for e in watched] == words


async def test_history_paging_and_verification(client: TeotiClient) -> None:
    created = await client.create_game(HUMANS, options={"max_take": 1})
    game, tokens = created.game_id, created.seat_tokens
    for turn in range(4):
        await client.submit_action(game, turn % 2, tokens[turn % 2], {"take": 1})
    at_start = await client.get_game_at(game, 2)
    now = await client.get_game(game)
    assert at_start.version == 2 and now.version == 6
    assert at_start.state["pile"] == now.state["pile"] + 4
    with pytest.raises(InvalidArgument):
        await client.get_game_at(game, 99)
    events = await client.events(game)
    assert [e.version for e in events] == list(range(1, 7))
    assert all(len(e.hash) == 64 for e in events)
    assert events[-1].hash == now.head_hash
    report = await client.verify(game)
    assert report.ok and report.events == 6 and not report.seed_revealed


async def test_rate_limit_per_connection(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    limiter = PeerRateLimiter(rate=1, burst=3)
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix),
        limits=GatewayLimits(limiter=limiter),
        registry=registry,
        default_ruleset="nim",
    ) as stack:
        pb = game_service_pb2
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
            codes = []
            for _ in range(6):
                try:
                    await stub.ListGames(pb.ListGamesRequest())
                    codes.append("OK")
                except grpc.aio.AioRpcError as error:
                    codes.append(error.code().name)
        assert codes[:3] == ["OK"] * 3 and "RESOURCE_EXHAUSTED" in codes[3:]


async def test_oversized_requests_and_deadlines(stack: Stack) -> None:
    pb = game_service_pb2
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        stub: Any = game_service_pb2_grpc.GameServiceStub(channel)
        huge = pb.SubmitActionRequest(game_id="g", seat=0, action_json="x" * 1_000_000)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.SubmitAction(huge)
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        game = await stub.CreateGame(
            pb.CreateGameRequest(seats=[pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n) for n in "ab"])
        )
        # A watcher of an unfinished game waits for events until its deadline.
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in stub.WatchGame(pb.WatchGameRequest(game_id=game.game_id), timeout=0.5):
                pass
        assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert (await stub.GetGame(pb.GetGameRequest(game_id=game.game_id))).version == 2
        await asyncio.sleep(0)
