"""gRPC GameService: reads from the store + ruleset, writes through an EngineClient."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from services.engine.client import EngineClient
from services.engine.errors import InvalidArgument
from services.engine.game import GameSnapshot
from services.engine.reader import GameReader
from services.engine.rulesets import DEFAULT_RULESET
from services.engine.store.records import canonical_json
from services.rpc.convert import event_to_proto, parse_object, seats_from_proto, seats_to_proto
from services.rpc.errors import stream_errors, unary_errors
from services.rpc.stubs import load_stubs

Context = Any  # grpc.aio.ServicerContext; grpc ships no type stubs


def _check_seat(snapshot: GameSnapshot, seat: int) -> int:
    if not 0 <= seat < len(snapshot.seats):
        raise InvalidArgument(f"unknown seat {seat}; the game has {len(snapshot.seats)} seats")
    return seat


class GameServicer:
    """Implements teotihuacan.v1.GameService (see the proto for each RPC's contract).

    Args:
        reader: read side (store + registry).
        client: write side (in-process engine or remote EngineService).
        default_ruleset: used when CreateGame names none.
        watch_block_ms: how long one WatchGame poll blocks on Redis.
    """

    def __init__(
        self,
        reader: GameReader,
        client: EngineClient,
        default_ruleset: str = DEFAULT_RULESET,
        watch_block_ms: int = 1000,
    ) -> None:
        self._reader = reader
        self._client = client
        self._default_ruleset = default_ruleset
        self._block_ms = watch_block_ms
        self._pb = load_stubs().game_pb2

    @unary_errors
    async def CreateGame(self, request: Any, context: Context) -> Any:
        """Create a game through the engine."""
        result = await self._client.create_game(
            request.ruleset or self._default_ruleset,
            seats_from_proto(request.seats),
            parse_object(request.options_json, "options_json"),
            request.command_id,
        )
        return self._pb.CreateGameResponse(game_id=result.game_id, version=result.version)

    @unary_errors
    async def GetGame(self, request: Any, context: Context) -> Any:
        """Project the current state for a seat (or publicly)."""
        snapshot = await self._reader.load(request.game_id)
        seat = _check_seat(snapshot, request.seat) if request.HasField("seat") else None
        ruleset = snapshot.ruleset
        reply = self._pb.GetGameResponse(
            game_id=snapshot.game_id,
            ruleset=snapshot.ruleset_name,
            version=snapshot.version,
            state_json=canonical_json(ruleset.view(snapshot.state, seat)),
            seats=seats_to_proto(snapshot.seats),
            seats_to_act=list(snapshot.seats_to_act()),
            finished=snapshot.is_terminal(),
            scores=list(ruleset.scores(snapshot.state)),
        )
        result = ruleset.result(snapshot.state)
        if result is not None:
            reply.result.scores.extend(result.scores)
            reply.result.ranking.extend(result.ranking)
        return reply

    @unary_errors
    async def ListLegalActions(self, request: Any, context: Context) -> Any:
        """Every legal action of a seat, with descriptions."""
        snapshot = await self._reader.load(request.game_id)
        seat = _check_seat(snapshot, request.seat)
        ruleset = snapshot.ruleset
        actions = ruleset.legal_actions(snapshot.state, seat) if not snapshot.is_terminal() else []
        return self._pb.ListLegalActionsResponse(
            version=snapshot.version,
            actions=[
                self._pb.LegalAction(
                    action_json=canonical_json(dict(a)), description=ruleset.describe_action(a)
                )
                for a in actions
            ],
        )

    @unary_errors
    async def SubmitAction(self, request: Any, context: Context) -> Any:
        """Submit one action through the engine."""
        result = await self._client.submit_action(
            request.game_id,
            request.seat,
            parse_object(request.action_json, "action_json"),
            request.expected_version if request.HasField("expected_version") else None,
            request.command_id,
        )
        return self._pb.SubmitActionResponse(
            version=result.version, first_version=result.first_version
        )

    @stream_errors
    async def WatchGame(self, request: Any, context: Context) -> AsyncIterator[Any]:
        """Stream events after from_version until the game ends."""
        async for event in self._reader.watch(
            request.game_id, request.from_version, self._block_ms
        ):
            yield event_to_proto(event)

    @unary_errors
    async def ListEvents(self, request: Any, context: Context) -> Any:
        """A page of the log."""
        events = await self._reader.events(request.game_id, request.from_version, request.limit)
        return self._pb.ListEventsResponse(events=[event_to_proto(e) for e in events])
