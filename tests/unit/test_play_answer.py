"""GameServicer.play_answer writes a SubmitAction's answer straight into the Play reply
(issue 16): the reply is what the unary call returns, and a refusal that comes after
part of it was written still answers with the refusal alone."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from teoti_client.proto import game_service_pb2

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache
from services.engine.domain.timing.time_control import TimeControl
from services.engine.transport.client import InProcessEngineClient
from services.gateway.servicer import GameServicer
from tests.game_samples import game_names
from tests.servicer_context import ServicerContext

pb = game_service_pb2
TOKENS = ("ann-token-0123456789abcdef", "bob-token-0123456789abcdef")


async def playing(registry: RulesetRegistry) -> tuple[GameServicer, Engine, str]:
    """A servicer sharing its engine's cache (as teoti serve does) and a Nim game."""
    store = InMemoryEventStore()
    snapshots = SnapshotCache(store, registry)
    engine = Engine(store, registry, seed_source=fixed_seed("play"), snapshots=snapshots)
    seats = [
        SeatSpec(SeatKind.HUMAN, name, hash_token(t)) for name, t in zip("ab", TOKENS, strict=True)
    ]
    game = (await engine.create_game("nim", seats, {})).game_id
    reader = GameReader(store, registry, snapshots)
    return GameServicer(reader, InProcessEngineClient(engine)), engine, game


def move(game: str, seat: int, request_id: int) -> Any:
    return pb.PlayRequest(
        request_id=request_id,
        submit_action=pb.SubmitActionRequest(
            game_id=game,
            seat=seat,
            seat_token=TOKENS[seat],
            action_json=json.dumps({"take": 1}),
            return_view=True,
        ),
    )


async def test_a_move_answered_on_play_is_the_unary_reply(registry: RulesetRegistry) -> None:
    servicer, engine, game = await playing(registry)
    reply = await servicer.play_answer(move(game, 0, 7), ServicerContext())
    assert reply.request_id == 7 and reply.WhichOneof("response") == "submit_action"
    version = (await engine.load(game)).version
    # What the unary reads answer at that version: the view and the legal actions.
    view = await servicer.get_game(
        pb.GetGameRequest(game_id=game, seat=0, seat_token=TOKENS[0]), ServicerContext()
    )
    legal = await servicer.list_legal_actions(
        pb.ListLegalActionsRequest(game_id=game, seat=0, seat_token=TOKENS[0]), ServicerContext()
    )
    expected = pb.SubmitActionResponse(
        version=version, first_version=version, game=view, legal_actions=legal.actions
    )
    assert reply.submit_action.SerializeToString(deterministic=True) == (
        expected.SerializeToString(deterministic=True)
    )
    assert reply.submit_action.game.version == version
    assert [seat.name for seat in reply.submit_action.game.seats] == ["a", "b"]
    assert json.loads(reply.submit_action.game.state_json)


async def test_a_refusal_after_the_answer_was_begun_answers_alone(
    registry: RulesetRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    servicer, _engine, game = await playing(registry)

    def broken(*_args: Any) -> Any:
        raise ValueError("the view cannot be shown")

    # The move is appended and the reply's versions written before the view fails.
    monkeypatch.setattr("services.gateway.servicer.add_legal_actions", broken)
    reply = await servicer.play_answer(move(game, 0, 9), ServicerContext())
    assert reply.WhichOneof("response") == "error"
    assert reply == pb.PlayResponse(request_id=9, error=reply.error)
    assert reply.error.code == 13  # INTERNAL, as the unary call would end


HIDDEN_TOKENS = tuple(f"seat-{n}-token-0123456789abcdef" for n in range(3))


@pytest.mark.parametrize("ruleset", game_names())
@pytest.mark.parametrize("clocked", [False, True])
async def test_moves_of_hidden_information_games_answer_as_the_unary_reads(
    registry: RulesetRegistry, ruleset: str, clocked: bool
) -> None:
    """Each move's Play answer is, byte for byte, GetGame and ListLegalActions of the
    seat that moved, never another seat's view (these rulesets hide hands and decks)."""
    store = InMemoryEventStore()
    snapshots = SnapshotCache(store, registry)
    engine = Engine(store, registry, seed_source=fixed_seed("hidden"), snapshots=snapshots)
    seats = [SeatSpec(SeatKind.HUMAN, f"p{n}", hash_token(t)) for n, t in enumerate(HIDDEN_TOKENS)]
    control = TimeControl(base_ms=3_600_000, increment_ms=1_000) if clocked else None
    game = (await engine.create_game(ruleset, seats, {}, time_control=control)).game_id
    servicer = GameServicer(GameReader(store, registry, snapshots), InProcessEngineClient(engine))
    rng = random.Random(f"{ruleset}-{clocked}")
    views_differ = False
    for request_id in range(1, 41):
        snapshot = await engine.load(game)
        if snapshot.is_terminal():
            break
        seat = snapshot.seats_to_act()[0]
        token = HIDDEN_TOKENS[seat]
        legal = await servicer.list_legal_actions(
            pb.ListLegalActionsRequest(game_id=game, seat=seat, seat_token=token), ServicerContext()
        )
        action = rng.choice(list(legal.actions)).action_json
        request = pb.PlayRequest(
            request_id=request_id,
            submit_action=pb.SubmitActionRequest(
                game_id=game, seat=seat, seat_token=token, action_json=action, return_view=True
            ),
        )
        reply = await servicer.play_answer(request, ServicerContext())
        assert reply.WhichOneof("response") == "submit_action", reply
        version = (await engine.load(game)).version
        views = [
            await servicer.get_game(
                pb.GetGameRequest(game_id=game, seat=s, seat_token=HIDDEN_TOKENS[s]),
                ServicerContext(),
            )
            for s in range(3)
        ]
        legal = await servicer.list_legal_actions(
            pb.ListLegalActionsRequest(game_id=game, seat=seat, seat_token=token), ServicerContext()
        )
        expected = pb.SubmitActionResponse(
            version=version,
            first_version=reply.submit_action.first_version,
            game=views[seat],
            legal_actions=legal.actions,
        )
        assert reply.submit_action.SerializeToString(deterministic=True) == (
            expected.SerializeToString(deterministic=True)
        )
        assert reply.submit_action.HasField("game")
        assert reply.submit_action.game.HasField("time_control") == clocked
        views_differ |= len({v.state_json for v in views}) > 1
    assert views_differ  # the seats' views did differ: the comparison saw hidden parts
