"""Issue 16, no event folded twice: a gateway of the split deployment asks the engine for
the moving seat's view and legal actions (EngineService ``return_view``) instead of
folding the events the engine appended. The Play answer stays, byte for byte, what
GetGame and ListLegalActions answer the seat, over the engine link, for games that hide
hands and decks, with clocks or without; an engine from before ``return_view`` still
gets the answer right (the gateway folds its events). Real engine, real Redis."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest
from teoti_client.proto import game_service_pb2

from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.time_control import TimeControl
from services.engine.entrypoints.servicer import EngineServicer
from services.engine.transport.link_server import start_link_server
from services.gateway.servicer import GameServicer
from tests.engine_serving import engine_served
from tests.game_samples import game_names
from tests.integration.engine_versions import (
    EngineBeforePublicReply,
    EngineBeforeReturnView,
    RecordingClient,
    split_stores,
)
from tests.servicer_context import ServicerContext

pb = game_service_pb2
TOKENS = tuple(f"seat-{n}-token-0123456789abcdef" for n in range(3))


@asynccontextmanager
async def split(
    redis_url: str,
    key_prefix: str,
    registry: RulesetRegistry,
    old: type[EngineServicer] | None = None,
) -> AsyncIterator[tuple[GameServicer, RecordingClient, Engine]]:
    """A gateway's servicer (its own store and cache, as `teoti gateway` has) sending its
    commands to a separate engine on its link (``old``: an engine from before a field,
    served by that class)."""
    async with AsyncExitStack() as stack:
        engine_store, gateway_store = await split_stores(stack, redis_url, key_prefix)
        engine = Engine(engine_store, registry, seed_source=fixed_seed("views"))
        if old is not None:
            link, port = await start_link_server(old(engine).serve_link, "127.0.0.1", 0)
            stack.push_async_callback(link.stop, None)
        else:
            _server, port = await stack.enter_async_context(engine_served(engine))
        client = RecordingClient(f"127.0.0.1:{port}", timeout_s=30)
        client.results = []
        stack.push_async_callback(client.close)
        yield GameServicer(GameReader(gateway_store, registry), client), client, engine


async def answers_as_the_reads(
    servicer: GameServicer, game: str, seat: int, request_id: int, action_json: str
) -> Any:
    """Play ``action_json`` for ``seat`` with return_view; assert the answer is byte for
    byte the seat's GetGame and ListLegalActions at its version; return the answer."""
    token = TOKENS[seat]
    request = pb.PlayRequest(
        request_id=request_id,
        submit_action=pb.SubmitActionRequest(
            game_id=game, seat=seat, seat_token=token, action_json=action_json, return_view=True
        ),
    )
    reply = await servicer.play_answer(request, ServicerContext())
    assert reply.WhichOneof("response") == "submit_action", reply
    view = await servicer.get_game(
        pb.GetGameRequest(game_id=game, seat=seat, seat_token=token), ServicerContext()
    )
    legal = await servicer.list_legal_actions(
        pb.ListLegalActionsRequest(game_id=game, seat=seat, seat_token=token), ServicerContext()
    )
    answered = reply.submit_action
    assert view.version == answered.version  # nobody else acted in between
    expected = pb.SubmitActionResponse(
        version=answered.version,
        first_version=answered.first_version,
        game=view,
        legal_actions=legal.actions,
    )
    assert answered.SerializeToString(deterministic=True) == expected.SerializeToString(
        deterministic=True
    )
    # Byte for byte as grpc serializes it too (what the gRPC face sends: issue 35).
    assert answered.SerializeToString() == expected.SerializeToString()
    return answered


def _view_cases() -> list[tuple[str, bool, bool]]:
    """(ruleset, clocked, serialized): every registered game, clocked and not, the
    engine's answer serialized (public_reply) or as a view (an engine from before it)."""
    return [
        (name, clocked, serialized)
        for name in game_names()
        for clocked in (False, True)
        for serialized in (True, False)
    ]


