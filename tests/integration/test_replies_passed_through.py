"""Issue 35, one serialization of a move's answer: the gateway of the split deployment
asks the engine for the public SubmitActionResponse already serialized (EngineService
``public_reply``) and its gRPC face sends those bytes on unparsed, as SubmitAction's
response and inside a PlayResponse. What a client receives is byte for byte what the
gateway built before (the seat's GetGame and ListLegalActions at the move's version); an
engine that ignores the field (from before it, or before ``return_view``) is answered for
as before; refusals, request ids and the seat token check are unchanged; the web face's
HTTP SubmitAction and Play socket answer the same JSON as before. In-process gateway
(gRPC and web faces) and engine on the real engine link, real Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc
from websockets.asyncio.client import connect

from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import EngineServicer
from services.engine.transport.link_server import start_link_server
from services.gateway.server import create_server
from services.gateway.servicer import GameServicer
from services.web.face import to_json
from services.web.gateway import start_game_web
from services.web.play_socket import encode
from tests.integration.engine_versions import (
    EngineBeforePublicReply,
    EngineBeforeReturnView,
    RecordingClient,
    split_stores,
)

SERVICE = "/gameserver.v1.GameService/"
TOKENS = ("ann-token-0123456789abcdefgh", "bob-token-0123456789abcdefgh")


@dataclass
class Split:
    """A running split stack: the gateway's gRPC ``channel``, its web face's ``http``
    client and ``web_port``, and the gateway's engine ``client``."""

    channel: grpc.aio.Channel
    http: httpx.AsyncClient
    web_port: int
    client: RecordingClient

    def raw(self, method: str, streaming: bool = False) -> Any:
        """A callable for ``method`` whose responses are the bytes received, unparsed."""
        serializer = getattr(pb, f"{method}Request").SerializeToString
        if streaming:
            return self.channel.stream_stream(SERVICE + method, request_serializer=serializer)
        return self.channel.unary_unary(SERVICE + method, request_serializer=serializer)

    @property
    def stub(self) -> Any:
        return pb_grpc.GameServiceStub(self.channel)


@asynccontextmanager
async def split(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, engine_kind: type = EngineServicer
) -> AsyncIterator[Split]:
    """An engine (``engine_kind`` serving its link) and a gateway with its gRPC server
    (create_server, as ``teoti gateway`` runs it) and web face, each with its own store."""
    async with AsyncExitStack() as stack:
        engine_store, gateway_store = await split_stores(stack, redis_url, key_prefix)
        engine = Engine(engine_store, registry, seed_source=fixed_seed("through"))
        link, port = await start_link_server(engine_kind(engine).serve_link, "127.0.0.1", 0)
        stack.push_async_callback(link.stop, None)
        client = RecordingClient(f"127.0.0.1:{port}", timeout_s=30)
        client.results = []
        stack.push_async_callback(client.close)
        reader = GameReader(gateway_store, registry)
        server, grpc_port = await create_server("127.0.0.1:0", reader, client, "nim")
        stack.push_async_callback(server.stop, None)
        web = await start_game_web("127.0.0.1:0", GameServicer(reader, client, "nim"))
        stack.push_async_callback(web.stop)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}")
        stack.push_async_callback(channel.close)
        http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{web.port}", timeout=20)
        )
        yield Split(channel, http, web.port, client)


async def nim_game(stub: Any, pile_options: str = '{"max_take":3}') -> str:
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            ruleset="nim",
            seats=[
                pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=name, token=token)
                for name, token in zip(("ann", "bob"), TOKENS, strict=True)
            ],
            options_json=pile_options,
        )
    )
    return str(created.game_id)


def move(game: str, seat: int, take: int = 1, token: str | None = None) -> pb.SubmitActionRequest:
    return pb.SubmitActionRequest(
        game_id=game,
        seat=seat,
        seat_token=TOKENS[seat] if token is None else token,
        action_json=json.dumps({"take": take}),
        return_view=True,
    )


