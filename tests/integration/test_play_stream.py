"""GameService.Play (issue 16): one long-lived stream per player carries SubmitAction,
GetGame and ListLegalActions, each answered as its unary call would be (same responses,
same refusals with the same reasons), matched by request_id; a refusal answers one
request and the stream stays open. The limits of the unary face hold per message and
per stream, and the client reopens a broken stream. Through the real gRPC API and Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from teoti_client.client import MoveResult
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import GatewayLimits, Stack, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.domain.command_result import CommandResult
from services.engine.domain.errors import NotAuthorized, RuleViolation
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from services.gateway.server import create_server
from services.rpc.limits import DEFAULT_ADDRESS_FACTOR, ClientRateLimiter, PlayStreamLimit

pb = game_service_pb2
TOKENS = ("ann-t-0123456789abcdefghij", "bob-t-0123456789abcdefghij")
CODES = {code.value[0]: code for code in grpc.StatusCode}


@pytest.fixture
async def stub(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)


@contextlib.asynccontextmanager
async def limited_stack(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, **limits: Any
) -> AsyncIterator[Stack]:
    """A service like ``stack``'s with the given ``limits`` (GatewayLimits' limiter /
    play_streams fields; the others are the defaults)."""
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix, shards=4),
        registry=registry,
        default_ruleset="nim",
        limits=GatewayLimits(**limits),
    ) as stack:
        yield stack


@contextlib.asynccontextmanager
async def limited_stub(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, **limits: Any
) -> AsyncIterator[Any]:
    """A GameService stub on :func:`limited_stack`."""
    async with (
        limited_stack(redis_url, key_prefix, registry, **limits) as stack,
        grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel,
    ):
        yield game_service_pb2_grpc.GameServiceStub(channel)


async def new_game(stub: Any) -> str:
    """A two-seat Nim game (10..20 stones, take 1..3) with the seats' tokens TOKENS."""
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            seats=[
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n, token=t)
                for n, t in zip("ab", TOKENS, strict=True)
            ],
            options_json='{"max_take": 3}',
        )
    )
    return str(created.game_id)


async def pile(stub: Any, game: str) -> int:
    """Stones left in ``game`` now."""
    state = json.loads((await stub.GetGame(pb.GetGameRequest(game_id=game))).state_json)
    return int(state["pile"])


def submit(game: str, seat: int, take: int = 1, **fields: Any) -> Any:
    fields.setdefault("seat_token", TOKENS[seat])
    return pb.SubmitActionRequest(
        game_id=game, seat=seat, action_json=f'{{"take": {take}}}', return_view=True, **fields
    )


class Player:
    """One open Play call: ``ask`` sends requests and returns their responses by id."""

    def __init__(self, stub: Any, metadata: Any = None) -> None:
        self.call = stub.Play(metadata=metadata)
        self._next = 0

    async def ask(self, *requests: Mapping[str, Any]) -> list[Any]:
        """Send every request (PlayRequest fields) at once; the responses in their order."""
        ids = []
        for fields in requests:
            self._next += 1
            ids.append(self._next)
            await self.call.write(pb.PlayRequest(request_id=self._next, **fields))
        answers: dict[int, Any] = {}
        while len(answers) < len(ids):
            response = await asyncio.wait_for(self.call.read(), 10)
            assert response is not grpc.aio.EOF
            answers[response.request_id] = response
        return [answers[i] for i in ids]

    async def one(self, **fields: Any) -> Any:
        (response,) = await self.ask(fields)
        return response


def refusal(error: Any) -> tuple[grpc.StatusCode, str, str]:
    """(code, ErrorInfo reason, status message) of a PlayError."""
    status = status_pb2.Status.FromString(error.SerializeToString())  # wire-compatible
    info = error_details_pb2.ErrorInfo()
    assert status.details and status.details[0].Unpack(info)
    assert info.domain == "gameserver.v1" and info.metadata["message"]
    return CODES[status.code], info.reason, status.message


