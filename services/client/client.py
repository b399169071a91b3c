"""``TeotiClient``: typed async access to GameService for Python programs and ``teoti``.

Failed calls raise the same domain errors as the engine (RuleViolation,
VersionConflict, GameNotFound, InvalidArgument, NotAuthorized, ...) decoded from the
status's ErrorInfo; transport failures stay ``grpc.aio.AioRpcError``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import grpc

from services.engine.store.records import StoredEvent, canonical_json
from services.rpc.convert import event_from_proto
from services.rpc.errors import from_rpc_error
from services.rpc.stubs import load_stubs


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as the server shows it (``token`` only for a seat you create/claim)."""

    kind: str  # "human" | "bot"
    name: str
    open: bool = False
    token: str = ""


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """Result of create_game: the game id, its version, and each claimed seat's token."""

    game_id: str
    version: int
    seat_tokens: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameView:
    """A projection of a game (GetGame / GetGameAt)."""

    game_id: str
    ruleset: str
    version: int
    state: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    seats_to_act: tuple[int, ...]
    finished: bool
    scores: tuple[int, ...]
    ranking: tuple[int, ...]
    head_hash: str
    seed_commitment: str
    revealed_seed: str


@dataclass(frozen=True, slots=True)
class LegalMove:
    """One legal action and its description."""

    action: dict[str, Any]
    description: str


@dataclass(frozen=True, slots=True)
class ActionResult:
    """Versions after an accepted action."""

    version: int
    first_version: int


@dataclass(frozen=True, slots=True)
class MoveResult:
    """An accepted action with the seat's view after it and its next legal actions
    (``game.version`` >= ``version``: others may have acted since)."""

    version: int
    first_version: int
    game: GameView
    legal_actions: tuple[LegalMove, ...]


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """Audit of a game's log (VerifyGame)."""

    ok: bool
    first_bad_version: int
    problems: tuple[str, ...]
    events: int
    head_hash: str
    seed_revealed: bool
    seed_verified: bool


_KINDS = {1: "human", 2: "bot"}