async def expected_reply(stub: Any, game: str, seat: int, raw: bytes) -> pb.SubmitActionResponse:
    """The SubmitActionResponse the gateway built before issue 35 for the move answered
    by ``raw`` (a serialized SubmitActionResponse): its version numbers, and the seat's
    GetGame and ListLegalActions at that version (which the old answer was, byte for
    byte: tests/integration/test_engine_projects_views.py)."""
    answered = pb.SubmitActionResponse.FromString(raw)
    view = await stub.GetGame(pb.GetGameRequest(game_id=game, seat=seat, seat_token=TOKENS[seat]))
    legal = await stub.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=game, seat=seat, seat_token=TOKENS[seat])
    )
    assert view.version == answered.version  # nobody else acted in between
    return pb.SubmitActionResponse(
        version=answered.version,
        first_version=answered.first_version,
        game=view,
        legal_actions=legal.actions,
    )


async def play_a_game_on_a_stream(stack: Split) -> int:
    """Play a Nim game to its end on one raw Play stream, checking each answer's bytes;
    returns the moves played."""
    game = await nim_game(stack.stub)
    call = stack.raw("Play", streaming=True)()
    seat, moves = 0, 0
    try:
        while True:
            moves += 1
            await call.write(pb.PlayRequest(request_id=100 + moves, submit_action=move(game, seat)))
            raw = await call.read()
            assert isinstance(raw, bytes)
            reply = pb.PlayResponse.FromString(raw)
            assert reply.WhichOneof("response") == "submit_action", reply
            inner = reply.submit_action.SerializeToString()
            expected = await expected_reply(stack.stub, game, seat, inner)
            want = pb.PlayResponse(request_id=100 + moves, submit_action=expected)
            assert raw == want.SerializeToString()
            if expected.game.finished:
                return moves
            seat = expected.game.seats_to_act[0]
    finally:
        await call.done_writing()