@pytest.mark.parametrize(("ruleset", "clocked", "serialized"), _view_cases())
async def test_the_engine_answers_the_view_the_gateway_would_show(
    redis_url: str,
    key_prefix: str,
    registry: RulesetRegistry,
    ruleset: str,
    clocked: bool,
    serialized: bool,
) -> None:
    """Hands and decks are hidden here: the engine shows each mover its own view only,
    the one the gateway's reads show it, and no events come with it; serialized
    (public_reply, issue 35), its bytes are those the gateway would serialize."""
    old = None if serialized else EngineBeforePublicReply
    async with split(redis_url, key_prefix, registry, old) as (servicer, client, engine):
        seats = [SeatSpec(SeatKind.HUMAN, f"p{n}", hash_token(t)) for n, t in enumerate(TOKENS)]
        control = TimeControl(base_ms=3_600_000, increment_ms=1_000) if clocked else None
        game = (await client.create_game(ruleset, seats, {}, time_control=control)).game_id
        rng = random.Random(f"{ruleset}-{clocked}-link")
        for request_id in range(1, 31):
            snapshot = await engine.load(game)
            if snapshot.is_terminal():
                break
            seat = snapshot.seats_to_act()[0]
            actions = await servicer.list_legal_actions(
                pb.ListLegalActionsRequest(game_id=game, seat=seat, seat_token=TOKENS[seat]),
                ServicerContext(),
            )
            action = rng.choice(list(actions.actions)).action_json
            answered = await answers_as_the_reads(servicer, game, seat, request_id, action)
            assert answered.game.HasField("time_control") == clocked
            result = client.results[-1]
            assert result.written == ()  # projected, not sent
            if serialized:
                assert result.view is None
                assert result.public_reply == answered.SerializeToString()
            else:
                assert result.view is not None and not result.public_reply
        others = [
            (
                await servicer.get_game(
                    pb.GetGameRequest(game_id=game, seat=s, seat_token=TOKENS[s]), ServicerContext()
                )
            ).state_json
            for s in range(3)
        ]
        assert len(set(others)) > 1  # the seats' views differ: hidden parts were compared


async def test_a_retried_command_answers_the_game_as_it_is_now(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with split(redis_url, key_prefix, registry) as (servicer, client, _engine):
        seats = [
            SeatSpec(SeatKind.HUMAN, n, hash_token(t))
            for n, t in zip("ab", TOKENS[:2], strict=True)
        ]
        game = (await client.create_game("nim", seats, {"max_take": 3})).game_id
        first = await client.submit_action(game, 0, {"take": 1}, command_id="a1", return_view=True)
        await client.submit_action(game, 1, {"take": 2}, command_id="b1")
        # The first move's reply was lost; its retry appends nothing and shows the game now.
        again = await client.submit_action(game, 0, {"take": 1}, command_id="a1", return_view=True)
        assert (again.version, again.first_version) == (first.version, first.first_version)
        assert again.view is not None and again.written == ()
        now = await servicer.get_game(
            pb.GetGameRequest(game_id=game, seat=0, seat_token=TOKENS[0]), ServicerContext()
        )
        assert again.view.game == now and now.version == first.version + 1
        assert [a.action_json for a in again.view.legal_actions] == [
            '{"take":1}',
            '{"take":2}',
            '{"take":3}',
        ]


async def test_an_engine_from_before_return_view_is_folded_for(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """Gateways may be upgraded before engines: an engine that never saw the field sends
    its events and no view, and the gateway folds them, answering the same."""
    async with split(redis_url, key_prefix, registry, EngineBeforeReturnView) as (
        servicer,
        client,
        _engine,
    ):
        seats = [
            SeatSpec(SeatKind.HUMAN, n, hash_token(t))
            for n, t in zip("ab", TOKENS[:2], strict=True)
        ]
        game = (await client.create_game("nim", seats, {"max_take": 3})).game_id
        await servicer.get_game(pb.GetGameRequest(game_id=game), ServicerContext())  # cached here
        for request_id, seat in enumerate([0, 1, 0, 1], start=1):
            await answers_as_the_reads(servicer, game, seat, request_id, '{"take":1}')
            result = client.results[-1]
            assert result.view is None and len(result.written) >= 1