class TeotiClient:
    """Async client of ``teotihuacan.v1.GameService`` at ``target`` (``host:port``).

    Use ``async with TeotiClient(target) as client:``. ``timeout_s`` is the deadline of
    each unary call; ``channel_options`` are gRPC channel arguments (for instance
    ``("grpc.use_local_subchannel_pool", 1)`` for a connection of its own: channels to one
    target otherwise share one connection, and the gateway's rate limit is per connection).
    """

    def __init__(
        self,
        target: str,
        timeout_s: float = 30.0,
        channel_options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        stubs = load_stubs()
        self._pb = stubs.game_pb2
        self._channel = grpc.aio.insecure_channel(target, options=list(channel_options))
        self._stub = stubs.game_pb2_grpc.GameServiceStub(self._channel)
        self._timeout = timeout_s

    async def __aenter__(self) -> TeotiClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel."""
        await self._channel.close()

    async def _call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from error

    async def create_game(
        self,
        seats: Sequence[SeatInfo],
        ruleset: str = "",
        options: Mapping[str, Any] | None = None,
        command_id: str = "",
    ) -> CreatedGame:
        """Create a game; ``SeatInfo.token`` may preset a human seat's token."""
        kinds = {"human": self._pb.SEAT_KIND_HUMAN, "bot": self._pb.SEAT_KIND_BOT}
        request = self._pb.CreateGameRequest(
            ruleset=ruleset,
            seats=[
                self._pb.Seat(kind=kinds[s.kind], name=s.name, token=s.token, open=s.open)
                for s in seats
            ],
            options_json=canonical_json(dict(options or {})),
            command_id=command_id,
        )
        reply = await self._call(self._stub.CreateGame, request)
        return CreatedGame(
            reply.game_id, reply.version, {t.seat: t.token for t in reply.seat_tokens}
        )

    def _view(self, reply: Any) -> GameView:
        return GameView(
            reply.game_id,
            reply.ruleset,
            reply.version,
            json.loads(reply.state_json),
            tuple(SeatInfo(_KINDS.get(s.kind, "?"), s.name, s.open) for s in reply.seats),
            tuple(reply.seats_to_act),
            reply.finished,
            tuple(reply.scores),
            tuple(reply.result.ranking),
            reply.head_hash,
            reply.seed_commitment,
            reply.revealed_seed,
        )

    async def get_game(self, game_id: str, seat: int | None = None, token: str = "") -> GameView:
        """The public view, or ``seat``'s own view (needs its token)."""
        request = self._pb.GetGameRequest(game_id=game_id, seat_token=token)
        if seat is not None:
            request.seat = seat
        return self._view(await self._call(self._stub.GetGame, request))

    async def get_game_at(
        self, game_id: str, version: int, seat: int | None = None, token: str = ""
    ) -> GameView:
        """The view at an earlier ``version``."""
        request = self._pb.GetGameAtRequest(game_id=game_id, version=version, seat_token=token)
        if seat is not None:
            request.seat = seat
        return self._view((await self._call(self._stub.GetGameAt, request)).game)

    async def list_games(
        self, page_size: int = 20, page_token: str = "", ruleset: str = "", status: int = 0
    ) -> tuple[list[str], str]:
        """``(game ids, next page token)`` of one page."""
        reply = await self._call(
            self._stub.ListGames,
            self._pb.ListGamesRequest(
                page_size=page_size, page_token=page_token, ruleset=ruleset, status=status
            ),
        )
        return [g.game_id for g in reply.games], reply.next_page_token

    async def join_game(
        self, game_id: str, seat: int, name: str, token: str = "", command_id: str = ""
    ) -> str:
        """Claim an open seat; returns its token."""
        reply = await self._call(
            self._stub.JoinGame,
            self._pb.JoinGameRequest(
                game_id=game_id, seat=seat, name=name, seat_token=token, command_id=command_id
            ),
        )
        return str(reply.seat_token.token)

    async def legal_actions(self, game_id: str, seat: int, token: str) -> list[LegalMove]:
        """The seat's legal actions now."""
        reply = await self._call(
            self._stub.ListLegalActions,
            self._pb.ListLegalActionsRequest(game_id=game_id, seat=seat, seat_token=token),
        )
        return [LegalMove(json.loads(a.action_json), a.description) for a in reply.actions]

    async def submit_action(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        command_id: str = "",
    ) -> ActionResult:
        """Submit one action for a human seat."""
        request = self._pb.SubmitActionRequest(
            game_id=game_id,
            seat=seat,
            action_json=canonical_json(dict(action)),
            command_id=command_id,
            seat_token=token,
        )
        if expected_version is not None:
            request.expected_version = expected_version
        reply = await self._call(self._stub.SubmitAction, request)
        return ActionResult(reply.version, reply.first_version)

    async def play(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        command_id: str = "",
    ) -> MoveResult:
        """Submit one action and get the seat's new view and next legal actions in the
        same call (SubmitAction with ``return_view``): one round trip per move."""
        request = self._pb.SubmitActionRequest(
            game_id=game_id,
            seat=seat,
            action_json=canonical_json(dict(action)),
            command_id=command_id,
            seat_token=token,
            return_view=True,
        )
        if expected_version is not None:
            request.expected_version = expected_version
        reply = await self._call(self._stub.SubmitAction, request)
        return MoveResult(
            reply.version,
            reply.first_version,
            self._view(reply.game),
            tuple(LegalMove(json.loads(a.action_json), a.description) for a in reply.legal_actions),
        )

    async def events(self, game_id: str, from_version: int = 0) -> list[StoredEvent]:
        """The whole log after ``from_version`` (pages through ListEvents)."""
        result: list[StoredEvent] = []
        while True:
            reply = await self._call(
                self._stub.ListEvents,
                self._pb.ListEventsRequest(game_id=game_id, from_version=from_version),
            )
            result += [event_from_proto(e) for e in reply.events]
            if not reply.next_from_version:
                return result
            from_version = reply.next_from_version

    async def watch(self, game_id: str, from_version: int = 0) -> AsyncIterator[StoredEvent]:
        """Events as they are recorded, until the game ends (no deadline)."""
        try:
            async for reply in self._stub.WatchGame(
                self._pb.WatchGameRequest(game_id=game_id, from_version=from_version)
            ):
                yield event_from_proto(reply.event)
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from error

    async def verify(self, game_id: str) -> VerifyResult:
        """Audit the game's log on the server."""
        r = await self._call(self._stub.VerifyGame, self._pb.VerifyGameRequest(game_id=game_id))
        return VerifyResult(
            r.ok,
            r.first_bad_version,
            tuple(r.problems),
            r.events,
            r.head_hash,
            r.seed_revealed,
            r.seed_verified,
        )
