"""GameService.Play over a WebSocket on the web face, against a real all-in-one stack on a
real Redis with the ``websockets`` client: JSON frames answered as the HTTP calls are,
refusals per request with the socket left open, tokens per message, the limits of the
gRPC Play (per message, per opening, open streams shared with the gRPC face), 32
requests in flight with reading stopped beyond, the Origin check, the size limit and
the close codes, and every request in flight cancelled when the socket closes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import services.web.play_socket as play_socket
from services.app import GatewayLimits, Stack
from services.gateway.servicer import GameServicer
from services.rpc.limits import ClientRateLimiter, PlayStreamLimit
from services.web.face import parse_message
from services.web.server import WebSettings
from tests.web.conftest import StackFactory
from tests.web.test_web_face import ANN, BOB, SERVICE, nim_game, reason, rpc

TOKENS = (ANN, BOB)


def play_url(stack: Stack) -> str:
    return f"ws://127.0.0.1:{stack.web_port}{SERVICE}Play"


@asynccontextmanager
async def opened(stack: Stack, **options: Any) -> AsyncIterator[ClientConnection]:
    async with connect(play_url(stack), open_timeout=10, **options) as socket:
        yield socket


class Player:
    """One Play socket: ``ask`` sends requests (PlayRequest JSON) and returns the
    responses in the requests' order, matched by request_id."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self._next = 0

    async def ask(self, *requests: dict[str, Any]) -> list[dict[str, Any]]:
        ids = []
        for fields in requests:
            self._next += 1
            ids.append(self._next)
            await self.socket.send(json.dumps({"request_id": self._next, **fields}))
        answers: dict[int, dict[str, Any]] = {}
        while len(answers) < len(ids):
            answer = json.loads(await asyncio.wait_for(self.socket.recv(), 10))
            answers[answer["request_id"]] = answer
        return [answers[i] for i in ids]

    async def one(self, **fields: Any) -> dict[str, Any]:
        (answer,) = await self.ask(fields)
        return answer


def move(game: str, seat: int, take: int = 1, **fields: Any) -> dict[str, Any]:
    """A submit_action request of ``seat`` with its token in the message."""
    request = {
        "game_id": game,
        "seat": seat,
        "seat_token": TOKENS[seat],
        "action_json": json.dumps({"take": take}),
        "return_view": True,
    }
    request.update(fields)
    return {"submit_action": request}