async def unary_refusal(call: Any) -> tuple[grpc.StatusCode, str, str]:
    """(code, reason, message) of a refused unary call, as :func:`refusal` reads them."""
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    error = raised.value
    details = dict(error.trailing_metadata())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(details)
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return error.code(), info.reason, status.message


async def test_a_whole_game_over_one_stream(stub: Any) -> None:
    game = await new_game(stub)
    stones = await pile(stub, game)
    player = Player(stub)
    seat, moves = 0, 0
    while True:
        reply = (await player.one(submit_action=submit(game, seat))).submit_action
        moves += 1
        # The same reply as the unary reads would give.
        view = await stub.GetGame(
            pb.GetGameRequest(game_id=game, seat=seat, seat_token=TOKENS[seat])
        )
        assert reply.game == view and reply.version == view.version
        if reply.game.finished:
            break
        seat = reply.game.seats_to_act[0]
    assert moves == stones  # one message per stone taken, all on one call
    listed = (
        await player.one(list_legal_actions={"game_id": game, "seat": 0, "seat_token": TOKENS[0]})
    ).list_legal_actions
    assert listed == await stub.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=game, seat=0, seat_token=TOKENS[0])
    )
    await player.call.done_writing()
    assert await player.call.read() is grpc.aio.EOF  # half-closed: the server ends OK
    assert await player.call.code() == grpc.StatusCode.OK


async def test_two_seats_interleave_on_one_stream(stub: Any) -> None:
    """Requests of both seats, reads among them, sent at once: each answered by its id."""
    game = await new_game(stub)
    stones = await pile(stub, game)
    player = Player(stub)
    first, second, public, legal = await player.ask(
        {"submit_action": submit(game, 0, 3, command_id="m1")},
        {"get_game": {"game_id": game, "seat": 1, "seat_token": TOKENS[1]}},
        {"get_game": {"game_id": game}},
        {"list_legal_actions": {"game_id": game, "seat": 1, "seat_token": TOKENS[1]}},
    )
    assert first.submit_action.first_version == first.submit_action.version
    assert public.get_game.game_id == game and second.get_game.game_id == game
    assert legal.list_legal_actions.version >= 2
    # Now alternate seats on the same stream, each with its own token.
    seat = 1
    for _ in range(4):
        reply = (await player.one(submit_action=submit(game, seat, 1))).submit_action
        assert reply.game.seats_to_act == [1 - seat]
        seat = 1 - seat
    assert await pile(stub, game) == stones - 3 - 4


async def test_refusals_answer_one_request_and_the_stream_stays_open(stub: Any) -> None:
    game = await new_game(stub)
    player = Player(stub)
    wrong_token = submit(game, 0, seat_token="x" * 30)
    not_your_turn = submit(game, 1)
    bad_json = pb.SubmitActionRequest(
        game_id=game, seat=0, seat_token=TOKENS[0], action_json='{"take": '
    )
    cases = [wrong_token, not_your_turn, bad_json, pb.SubmitActionRequest(game_id="nope")]
    for request in cases:
        streamed = refusal((await player.one(submit_action=request)).error)
        assert streamed == await unary_refusal(stub.SubmitAction(request)), request
    codes = [refusal((await player.one(submit_action=r)).error)[:2] for r in cases[:2]]
    assert codes == [
        (grpc.StatusCode.PERMISSION_DENIED, "bad_seat_token"),
        (grpc.StatusCode.FAILED_PRECONDITION, "not_your_turn"),
    ]
    empty = await player.one()  # a PlayRequest that asks nothing
    assert refusal(empty.error)[:2] == (grpc.StatusCode.INVALID_ARGUMENT, "malformed_request")
    # Still open: a good move goes through.
    assert (await player.one(submit_action=submit(game, 0))).submit_action.version > 2