async def test_a_play_answer_is_the_engines_bytes_and_the_old_answer(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with split(redis_url, key_prefix, registry) as stack:
        moves = await play_a_game_on_a_stream(stack)
        assert moves >= 10
        # The engine serialized each answer: the gateway got its bytes, not a view.
        assert len(stack.client.results) == moves
        assert all(r.public_reply and r.view is None for r in stack.client.results)


@pytest.mark.parametrize("engine_kind", [EngineBeforePublicReply, EngineBeforeReturnView])
async def test_an_engine_that_ignores_public_reply_is_answered_for_as_before(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, engine_kind: type
) -> None:
    async with split(redis_url, key_prefix, registry, engine_kind) as stack:
        moves = await play_a_game_on_a_stream(stack)
        results = stack.client.results
        assert len(results) == moves and not any(r.public_reply for r in results)
        if engine_kind is EngineBeforePublicReply:
            assert all(r.view is not None for r in results)
        else:
            assert all(r.view is None and r.written for r in results)


async def test_a_unary_move_answers_the_engines_bytes(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with split(redis_url, key_prefix, registry) as stack:
        game = await nim_game(stack.stub)
        raw = await stack.raw("SubmitAction")(move(game, 0))
        assert isinstance(raw, bytes)
        assert raw == (await expected_reply(stack.stub, game, 0, raw)).SerializeToString()
        assert stack.client.results[-1].public_reply == raw  # passed on as it came
        # Without return_view the engine is not asked for it; the answer is as before.
        plain = move(game, 1)
        plain.return_view = False
        reply = await stack.stub.SubmitAction(plain)
        assert not reply.HasField("game") and reply.version == 4
        assert not stack.client.results[-1].public_reply


async def test_refusals_and_request_ids_are_unchanged(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with split(redis_url, key_prefix, registry) as stack:
        game = await nim_game(stack.stub)
        call = stack.raw("Play", streaming=True)()
        asked = [
            (1, move(game, 0, take=9)),  # illegal: the engine refuses it
            (2, move(game, 0, token=TOKENS[1])),  # another seat's token: never sent on
            (3, move(game, 0)),
        ]
        for request_id, request in asked:
            await call.write(pb.PlayRequest(request_id=request_id, submit_action=request))
        answers = {}
        for _ in asked:
            reply = pb.PlayResponse.FromString(await call.read())
            answers[reply.request_id] = reply
        await call.done_writing()
        assert answers[1].error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
        assert answers[2].error.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert answers[3].submit_action.version == 3
        assert len(stack.client.results) == 1  # the refused token reached no engine
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stack.raw("SubmitAction")(move(game, 1, take=9))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_the_web_face_answers_the_same_json(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """The web face's servicer takes the engine's bytes as a message: its HTTP answer
    and its Play socket's frame are the JSON of the answer the gateway built before."""
    async with split(redis_url, key_prefix, registry) as stack:
        game = await nim_game(stack.stub)
        body = {"game_id": game, "action_json": '{"take":1}', "return_view": True}
        mine = {"seat": 0, "seat_token": TOKENS[0]}
        answer = await stack.http.post(SERVICE + "SubmitAction", json={**body, **mine})
        assert answer.status_code == 200, answer.text
        raw = stack.client.results[-1].public_reply
        assert raw  # the engine serialized it; the web face parsed it
        assert answer.json() == to_json(await expected_reply(stack.stub, game, 0, raw))

        frame = {"request_id": 5, "submit_action": {**body, "seat": 1, "seat_token": TOKENS[1]}}
        async with connect(f"ws://127.0.0.1:{stack.web_port}{SERVICE}Play") as socket:
            await socket.send(json.dumps(frame))
            played = json.loads(await asyncio.wait_for(socket.recv(), 20))
        raw = stack.client.results[-1].public_reply
        assert raw
        expected = await expected_reply(stack.stub, game, 1, raw)
        assert played == json.loads(encode(pb.PlayResponse(request_id=5, submit_action=expected)))


class EngineSeeingActions(EngineServicer):
    """The engine, keeping the action text of each SubmitAction it is sent."""

    seen: list[str] = []

    async def _submit_action(self, request: Any, bot_key: str, into: Any = None) -> Any:
        EngineSeeingActions.seen.append(request.action_json)
        return await super()._submit_action(request, bot_key, into)


async def test_the_action_text_reaches_the_engine_as_the_client_wrote_it(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """The gateway decodes the action only to refuse bad JSON before the seat check; the
    engine gets the client's text, and a command id still binds the action, not its
    spelling: a retry spelled otherwise is the same move, another action is refused."""
    EngineSeeingActions.seen = []
    async with split(redis_url, key_prefix, registry, EngineSeeingActions) as stack:
        game = await nim_game(stack.stub)
        spelled = pb.SubmitActionRequest(
            game_id=game,
            seat=0,
            seat_token=TOKENS[0],
            action_json='{ "take" : 1 }',
            command_id="move-0001",
            return_view=True,
        )
        first = await stack.stub.SubmitAction(spelled)
        assert EngineSeeingActions.seen == ['{ "take" : 1 }']
        again = pb.SubmitActionRequest()
        again.CopyFrom(spelled)
        again.action_json = '{"take":1}'
        retried = await stack.stub.SubmitAction(again)
        assert (retried.version, retried.first_version) == (first.version, first.first_version)
        other = pb.SubmitActionRequest()
        other.CopyFrom(spelled)
        other.action_json = '{"take":2}'
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stack.stub.SubmitAction(other)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "was already used by this sender" in (refused.value.details() or "")
        # Bad JSON is refused by the gateway, before the seat check and the engine.
        bad = pb.SubmitActionRequest()
        bad.CopyFrom(spelled)
        bad.action_json = '{"take":'
        bad.seat_token = "not-the-token-0123456789abcdef"
        with pytest.raises(grpc.aio.AioRpcError) as invalid:
            await stack.stub.SubmitAction(bad)
        assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert len(EngineSeeingActions.seen) == 3