def error_reason(answer: dict[str, Any]) -> tuple[int, str]:
    """(code, ErrorInfo reason) of a refused request (checks the PlayError's shape: the
    Status JSON of an HTTP refusal)."""
    error = answer["error"]
    assert set(error) == {"code", "message", "details"}, error
    (info,) = [d for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert info["domain"] == "gameserver.v1" and info["metadata"]["message"]
    return int(error["code"]), str(info["reason"])


async def closed_with(socket: ClientConnection) -> tuple[int, str]:
    """(code, reason) of the close frame the server sends next (frames before it are
    skipped)."""
    with pytest.raises(ConnectionClosed) as raised:
        for _ in range(100):
            await asyncio.wait_for(socket.recv(), 10)
    assert raised.value.rcvd is not None, "the server sent no close frame"
    return raised.value.rcvd.code, raised.value.rcvd.reason


async def test_a_whole_game_over_one_socket(served: StackFactory) -> None:
    async with served() as (stack, http), opened(stack) as socket:
        game = await nim_game(http)
        player = Player(socket)
        seat, moves = 0, 0
        while True:
            answer = await player.one(**move(game, seat))
            moves += 1
            reply = answer["submit_action"]
            # The same view as the HTTP call answers, in the same JSON mapping.
            view = await rpc(http, "GetGame", {"game_id": game, "seat": seat}, TOKENS[seat])
            assert reply["game"] == view.json()
            if reply["game"]["finished"]:
                break
            seat = reply["game"]["seats_to_act"][0]
        assert moves >= 10  # one frame per stone (10..20 of them), all on one socket
        listed, public = await player.ask(
            {"list_legal_actions": {"game_id": game, "seat": 0, "seat_token": ANN}},
            {"get_game": {"game_id": game}},
        )
        by_http = await rpc(http, "ListLegalActions", {"game_id": game, "seat": 0}, ANN)
        assert listed["list_legal_actions"] == by_http.json()
        assert public["get_game"] == (await rpc(http, "GetGame", {"game_id": game})).json()


async def test_refusals_answer_one_request_and_the_socket_stays_open(
    served: StackFactory,
) -> None:
    async with served() as (stack, http), opened(stack) as socket:
        game = await nim_game(http)
        player = Player(socket)
        cases = {
            "bad_seat_token": move(game, 0, seat_token="x" * 30),
            "not_your_turn": move(game, 1),
            "invalid_argument": move(game, 0, action_json="{"),
            "game_not_found": move("no-such-game", 0),
        }
        for expected, request in cases.items():
            answer = await player.one(**request)
            # Refused as the HTTP call is: the same code, reason and message.
            by_http = await rpc(http, "SubmitAction", request["submit_action"])
            assert answer["error"]["code"] == by_http.json()["code"]
            assert answer["error"]["message"] == by_http.json()["message"]
            assert error_reason(answer)[1] == reason(by_http) == expected
        # Frames that are no PlayRequest: INVALID_ARGUMENT malformed_request, matched to
        # the request_id they name when one can be read.
        for frame, request_id in [
            ('{"request_id": 41, "submit_action": {"seat": "zero"}}', 41),
            ('{"requestId": "42", "no_such_field": 1}', 42),
            ("this is not json", 0),
            ('["a", "list"]', 0),
            ('{"request_id": 43}', 43),  # a PlayRequest asking nothing
        ]:
            await socket.send(frame)
            answer = json.loads(await asyncio.wait_for(socket.recv(), 10))
            assert answer["request_id"] == request_id, frame
            assert error_reason(answer) == (3, "malformed_request"), frame
        # Still open: a good move goes through; a token in the handshake header (not a
        # browser's way) serves as the messages' default, as gRPC metadata does.
        assert (await player.one(**move(game, 0)))["submit_action"]["version"] > 2
    async with served() as (stack, http):
        game = await nim_game(http)
        header = {"authorization": f"Bearer {ANN}"}
        async with opened(stack, additional_headers=header) as socket:
            request = move(game, 0)
            del request["submit_action"]["seat_token"]
            assert "submit_action" in await Player(socket).one(**request)


async def test_a_cross_site_page_cannot_open_it(served: StackFactory) -> None:
    settings = WebSettings(cors_origins=("https://play.example",))
    async with served(web=settings) as (stack, _):
        with pytest.raises(InvalidStatus) as refused:
            async with opened(stack, origin="https://evil.example"):
                pass
        response = refused.value.response
        assert response.status_code == 403
        body = json.loads(response.body or b"{}")
        assert body["details"][0]["reason"] == "origin_not_allowed"
        own_page = f"http://127.0.0.1:{stack.web_port}"  # the reference client's origin
        for origin in ("https://play.example", own_page, None):
            async with opened(stack, origin=origin) as socket:
                answer = await Player(socket).one(get_game={"game_id": "nope"})
                assert error_reason(answer)[1] == "game_not_found", origin


async def test_frames_over_the_size_limit_and_binary_frames_close_it(
    served: StackFactory,
) -> None:
    settings = WebSettings(max_request_bytes=2048)
    async with served(web=settings) as (stack, _):
        async with opened(stack) as socket:
            frame = {"request_id": 1, "get_game": {"game_id": "é" * 1100}}  # 2,200+ bytes
            await socket.send(json.dumps(frame, ensure_ascii=False))
            code, why = await closed_with(socket)
            assert code == 1009 and why.startswith("request_too_large:") and "2048" in why
        async with opened(stack, max_size=None) as socket:
            await socket.send("x" * 10_000)  # cut off by the WebSocket layer itself
            assert (await closed_with(socket))[0] == 1009
        async with opened(stack) as socket:
            await socket.send(b"\x08\x01")
            code, why = await closed_with(socket)
            assert code == 1003 and why.startswith("unsupported_data:")


async def test_limits_per_message_per_opening_and_open_streams(served: StackFactory) -> None:
    limiter = ClientRateLimiter(rate=0.2, burst=4)
    async with served(limits=GatewayLimits(limiter=limiter)) as (stack, _):
        async with opened(stack) as socket:  # the opening spends one of the address's 4
            player = Player(socket)
            public = {"get_game": {"game_id": "nope"}}  # no token: the address's bucket
            answers = await player.ask(public, public, public, public)
            reasons = [error_reason(answer)[1] for answer in answers]
            assert reasons == ["game_not_found"] * 3 + ["rate_limited"]
            retry = answers[-1]["error"]["details"]
            assert any(d["@type"].endswith("google.rpc.RetryInfo") for d in retry)
            assert error_reason(answers[-1])[0] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        async with opened(stack) as socket:  # a new opening is refused too
            last = json.loads(await asyncio.wait_for(socket.recv(), 10))
            assert last["request_id"] == 0 and error_reason(last)[1] == "rate_limited"
            code, why = await closed_with(socket)
            assert code == 1013 and why.startswith("rate_limited:")
    # Open streams per client: the gRPC face's own count (one Play per address here).
    play_streams = PlayStreamLimit(per_client=1, address_factor=1)
    async with served(limits=GatewayLimits(play_streams=play_streams)) as (stack, _):
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            call = pb_grpc.GameServiceStub(channel).Play()
            await call.write(pb.PlayRequest(request_id=1, get_game={"game_id": "nope"}))
            assert (await call.read()).request_id == 1  # the gRPC stream holds the one
            async with opened(stack) as socket:
                last = json.loads(await asyncio.wait_for(socket.recv(), 10))
                assert error_reason(last)[1] == "too_many_play_streams"
                code, why = await closed_with(socket)
                assert code == 1013 and why.startswith("too_many_play_streams:")
            call.cancel()
        for _ in range(500):  # the server lets go of a cancelled call's hold soon after
            if not play_streams._open:
                break
            await asyncio.sleep(0.01)
        async with opened(stack) as socket:  # released: one socket may open now
            answer = await Player(socket).one(get_game={"game_id": "nope"})
            assert error_reason(answer)[1] == "game_not_found"


class Gate:
    """GameServicer.get_game held at a gate (set on the class, the bound method is
    called as is): counts answers started and cancelled, and frames parsed."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.started = 0
        self.cancelled = 0
        self.frames = 0

    async def get_game(self, request: Any, _context: Any) -> Any:
        self.started += 1
        try:
            await self.open.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return pb.GetGameResponse(game_id=request.game_id)

    async def settle(self, started: int) -> None:
        """Wait until ``started`` answers have started, then a little more (no more may)."""
        for _ in range(500):
            if self.started >= started:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)


async def test_32_in_flight_then_reading_stops_and_closing_cancels_them(
    served: StackFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    monkeypatch.setattr(GameServicer, "get_game", gate.get_game)

    def counted(text: str, message: Any) -> Any:
        gate.frames += 1
        return parse_message(text, message)

    monkeypatch.setattr(play_socket, "parse_message", counted)
    limit = PlayStreamLimit(per_client=1, address_factor=1)
    async with served(limits=GatewayLimits(play_streams=limit)) as (stack, _):
        async with opened(stack) as socket:
            for i in range(1, 61):
                await socket.send(json.dumps({"request_id": i, "get_game": {"game_id": f"g{i}"}}))
            await gate.settle(32)
            assert gate.started == 32  # 32 in flight
            assert gate.frames <= 33  # the 33rd taken waits for a slot; the rest wait unread
            gate.open.set()
            answers = [json.loads(await asyncio.wait_for(socket.recv(), 10)) for _ in range(60)]
            assert sorted(a["request_id"] for a in answers) == list(range(1, 61))
            assert all(a["get_game"]["game_id"] == f"g{a['request_id']}" for a in answers)
        gate.open.clear()
        gate.started = 0
        async with opened(stack) as socket:
            for i in range(1, 41):
                await socket.send(json.dumps({"request_id": i, "get_game": {"game_id": "g"}}))
            await gate.settle(32)
            assert gate.started == 32
        # Closed by the client with 32 in flight and 8 more sent: the 32 are cancelled
        # (the close is read past the 8), none of the 8 starts, and the stream no longer
        # counts against the client's limit of one.
        for _ in range(500):
            if gate.cancelled == 32:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        assert (gate.cancelled, gate.started) == (32, 32)
        gate.open.set()
        async with opened(stack) as socket:
            answer = await Player(socket).one(get_game={"game_id": "again"})
            assert answer["get_game"]["game_id"] == "again"


async def test_the_inbox_holds_about_its_capacity_then_the_reader_waits() -> None:
    inbox = play_socket.Inbox(capacity=100)
    for _ in range(2):
        await inbox.put("x" * 60)  # the second goes past 100: one frame may
    third = asyncio.create_task(inbox.put("y"))
    await asyncio.sleep(0.05)
    assert not third.done()  # full: the socket's reader waits, the server stops reading
    assert await inbox.get() == "x" * 60
    await asyncio.wait_for(third, 1)
    assert [await inbox.get(), await inbox.get()] == ["x" * 60, "y"]


async def test_plain_http_on_the_play_path_names_the_websocket(served: StackFactory) -> None:
    async with served() as (_, http):
        refused = await http.post(SERVICE + "Play", json={})
        assert refused.status_code == 501 and reason(refused) == "streaming_requests_unsupported"
        assert "WebSocket" in refused.json()["message"]
        document = (await http.get("/openapi.json")).json()
        play = document["x-websockets"][SERVICE + "Play"]
        for side in ("request", "response"):
            name = play[side]["$ref"].rsplit("/", 1)[1]
            assert name in document["components"]["schemas"], name


async def test_the_servers_stop_closes_open_sockets(served: StackFactory) -> None:
    async with served() as (stack, http):
        socket = await connect(play_url(stack), open_timeout=10)
        assert "get_game" in await Player(socket).one(get_game={"game_id": await nim_game(http)})
    # The stack has stopped: the socket was closed by the server (1012: service restart).
    code, _ = await closed_with(socket)
    assert code == 1012