async def test_bytes_that_are_no_play_request_are_invalid_argument(stack: Stack) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        call = channel.stream_stream(
            "/gameserver.v1.GameService/Play", response_deserializer=pb.PlayResponse.FromString
        )()
        await call.write(b"\x0a\xff")  # a truncated field
        response = await asyncio.wait_for(call.read(), 10)
        assert response.request_id == 0
        assert refusal(response.error)[:2] == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "malformed_request",
        )
        await call.write(
            pb.PlayRequest(request_id=7, get_game={"game_id": "x"}).SerializeToString()
        )
        again = await asyncio.wait_for(call.read(), 10)
        assert again.request_id == 7 and refusal(again.error)[0] == grpc.StatusCode.NOT_FOUND
        call.cancel()


async def test_the_stream_metadata_token_is_the_default(stub: Any) -> None:
    game = await new_game(stub)
    player = Player(stub, metadata=(("authorization", f"Bearer {TOKENS[0]}"),))
    moved = await player.one(submit_action=submit(game, 0, seat_token=""))
    assert moved.submit_action.version > 2
    # A message's own token wins over the stream's.
    other = await player.one(submit_action=submit(game, 1, seat_token=TOKENS[1]))
    assert other.submit_action.version == moved.submit_action.version + 1
    refused = await player.one(submit_action=submit(game, 1, seat_token=""))
    assert refusal(refused.error)[0] == grpc.StatusCode.PERMISSION_DENIED


async def test_command_ids_are_idempotent_over_the_stream(stub: Any, stack: Stack) -> None:
    game = await new_game(stub)
    player = Player(stub)
    first = (await player.one(submit_action=submit(game, 0, 2, command_id="c1"))).submit_action
    again = (await player.one(submit_action=submit(game, 0, 2, command_id="c1"))).submit_action
    assert (again.version, again.first_version) == (first.version, first.first_version)
    assert await stack.store.version(game) == first.version  # nothing appended twice
    unary = await stub.SubmitAction(submit(game, 0, 2, command_id="c1"))
    assert unary.version == first.version  # the same id across both faces
    reused = await player.one(submit_action=submit(game, 0, 1, command_id="c1"))
    assert refusal(reused.error)[:2] == (grpc.StatusCode.FAILED_PRECONDITION, "command_id_reused")


async def test_the_rate_limit_counts_every_message(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    limiter = ClientRateLimiter(rate=0.001, burst=6)
    async with limited_stub(redis_url, key_prefix, registry, limiter=limiter) as stub:
        game = await new_game(stub)  # the address's bucket: 1 of 6
        player = Player(stub)  # opening the stream: 2 of 6
        read = {"get_game": {"game_id": game, "seat": 0, "seat_token": TOKENS[0]}}
        answers = await player.ask(*[read] * 8)  # seat 0's bucket: 6 pass, then refusals
        passed = [a for a in answers if a.HasField("get_game")]
        limited = [refusal(a.error)[:2] for a in answers if a.HasField("error")]
        assert len(passed) == 6
        assert limited == [(grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited")] * 2
        # The stream is still open: a public read spends the address's bucket instead.
        public = await player.one(get_game={"game_id": game})
        assert public.get_game.game_id == game


async def test_open_streams_per_client_are_limited(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with limited_stub(
        redis_url, key_prefix, registry, play_streams=PlayStreamLimit(1)
    ) as stub:
        first = Player(stub)
        assert (await first.one(get_game={"game_id": "x"})).HasField("error")  # accepted
        second = Player(stub)
        # Refused when it opens: its status, read without a write racing the refusal (a
        # write to a call the server already ended fails INTERNAL in the client's core).
        assert await asyncio.wait_for(second.call.code(), 10) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too_many_play_streams" in (await second.call.details() or "")
        # Another client (a seat token of its own in the metadata) has its own count.
        other = Player(stub, metadata=(("authorization", f"Bearer {TOKENS[0]}"),))
        assert (await other.one(get_game={"game_id": "x"})).HasField("error")
        first.call.cancel()
        for _ in range(50):  # the hold ends with the call, on the server's side
            third = Player(stub)
            try:
                await third.one(get_game={"game_id": "x"})
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.05)
        else:
            pytest.fail("a closed stream still counted")


async def test_the_client_plays_on_its_stream_and_decodes_refusals(stack: Stack) -> None:
    async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
        created = await client.create_game(
            [SeatInfo("human", "ann", token=TOKENS[0]), SeatInfo("human", "bob", token=TOKENS[1])],
            options={"max_take": 3},
        )
        game = created.game_id
        stones = (await client.get_game(game)).state["pile"]
        # Two moves of seat 0 at once on the client's one stream: the second is refused.
        results = await asyncio.gather(
            client.play(game, 0, TOKENS[0], {"take": 1}),
            client.play(game, 0, TOKENS[0], {"take": 1}),
            return_exceptions=True,
        )
        moved = [r for r in results if isinstance(r, MoveResult)]
        refused = [r for r in results if isinstance(r, RuleViolation)]
        assert len(moved) == 1 and moved[0].game.seats_to_act == (1,)
        assert len(refused) == 1 and refused[0].rule == "not_your_turn"
        with pytest.raises(NotAuthorized):
            await client.play(game, 1, "w" * 30, {"take": 1})
        stream = client._play
        assert stream is not None and stream.open
        second = await client.play(game, 1, TOKENS[1], {"take": 2})
        assert second.game.state["pile"] == stones - 3 and stream.open
        unary = TeotiClient(f"127.0.0.1:{stack.port}", play_stream=False)
        async with unary:
            by_call = await unary.play(game, 0, TOKENS[0], {"take": 1})
            assert by_call.game.state["pile"] == stones - 4 and unary._play is None


async def test_connect_opens_the_play_stream_before_the_first_move(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    # One Play stream per client (here: per address).
    limits = {"play_streams": PlayStreamLimit(1)}
    async with limited_stack(redis_url, key_prefix, registry, **limits) as stack:
        target = f"127.0.0.1:{stack.port}"
        async with TeotiClient(target) as first:
            await first.connect()
            opened = first._play._open if first._play is not None else None
            assert opened is not None and not opened.ended
            await first.connect()  # idempotent: the open stream is kept
            assert first._play is not None and first._play._open is opened
            created = await first.create_game(
                [SeatInfo("human", "a", token=TOKENS[0]), SeatInfo("human", "b", token=TOKENS[1])],
                options={"max_take": 3},
            )
            # The stream connect() opened holds the address's one Play stream: another
            # client's connect() is refused, every time, with the refusal's own status
            # (it waits for the server's acceptance, so no write races the refusal).
            for _ in range(20):
                async with TeotiClient(target) as second:
                    with pytest.raises(grpc.aio.AioRpcError) as raised:
                        await second.connect()
                    assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert "too_many_play_streams" in (raised.value.details() or "")
            # ... and the first move goes on it, not on a new one.
            moved = await first.play(created.game_id, 0, TOKENS[0], {"take": 1})
            assert moved.game.seats_to_act == (1,)
            assert first._play._open is opened and not opened.ended


async def test_the_server_acknowledges_an_accepted_play_stream_before_any_request(
    stub: Any,
) -> None:
    call = stub.Play()
    await asyncio.wait_for(call.initial_metadata(), 10)
    assert not call.done()  # accepted and open, though nothing was sent yet
    call.cancel()


async def test_connect_to_no_server_is_unavailable_at_once(stack: Stack) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for play_stream in (True, False):
        async with TeotiClient(f"127.0.0.1:{port}", timeout_s=20, play_stream=play_stream) as c:
            started = asyncio.get_running_loop().time()
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await c.connect()
            assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
            assert asyncio.get_running_loop().time() - started < 10  # not the whole timeout
    async with TeotiClient(f"127.0.0.1:{stack.port}", play_stream=False) as unary:
        await unary.connect()  # the channel alone: no stream to open
        assert unary._play is None
        assert await unary.list_rulesets()


async def test_connect_to_a_silent_server_is_a_deadline_exceeded() -> None:
    with socket.socket() as silent:  # accepts TCP connections, never speaks HTTP/2
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        for play_stream in (True, False):
            async with TeotiClient(
                f"127.0.0.1:{port}", timeout_s=0.3, play_stream=play_stream
            ) as client:
                with pytest.raises(grpc.aio.AioRpcError) as raised:
                    await client.connect()
                assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                assert "not connected within 0.3 s" in (raised.value.details() or "")


async def test_connect_ends_with_the_client_closed(stack: Stack) -> None:
    client = TeotiClient(f"127.0.0.1:{stack.port}", timeout_s=None)
    pending = asyncio.create_task(client.connect())
    await asyncio.sleep(0)
    await client.close()
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await asyncio.wait_for(pending, 5)  # not hanging: timeout_s=None
    assert raised.value.code() == grpc.StatusCode.CANCELLED
    with pytest.raises(grpc.aio.AioRpcError) as again:
        await client.connect()
    assert again.value.code() == grpc.StatusCode.CANCELLED
    assert again.value.details() == "the client is closed"


class HeldEngine(InProcessEngineClient):
    """An in-process engine client whose submit_action waits until released."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(stack.engine)
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = 0

    async def submit_action(self, *args: Any, **kwargs: Any) -> CommandResult:
        self.entered.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return await super().submit_action(*args, **kwargs)


async def test_a_vanished_client_leaves_no_request_running(stack: Stack, stub: Any) -> None:
    engine = HeldEngine(stack)
    server, port = await create_server(
        "127.0.0.1:0", stack.reader, engine, "nim", play_streams=PlayStreamLimit(1)
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            game = await new_game(stub)
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            player = Player(stub)
            await player.call.write(pb.PlayRequest(request_id=1, submit_action=submit(game, 0)))
            await asyncio.wait_for(engine.entered.wait(), 10)
            player.call.cancel()  # the client goes away with its move in flight
            for _ in range(100):
                if engine.cancelled:
                    break
                await asyncio.sleep(0.02)
            assert engine.cancelled == 1
            engine.release.set()
            again = Player(stub)  # its stream no longer counts against the limit of 1
            for _ in range(50):
                try:
                    await again.one(get_game={"game_id": game})
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
                    again = Player(stub)
            else:
                pytest.fail("the vanished client's stream still counted")
    finally:
        await server.stop(None)


async def test_the_client_reopens_its_stream_after_the_server_restarts(
    stack: Stack, stub: Any
) -> None:
    engine = HeldEngine(stack)
    engine.release.set()
    server, port = await create_server("127.0.0.1:0", stack.reader, engine, "nim")
    game = await new_game(stub)
    async with TeotiClient(f"127.0.0.1:{port}", timeout_s=10) as client:
        try:
            await client.play(game, 0, TOKENS[0], {"take": 1})
            engine.release.clear()  # the next move waits in the engine ...
            engine.entered.clear()
            pending = asyncio.create_task(client.play(game, 1, TOKENS[1], {"take": 1}))
            await asyncio.wait_for(engine.entered.wait(), 10)
            await server.stop(None)  # ... when the server goes away
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await asyncio.wait_for(pending, 10)
            assert raised.value.code() in {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}
            engine.release.set()
            server, _ = await create_server(f"127.0.0.1:{port}", stack.reader, engine, "nim")
            for _ in range(100):  # the channel reconnects, the next move opens a new stream
                try:
                    moved = await client.play(game, 1, TOKENS[1], {"take": 1}, command_id="r1")
                    break
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.UNAVAILABLE
                    await asyncio.sleep(0.05)
            else:
                pytest.fail("the client never played again")
            assert moved.game.seats_to_act == (0,)
        finally:
            await server.stop(None)


async def test_watch_with_view_equals_the_reads_at_each_version(stub: Any) -> None:
    game = await new_game(stub)
    await stub.SubmitAction(submit(game, 0, 1))  # something to catch up on
    watch = stub.WatchGame(
        pb.WatchGameRequest(game_id=game, seat=1, seat_token=TOKENS[1], with_view=True)
    )
    seen: list[Any] = []

    async def until(version: int) -> Any:
        while not seen or seen[-1].event.version < version:
            seen.append(await asyncio.wait_for(watch.read(), 10))
        return seen[-1]

    seat = 1
    while True:
        head = (await stub.GetGame(pb.GetGameRequest(game_id=game))).version
        last = await until(head)
        assert last.HasField("game"), "the last event of a batch carries the view"
        # The view and legal actions are what the reads say at that version (nobody moved).
        assert last.game == await stub.GetGame(
            pb.GetGameRequest(game_id=game, seat=1, seat_token=TOKENS[1])
        )
        listed = await stub.ListLegalActions(
            pb.ListLegalActionsRequest(game_id=game, seat=1, seat_token=TOKENS[1])
        )
        assert list(last.legal_actions) == list(listed.actions) and last.game.version == head
        if last.game.finished:
            break
        await stub.SubmitAction(submit(game, seat, 1))
        seat = 1 - seat
    for reply in seen:  # every view, wherever it came, is the seat's view at its version
        if reply.HasField("game"):
            at = await stub.GetGameAt(
                pb.GetGameAtRequest(
                    game_id=game, version=reply.event.version, seat=1, seat_token=TOKENS[1]
                )
            )
            assert reply.game == at.game
    plain = stub.WatchGame(pb.WatchGameRequest(game_id=game))
    assert not any([r.HasField("game") async for r in plain])  # without the flag: events only


async def test_watch_with_view_needs_a_seat_and_its_token(stub: Any) -> None:
    game = await new_game(stub)
    cases = [
        (pb.WatchGameRequest(game_id=game, with_view=True), grpc.StatusCode.INVALID_ARGUMENT),
        (
            pb.WatchGameRequest(game_id=game, seat=0, with_view=True),
            grpc.StatusCode.PERMISSION_DENIED,
        ),
        (
            pb.WatchGameRequest(game_id=game, seat=0, seat_token=TOKENS[1], with_view=True),
            grpc.StatusCode.PERMISSION_DENIED,
        ),
    ]
    for request, code in cases:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            async for _ in stub.WatchGame(request):
                pass
        assert raised.value.code() == code
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        async for _ in stub.WatchGame(cases[0][0]):
            pass
    assert "with_view_needs_seat" in (raised.value.details() or "")


async def test_invented_tokens_buy_no_more_streams_than_the_address_ceiling(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """The count of open streams is keyed by the stream's Bearer token, which nothing
    checks when a Play stream opens: one address inventing a token per stream held any
    number of streams (3,000 against a limit of 1,000 on a real gateway), enough to fill
    the server's MAX_CONCURRENT_RPCS for everyone. As with the rate limit, every stream
    also counts against its address's ceiling (ADDRESS_FACTOR x the limit)."""
    limit = PlayStreamLimit(1)
    async with limited_stub(redis_url, key_prefix, registry, play_streams=limit) as stub:
        ceiling = int(DEFAULT_ADDRESS_FACTOR)
        players = []
        for i in range(ceiling + 1):  # one at a time: the server takes them in this order
            token = f"invented-{i:04d}-0123456789ab"
            players.append(Player(stub, metadata=(("authorization", f"Bearer {token}"),)))
            if i < ceiling:
                assert (await players[-1].one(get_game={"game_id": "x"})).HasField("error")
        refused = players[-1]
        # The server ends the call at once: writing to it may fail first.
        with pytest.raises((grpc.aio.AioRpcError, asyncio.InvalidStateError)):
            await refused.one(get_game={"game_id": "x"})
        assert await refused.call.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too_many_play_streams" in await refused.call.details()
        players[0].call.cancel()
        for _ in range(50):  # a closed stream gives its address its place back
            again = Player(stub, metadata=(("authorization", "Bearer invented-again-0123456"),))
            try:
                await again.one(get_game={"game_id": "x"})
                break
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                await asyncio.sleep(0.05)
        else:
            pytest.fail("a closed stream still counted against its address")
        for player in players:
            player.call.cancel()
