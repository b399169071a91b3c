"""gRPC GameService: reads from the store + ruleset, writes through an EngineClient.

The gateway owns seat tokens: it generates them (or checks a client-chosen one's
strength), hands the engine only their hashes, and checks a request's token against the
seat's hash (from service-only storage) before showing a seat its own secrets or
forwarding an action. Events are shown exactly as stored and hash-chained: hidden
information is in them only as salted commitments, so nothing is redacted. Every method
first spends one unit of its client's rate limit (keyed by seat token, else by address:
:mod:`services.rpc.limits`); CreateGame also spends one of the caller's creation quota.
WatchGame streams wait in the process's :class:`~services.gateway.watch_hub.WatchHub`,
holding no Redis connection while idle. The gateway signs the heads it reports
(GetSignedHead, VerifyGame) with its signing key (:mod:`services.engine.domain.head_signing`),
on read only: a move costs no signature.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import grpc
import structlog
from teoti_client.proto import game_service_pb2 as pb

from services.engine.domain.command_result import CommandResult
from services.engine.domain.errors import InvalidArgument, NotAuthorized
from services.engine.domain.event_words import DescribedEvents
from services.engine.domain.game import GameSnapshot
from services.engine.domain.game_seats import SeatKind, check_client_token, hash_token, new_token
from services.engine.domain.head_signing import SignedHead, SigningKeys
from services.engine.domain.leaving import SEAT_RESIGNED
from services.engine.domain.reader import GameReader
from services.engine.domain.records import (
    GameIndexEntry,
    PrivateRecords,
    StoredEvent,
    canonical_json,
)
from services.engine.domain.ruleset import Resignation, RuleViolation
from services.engine.domain.rulesets import default_ruleset as installed_default
from services.engine.transport.client import EngineClient
from services.engine.transport.proto_convert import (
    BindToCallerInvalid,
    event_to_proto,
    parse_object,
    seats_to_proto,
    seats_with_tokens,
    time_control_from_proto,
)
from services.engine.transport.proto_projection import add_game_view, add_legal_actions
from services.engine.transport.status_mapping import (
    abort_for,
    rich_status,
    stream_errors,
    unary_errors,
)
from services.gateway.play_stream import PLAY_IDLE_GRACE_S, PlayStreamIdle, serve_stream
from services.gateway.player_auth import player_credential
from services.gateway.raw_replies import play_response
from services.gateway.watch_hub import WatchHub
from services.players.credentials import is_player_credential
from services.players.errors import NotYourPlayer
from services.players.service import PlayerService
from services.rpc import deadlines
from services.rpc.errors import BadRequest, internal_status
from services.rpc.limits import (
    ClientRateLimiter,
    CreationQuota,
    PlayStreamLimit,
    StreamBudget,
    WatcherLimit,
    peer_address,
)

Context = Any  # grpc.aio.ServicerContext; grpc ships no type stubs
log = structlog.get_logger(__name__)

STREAM_END_METADATA = "teoti-stream-end"
"""Trailing metadata key saying why the server ended a Play stream with status OK."""
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_EVENTS_PAGE = 1000


_OUTCOMES = {
    Resignation.GAME_ENDS.value: pb.RESIGN_OUTCOME_GAME_ENDED,
    Resignation.SEAT_OUT.value: pb.RESIGN_OUTCOME_FORFEITED,
    Resignation.BOT_PLAYS.value: pb.RESIGN_OUTCOME_TAKEN_OVER,
}
"""SeatResigned's ``outcome`` as ResignSeatResponse's."""


def _check_seat(snapshot: GameSnapshot, seat: int) -> int:
    if not 0 <= seat < len(snapshot.seats):
        raise InvalidArgument(f"unknown seat {seat}; the game has {len(snapshot.seats)} seats")
    return seat


def request_token(request: Any, context: Context) -> str:
    """The seat token of a request: its ``seat_token`` field, else ``authorization: Bearer``
    (the scheme in any case, as RFC 7235 has it: ``bearer`` and ``BEARER`` too)."""
    if request.seat_token:
        return str(request.seat_token)
    return bearer_token(context)


def bearer_token(context: Context) -> str:
    """The call's ``authorization: Bearer`` token ("" if none): the default seat token of
    its requests (of every message, on a Play stream)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str):
            scheme, _, token = value.strip().partition(" ")
            if scheme.lower() == "bearer":
                return token.strip()
    return ""


class NotYourSeat(NotAuthorized):
    """A player credential for a seat bound to another player, or to none
    (PERMISSION_DENIED, reason ``not_your_seat``): a player acts only for the seats bound
    to it (Seat.player)."""

    rule = "not_your_seat"


def authorize(
    snapshot: GameSnapshot,
    seat: int,
    token: str,
    token_hash: str | None = None,
    player: str = "",
) -> None:
    """Raise NotAuthorized unless ``token`` (or the player ``player``, whose credential
    the gateway checked) may act for / look at ``seat``: NotYourSeat
    ``not_your_seat`` when a player is given and neither it nor the token holds the seat.

    ``token_hash``: ``hash_token(token)`` when the caller has it already (the gateway
    hashes a request's token once, for its rate-limit key and this check)."""
    spec = snapshot.seats[_check_seat(snapshot, seat)]
    if spec.kind is SeatKind.BOT:
        raise NotAuthorized(f"seat {seat} is a bot seat, played by the engine")
    if player and spec.accepts_player(player):
        return
    if token and spec.accepts_hash(hash_token(token) if token_hash is None else token_hash):
        return
    if player:
        raise NotYourSeat(
            f"seat {seat} is not bound to this player: a player credential acts only for "
            "the seats bound to its player"
        )
    if not token:
        raise NotAuthorized(f"seat {seat} needs its seat token")
    raise NotAuthorized(f"wrong token for seat {seat}")


async def authorize_seat(
    reader: GameReader,
    game_id: str,
    seat: int,
    token: str,
    token_hash: str | None = None,
    player: str = "",
) -> None:
    """Raise NotAuthorized (or InvalidArgument, GameNotFound) unless ``token`` (or the
    player ``player``) may act for ``seat`` of ``game_id``, checked on the cached game
    when this process has it (``token_hash`` as for :func:`authorize`).

    Seats only change by SeatJoined claiming an open seat: a seat's count, a bot seat and
    a claimed seat's token hash and player never change. So an out-of-date snapshot can
    wrongly refuse (a seat claimed since) but never wrongly accept, and only a refusal
    needs the stored log: that saves the read of every accepted action.
    """
    cached = reader.cached(game_id)
    if cached is not None:
        try:
            authorize(cached, seat, token, token_hash, player)
            return
        except (NotAuthorized, InvalidArgument):
            pass  # perhaps a seat claimed since: check on the log
    authorize(await reader.load(game_id), seat, token, token_hash, player)


_SEAT_IS_OPTIONAL: dict[type, bool] = {}
"""Request type -> whether its ``seat`` field is optional (has presence), asked once per
type: HasField raising ValueError for a plain field cost every move an exception."""


def _names_seat(request: Any) -> bool:
    """Whether ``request`` names a seat (an optional ``seat`` set, or a plain one)."""
    optional = _SEAT_IS_OPTIONAL.get(type(request))
    if optional is None:
        field = request.DESCRIPTOR.fields_by_name.get("seat")
        optional = _SEAT_IS_OPTIONAL[type(request)] = field is not None and field.has_presence
    # A plain (non-optional) seat field always names one.
    return bool(request.HasField("seat")) if optional else True


def _passed_seat_check(message: Any, reply: Any) -> bool:
    """True if the PlayResponse ``reply`` (a message, or serialized: see
    :meth:`GameServicer.play_answer`) answers the PlayRequest ``message`` with what only a
    seat's token gets: a move, legal actions, or a seat's view."""
    if type(reply) is bytes:  # only an accepted move is answered serialized
        return True
    kind = reply.WhichOneof("response")
    if kind in ("submit_action", "list_legal_actions"):
        return True
    return kind == "get_game" and bool(message.get_game.HasField("seat"))


class WithViewNeedsSeat(InvalidArgument):
    """WatchGame ``with_view`` without a ``seat`` (INVALID_ARGUMENT, reason
    ``with_view_needs_seat``): a view and legal actions are some seat's own."""

    rule = "with_view_needs_seat"


class FromVersionAhead(InvalidArgument):
    """WatchGame from a version the log has not reached (INVALID_ARGUMENT, reason
    ``from_version_ahead``): such a watch would wait for events that may never come."""

    rule = "from_version_ahead"


class SigningKeyMissing(RuleViolation):
    """GetSignedHead on a gateway started without a signing key (FAILED_PRECONDITION,
    reason ``signing_key_missing``): it cannot sign, and says so rather than answer
    something unsigned."""

    def __init__(self) -> None:
        super().__init__(
            "signing_key_missing",
            "this gateway was started without a signing key (--signing-key-file or "
            "$TEOTI_SIGNING_KEY_FILE; docs/operations.md 'Signing keys'), so it signs nothing",
        )


class GameServicer:
    """Implements gameserver.v1.GameService (see the proto for each RPC's contract).

    Args:
        reader: read side (store + registry).
        client: write side (in-process engine or remote EngineService).
        default_ruleset: used when CreateGame names none.
        hub: the WatchGame fan-out (default: one on ``reader.store``).
        limiter: rate limit per client.
        quota: CreateGame quota per caller.
        watchers: WatchGame streams open at once per client.
        play_streams: Play streams open at once per client.
        signing: the keys it signs heads with and publishes (default: none, then
            GetSignedHead is refused with ``signing_key_missing``).
        streams: WatchGame and Play streams together, in all and per address (share one
            object between the faces of a process: they share its calls' room).
        play_grace_s: a Play stream that has passed no seat token check is ended once
            idle this long (:data:`services.gateway.play_stream.PLAY_IDLE_GRACE_S`).
        players: the player accounts, to authenticate player credentials (None: this
            gateway knows no players, and only seat tokens act for seats).
        raw_replies: SubmitAction and Play may answer a move with ``bytes``, the
            response as the engine serialized it (issue 35): only for a gRPC server whose
            response serializer sends bytes as they are
            (services.rpc.server.passing_bytes). False (the web face, tests): always
            messages.
    """

    def __init__(
        self,
        reader: GameReader,
        client: EngineClient,
        default_ruleset: str | None = None,
        hub: WatchHub | None = None,
        limiter: ClientRateLimiter | None = None,
        quota: CreationQuota | None = None,
        watchers: WatcherLimit | None = None,
        play_streams: PlayStreamLimit | None = None,
        signing: SigningKeys | None = None,
        streams: StreamBudget | None = None,
        play_grace_s: float = PLAY_IDLE_GRACE_S,
        players: PlayerService | None = None,
        raw_replies: bool = False,
    ) -> None:
        self._reader = reader
        self._raw_replies = raw_replies
        self._players = players
        self._client = client
        self._default_ruleset = default_ruleset or installed_default()
        self.hub = hub or WatchHub(reader.store)
        self._limiter = limiter or ClientRateLimiter()
        self._quota = quota or CreationQuota()
        self._watchers = watchers or WatcherLimit()
        self._play_streams = play_streams or PlayStreamLimit()
        self.signing = signing or SigningKeys(None)
        self._streams = streams or StreamBudget()
        self._play_grace_s = play_grace_s
        # Events in words (Event.description), each worded once for all its watchers.
        self._words = DescribedEvents()

    def _admit(self, context: Context, request: Any = None) -> tuple[str, str | None]:
        """Spend one unit of the caller's rate limit (RateLimited when spent); returns
        the request's seat token ("" if none) and its ``hash_token`` digest (None if no
        token), hashed once here for the limit's key and the seat check."""
        token = request_token(request, context) if request is not None else ""
        token_hash = hash_token(token) if token else None
        self._limiter.admit(str(context.peer()), token, token_hash)
        deadlines.record(context)  # the engine call gets what is left of it
        return token, token_hash

    async def _credentials(self, context: Context, request: Any) -> tuple[str, str | None, str]:
        """``_admit``'s (token, token hash), and the id of the player whose credential
        the call carries ("" for none, or when the request names no seat):
        ``authorization: Player <credential>``, else a ``tpc_`` credential sent where a
        seat token goes. Checked against Redis each time (a revoke is felt at once).
        Raises NotYourPlayer ``player_credential_invalid`` for an invalid credential in
        the metadata (one in a token's place that is no credential is taken as a
        token)."""
        token, token_hash = self._admit(context, request)
        if self._players is None or not _names_seat(request):
            return token, token_hash, ""
        credential = player_credential(context)
        if credential:
            return token, token_hash, await self._players.authenticate(credential)
        if is_player_credential(token):
            try:
                return token, token_hash, await self._players.authenticate(token)
            except NotYourPlayer:
                return token, token_hash, ""  # a seat token that looks like one
        return token, token_hash, ""

    async def _caller(self, context: Context) -> str:
        """The id of the player whose ``authorization: Player`` credential the call
        carries. Raises NotYourPlayer ``player_credential_invalid`` (none, or invalid),
        BindToCallerInvalid (this gateway serves no players)."""
        if self._players is None:
            raise BindToCallerInvalid("this gateway serves no player accounts")
        return await self._players.authenticate(player_credential(context))

    @unary_errors
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Context
    ) -> pb.CreateGameResponse:
        """Create a game through the engine; returns the claimed seats' tokens."""
        self._admit(context)
        self._quota.admit(str(context.peer()))
        if any(seat.bind_to_caller for seat in request.seats):
            caller = await self._caller(context)
            name = (await self._players.get(caller)).name if self._players else ""
            seats, tokens = seats_with_tokens(request.seats, caller, name)
        else:
            seats, tokens = seats_with_tokens(request.seats)
        result = await self._client.create_game(
            request.ruleset or self._default_ruleset,
            seats,
            parse_object(request.options_json, "options_json"),
            request.command_id,
            time_control_from_proto(request),
            request.rated,
        )
        # A retried create returns the first game: only tokens it really holds go back.
        # Seats claimed at creation never change, so the game as cached will do. A new
        # game is folded from the events the engine reports, bound to the token hashes
        # sent with them (what the store keeps), instead of read back (three reads).
        bindings = PrivateRecords(
            token_hashes={i: seat.token_hash for i, seat in enumerate(seats) if seat.token_hash}
        )
        game = (
            self._reader.cached(result.game_id)
            or self._reader.created(result.game_id, result.written, bindings)
            or await self._reader.load(result.game_id)
        )
        stored = game.seats
        return pb.CreateGameResponse(
            game_id=result.game_id,
            version=result.version,
            seat_tokens=[
                pb.SeatToken(seat=seat, token=token)
                for seat, token in sorted(tokens.items())
                if stored[seat].token_hash == hash_token(token)
            ],
        )

    def _projection(
        self, snapshot: GameSnapshot, seat: int | None, into: pb.GetGameResponse | None = None
    ) -> pb.GetGameResponse:
        """``seat``'s view of ``snapshot`` (public for None) as a GetGameResponse, written
        into ``into`` (an empty GetGameResponse, such as a reply's own field, so nothing
        is copied into it afterwards: two deep copies a move on Play, issue 16) or a new
        one; returns it (:func:`services.engine.transport.proto_projection.add_game_view`)."""
        reply = pb.GetGameResponse() if into is None else into
        add_game_view(reply, snapshot, seat)
        return reply

    def _viewer(
        self, snapshot: GameSnapshot, request: Any, credentials: tuple[str, str | None, str]
    ) -> int | None:
        """The request's seat (None if it names none), once its token (``_admit``'s
        ``credentials``) is checked for it."""
        if not request.HasField("seat"):
            return None
        authorize(snapshot, request.seat, *credentials)
        return int(request.seat)

    @unary_errors
    async def GetGame(self, request: pb.GetGameRequest, context: Context) -> pb.GetGameResponse:
        """Project the current state publicly, or for a seat holding its token."""
        return await self.get_game(request, context)

    async def get_game(self, request: pb.GetGameRequest, context: Context) -> pb.GetGameResponse:
        """GetGame's work, shared by the unary call and Play: a GetGameResponse, or the
        domain error (GameNotFound, NotAuthorized, RateLimited ...) it is refused with."""
        credentials = await self._credentials(context, request)
        snapshot = await self._reader.load(request.game_id)
        return self._projection(snapshot, self._viewer(snapshot, request, credentials))

    @unary_errors
    async def GetGameAt(
        self, request: pb.GetGameAtRequest, context: Context
    ) -> pb.GetGameAtResponse:
        """Project the state at an earlier version."""
        credentials = await self._credentials(context, request)
        snapshot = await self._reader.load_at(request.game_id, request.version)
        reply = pb.GetGameAtResponse()
        self._projection(snapshot, self._viewer(snapshot, request, credentials), reply.game)
        return reply

    @unary_errors
    async def ListGames(
        self, request: pb.ListGamesRequest, context: Context
    ) -> pb.ListGamesResponse:
        """A page of games, oldest first, filtered by ruleset and status."""
        self._admit(context)
        size = request.page_size or DEFAULT_PAGE_SIZE
        if not 0 < size <= MAX_PAGE_SIZE:
            raise InvalidArgument(f"page_size must be 1..{MAX_PAGE_SIZE}")
        try:
            after = GameIndexEntry.from_token(request.page_token) if request.page_token else None
        except ValueError as exc:
            raise InvalidArgument(str(exc)) from exc
        entries = await self._reader.list_games(after, size)
        games = []
        for entry in entries:
            snapshot = await self._reader.load(entry.game_id)
            if self._listed(snapshot, request):
                games.append(
                    pb.GameSummary(
                        game_id=snapshot.game_id,
                        ruleset=snapshot.ruleset_name,
                        seats=seats_to_proto(snapshot.seats),
                        version=snapshot.version,
                        finished=snapshot.is_terminal(),
                        created_at_ms=entry.created_ms,
                    )
                )
        token = entries[-1].to_token() if len(entries) == size else ""
        return pb.ListGamesResponse(games=games, next_page_token=token)

    def _listed(self, snapshot: GameSnapshot, request: pb.ListGamesRequest) -> bool:
        if request.ruleset and snapshot.ruleset_name != request.ruleset:
            return False
        status = int(request.status)
        finished = snapshot.is_terminal()
        if status == pb.GAME_STATUS_FILTER_ACTIVE:
            return not finished
        if status == pb.GAME_STATUS_FILTER_FINISHED:
            return finished
        if status == pb.GAME_STATUS_FILTER_OPEN:
            return not finished and any(seat.is_open for seat in snapshot.seats)
        return True

    @unary_errors
    async def JoinGame(self, request: pb.JoinGameRequest, context: Context) -> pb.JoinGameResponse:
        """Claim an open seat with a client-chosen or fresh token; with a player
        credential (``authorization: Player``), for that player, with no seat token
        unless one is chosen."""
        self._admit(context, request)
        if player_credential(context):
            caller = await self._caller(context)
            token = check_client_token(request.seat_token) if request.seat_token else ""
            # A seat bound to a player shows that player's name: nobody sits under
            # another player's name (the request's name is for token seats).
            name = request.name
            if self._players is not None:
                name = (await self._players.get(caller)).name
            result = await self._client.join_game(
                request.game_id,
                request.seat,
                name,
                hash_token(token) if token else "",
                request.command_id,
                player=caller,
            )
            return pb.JoinGameResponse(
                version=result.version, seat_token=pb.SeatToken(seat=request.seat, token=token)
            )
        token = check_client_token(request.seat_token) if request.seat_token else new_token()
        result = await self._client.join_game(
            request.game_id, request.seat, request.name, hash_token(token), request.command_id
        )
        return pb.JoinGameResponse(
            version=result.version,
            seat_token=pb.SeatToken(seat=request.seat, token=token),
        )

    @unary_errors
    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: Context
    ) -> pb.ListLegalActionsResponse:
        """Every legal action of a seat (with its token), with descriptions."""
        return await self.list_legal_actions(request, context)

    async def list_legal_actions(
        self, request: pb.ListLegalActionsRequest, context: Context
    ) -> pb.ListLegalActionsResponse:
        """ListLegalActions' work, shared by the unary call and Play: a
        ListLegalActionsResponse, or the domain error it is refused with."""
        credentials = await self._credentials(context, request)
        snapshot = await self._reader.load(request.game_id)
        authorize(snapshot, request.seat, *credentials)
        reply = pb.ListLegalActionsResponse(version=snapshot.version)
        add_legal_actions(reply.actions, snapshot, request.seat)
        return reply

    @unary_errors
    async def SubmitAction(
        self, request: pb.SubmitActionRequest, context: Context
    ) -> pb.SubmitActionResponse | bytes:
        """Check the seat's token, then submit the action through the engine; with
        ``return_view`` also answer with the seat's view and next legal actions (as the
        engine serialized them, with ``raw_replies``)."""
        result = await self._move(request, context)
        if self._raw_replies and result.public_reply:
            return result.public_reply
        return await self._answer(request, result)

    async def submit_action(
        self,
        request: pb.SubmitActionRequest,
        context: Context,
        into: pb.SubmitActionResponse | None = None,
    ) -> pb.SubmitActionResponse:
        """SubmitAction's work, shared by the unary call and Play: a
        SubmitActionResponse (written into ``into``, an empty one, if given), or the
        domain error it is refused with (RuleViolation, VersionConflict, NotAuthorized,
        InvalidArgument, RateLimited, Unavailable ...); a refusal may leave ``into``
        partly written."""
        return await self._answer(request, await self._move(request, context), into)

    async def _move(self, request: pb.SubmitActionRequest, context: Context) -> CommandResult:
        """Spend the caller's rate limit, check the seat's token, then submit the action
        through the engine (asking a separate one for the serialized answer with
        ``return_view``); raises as :meth:`submit_action` says."""
        credentials = await self._credentials(context, request)
        action = parse_object(request.action_json, "action_json")
        await authorize_seat(self._reader, request.game_id, request.seat, *credentials)
        return await self._client.submit_action(
            request.game_id,
            request.seat,
            action,
            request.expected_version if request.HasField("expected_version") else None,
            request.command_id,
            return_view=request.return_view,
            public_reply=request.return_view,
            # Decoded above only to refuse bad JSON before the seat check: the engine
            # decodes this same text, to the same action.
            action_json=request.action_json,
        )

    async def _answer(
        self,
        request: pb.SubmitActionRequest,
        result: CommandResult,
        into: pb.SubmitActionResponse | None = None,
    ) -> pb.SubmitActionResponse:
        """The SubmitActionResponse to ``request`` for the engine's ``result``, as a
        message (written into ``into``, an empty one, if given)."""
        reply = pb.SubmitActionResponse() if into is None else into
        if result.public_reply:
            # Serialized by the engine (issue 35): the whole answer, read as it is.
            reply.SetInParent()
            reply.MergeFromString(result.public_reply)
            return reply
        reply.SetInParent()
        reply.version = result.version
        reply.first_version = result.first_version
        if not request.return_view:
            return reply
        # One round trip per move: the seat's token was checked above, and a seat's token
        # hash never changes, so its view may be shown without a second check.
        if result.view is not None:
            # A separate engine from before public_reply projected it from the game it
            # just wrote (issue 16: the events are not folded a second time here).
            reply.game.CopyFrom(result.view.game)
            reply.legal_actions.extend(result.view.legal_actions)
            return reply
        # The engine in this process (its cache is this one: folded already), or one from
        # before return_view, which reports what it appended: fold that onto the cached
        # game rather than read it back from the store (a read when that cannot be done).
        snapshot = self._reader.advance(request.game_id, result.written) or await self._reader.load(
            request.game_id
        )
        self._projection(snapshot, request.seat, reply.game)
        add_legal_actions(reply.legal_actions, snapshot, request.seat)
        return reply

    @unary_errors
    async def ResignSeat(
        self, request: pb.ResignSeatRequest, context: Context
    ) -> pb.ResignSeatResponse:
        """Check the seat's token, then resign it through the engine; the outcome is read
        back from the SeatResigned event the resignation wrote (or, for a retried
        command id, wrote before). The seat's player credential acts for it as its
        token does."""
        credentials = await self._credentials(context, request)
        await authorize_seat(self._reader, request.game_id, request.seat, *credentials)
        result = await self._client.resign_seat(request.game_id, request.seat, request.command_id)
        reply = pb.ResignSeatResponse(version=result.version, first_version=result.first_version)
        written = await self._reader.events(request.game_id, result.first_version - 1, 1)
        if written and written[0].type == SEAT_RESIGNED:
            reply.outcome = _OUTCOMES.get(
                str(written[0].payload.get("outcome")), pb.RESIGN_OUTCOME_UNSPECIFIED
            )
        snapshot = self._reader.cached(request.game_id)
        if snapshot is None or snapshot.version < result.version:
            snapshot = await self._reader.load(request.game_id)
        reply.finished = snapshot.is_terminal()
        return reply

    @unary_errors
    async def ClaimSeatForBot(
        self, request: pb.ClaimSeatForBotRequest, context: Context
    ) -> pb.ClaimSeatForBotResponse:
        """Check the claiming seat's token, then hand ``seat`` to a bot through the
        engine (which refuses a seat whose clock has not run out and is not absent).
        The claiming seat's player credential acts for it as its token does."""
        credentials = await self._credentials(context, request)
        await authorize_seat(self._reader, request.game_id, request.claimed_by, *credentials)
        result = await self._client.claim_seat_for_bot(
            request.game_id, request.seat, request.claimed_by, request.command_id
        )
        return pb.ClaimSeatForBotResponse(
            version=result.version, first_version=result.first_version
        )

    @stream_errors
    async def WatchGame(
        self, request: pb.WatchGameRequest, context: Context
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """Stream events after from_version until the game ends (public unless a seat with
        its token is given; with ``with_view``, the last event of each batch also carries
        the seat's view and legal actions at its version). Raises InvalidArgument for a
        negative from_version, WithViewNeedsSeat (``with_view_needs_seat``),
        NotAuthorized for a seat without its token, FromVersionAhead
        (``from_version_ahead``) for one past the log's head."""
        credentials = await self._credentials(context, request)
        if request.from_version < 0:
            raise InvalidArgument("from_version must be 0 (the start) or more")
        if request.with_view and not request.HasField("seat"):
            raise WithViewNeedsSeat("with_view needs a seat (and its token)")
        peer = str(context.peer())
        client = ClientRateLimiter.client_key(peer, credentials[0])
        address = peer_address(peer)
        with self._streams.hold(address), self._watchers.hold(client, address):
            snapshot = await self._reader.load(request.game_id)
            seat = self._viewer(snapshot, request, credentials)  # a seat must hold its token
            if request.from_version > snapshot.version:
                # The cached snapshot may trail the log: ask the store before refusing.
                head = await self._reader.store.version(request.game_id)
                if request.from_version > head:
                    raise FromVersionAhead(
                        f"from_version {request.from_version} is past the game's current "
                        f"version {head}; watch from {head} or less"
                    )
            # Headers now: the client knows the watch was accepted before any event comes.
            await context.send_initial_metadata(())
            batches = self.hub.follow_batches(
                self._reader, request.game_id, request.from_version, snapshot
            )
            async with contextlib.aclosing(batches):
                async for batch in batches:
                    # The latest fold names the seats (one joined since the watch began).
                    names = self._reader.cached(request.game_id) or snapshot
                    for event in batch[:-1]:
                        yield pb.WatchGameResponse(
                            event=event_to_proto(event, self._words.of(names, event))
                        )
                    last = pb.WatchGameResponse(
                        event=event_to_proto(batch[-1], self._words.of(names, batch[-1]))
                    )
                    if request.with_view and seat is not None:
                        await self._attach_view(last, request.game_id, seat, batch)
                    yield last

    async def _attach_view(
        self, reply: Any, game_id: str, seat: int, batch: list[StoredEvent]
    ) -> None:
        """Put ``seat``'s view and legal actions at ``batch[-1]``'s version into the
        WatchGameResponse ``reply`` (the GetGame / ListLegalActions projection)."""
        version = batch[-1].version
        snapshot = self._reader.cached(game_id)
        if snapshot is None or snapshot.version < version:
            # Fold the batch onto the cached game when it ends right before it.
            ahead = [
                event for event in batch if snapshot is None or event.version > snapshot.version
            ]
            snapshot = self._reader.advance(game_id, ahead) or await self._reader.load(game_id)
        if snapshot.version != version:
            if version < 2:
                return  # the game's creation alone: no setup, no view yet
            # The game moved on since this batch was read: fold the log up to it (rare).
            snapshot = await self._reader.load_at(game_id, version)
        self._projection(snapshot, seat, reply.game)
        add_legal_actions(reply.legal_actions, snapshot, seat)

    @unary_errors
    async def ListEvents(
        self, request: pb.ListEventsRequest, context: Context
    ) -> pb.ListEventsResponse:
        """A page of the log."""
        credentials = await self._credentials(context, request)
        limit = request.limit or MAX_EVENTS_PAGE
        if not 0 < limit <= MAX_EVENTS_PAGE:
            raise InvalidArgument(f"limit must be 1..{MAX_EVENTS_PAGE}")
        if request.from_version < 0:
            raise InvalidArgument("from_version must be 0 (the start) or more")
        snapshot = await self._reader.load(request.game_id)
        self._viewer(snapshot, request, credentials)  # a seat given must hold its token
        events = await self._reader.events(request.game_id, request.from_version, limit)
        more = len(events) == limit and events[-1].version < await self._reader.store.version(
            request.game_id
        )
        return pb.ListEventsResponse(
            events=[event_to_proto(e, self._words.of(snapshot, e)) for e in events],
            next_from_version=events[-1].version if more else 0,
        )

    @unary_errors
    async def VerifyGame(
        self, request: pb.VerifyGameRequest, context: Context
    ) -> pb.VerifyGameResponse:
        """Audit the whole log; when it checks out and this gateway has a signing key,
        also sign the head it audited (``signed_head``)."""
        self._admit(context)
        report = await self._reader.audit(request.game_id)
        reply = pb.VerifyGameResponse(
            ok=report.ok,
            first_bad_version=report.first_bad_version,
            problems=list(report.problems),
            events=report.events,
            head_hash=report.head_hash,
            seed_revealed=report.seed_revealed,
            seed_verified=report.seed_verified,
        )
        if report.ok and report.events >= 2 and self.signing.signer is not None:
            snapshot = await self._reader.load(request.game_id)
            if snapshot.version != report.events:  # it moved on since: the audited head
                snapshot = await self._reader.load_at(request.game_id, report.events)
            if snapshot.head_hash == report.head_hash:
                self._signed_proto(self._sign(snapshot), reply.signed_head)
        return reply

    def _sign(self, snapshot: GameSnapshot) -> SignedHead:
        """The signed statement of ``snapshot``'s head (SigningKeyMissing without a key)."""
        signer = self.signing.signer
        if signer is None:
            raise SigningKeyMissing()
        return signer.sign(
            snapshot.game_id,
            snapshot.ruleset_name,
            snapshot.version,
            snapshot.head_hash,
            snapshot.is_terminal(),
        )

    def _signed_proto(self, signed: SignedHead, into: pb.SignedHead) -> pb.SignedHead:
        into.statement_json = signed.statement
        into.signature = signed.signature
        into.key_id = signed.key_id
        return into

    @unary_errors
    async def GetSignedHead(
        self, request: pb.GetSignedHeadRequest, context: Context
    ) -> pb.GetSignedHeadResponse:
        """Sign the game's current head, as GetGame reports it."""
        self._admit(context)
        if self.signing.signer is None:
            raise SigningKeyMissing()
        snapshot = await self._reader.load(request.game_id)
        reply = pb.GetSignedHeadResponse()
        self._signed_proto(self._sign(snapshot), reply.signed_head)
        return reply

    @unary_errors
    async def ListSigningKeys(
        self, request: pb.ListSigningKeysRequest, context: Context
    ) -> pb.ListSigningKeysResponse:
        """The published public keys: the current one first, then retired ones."""
        self._admit(context)
        return pb.ListSigningKeysResponse(
            keys=[pb.SigningKey(**key.to_json()) for key in self.signing.published()]
        )

    @unary_errors
    async def ListRulesets(
        self, request: pb.ListRulesetsRequest, context: Context
    ) -> pb.ListRulesetsResponse:
        """Every registered ruleset with its metadata (its declaration's ``RulesetInfo``),
        sorted by name; one whose declaration cannot be loaded is logged and left out."""
        self._admit(context)
        reply = pb.ListRulesetsResponse()
        for declared in self._reader.registry.declarations():
            name, info = declared.name, declared.info
            entry = reply.rulesets.add(
                name=name,
                title=info.title,
                min_seats=info.min_seats,
                max_seats=info.max_seats,
                is_default=name == self._default_ruleset,
            )
            if info.solo is not None:
                entry.solo.options_json = canonical_json(dict(info.solo.options))
                entry.solo.seats = info.solo.seats
                entry.solo.opponent = info.solo.opponent
        return reply

    async def Play(self, requests: AsyncIterable[pb.PlayRequest], context: Context) -> None:
        """One long-lived stream of SubmitAction / GetGame / ListLegalActions requests
        (issue 16), each answered as its unary call would be (:meth:`play_answer`).

        Opening the stream spends one unit of the client's rate limit and holds one of
        its Play streams (TooManyPlayStreams beyond) and one of its address's share of
        the process's streams (TooManyStreams), either refusal ending the stream; an
        accepted stream is acknowledged at once with its headers (initial metadata),
        before any request, so a client can tell it was admitted
        (``TeotiClient.connect``). Each message then spends one unit as a unary call does.

        The stream's Bearer token is checked only with a request, so until a request on
        it has passed a seat's token check (an answered SubmitAction, ListLegalActions,
        or GetGame naming a seat), the stream is ended once idle for the grace
        (``play_grace_s``): status OK, trailer STREAM_END_METADATA ``play_stream_idle:
        ...``. See
        :mod:`services.gateway.play_stream`.
        """
        try:
            token = bearer_token(context)
            peer = str(context.peer())
            self._limiter.admit(peer, token)
            client = ClientRateLimiter.client_key(peer, token)
            address = peer_address(peer)
            with self._streams.hold(address), self._play_streams.hold(client, address):
                await context.send_initial_metadata(())
                seated = False

                async def answer(message: pb.PlayRequest | BadRequest) -> pb.PlayResponse | bytes:
                    nonlocal seated
                    reply = await self.play_answer(message, context)
                    seated = seated or _passed_seat_check(message, reply)
                    return reply

                try:
                    answered = await serve_stream(
                        requests,
                        context,
                        answer,
                        idle_s=self._play_grace_s,
                        idle_ends=lambda: not seated,
                    )
                except PlayStreamIdle as idle:
                    log.debug("play_stream_idle", idle_s=idle.idle_s)
                    # Status OK (grpc sends no details with it): why, in a trailer.
                    context.set_trailing_metadata(((STREAM_END_METADATA, str(idle)),))
                    return
            log.debug("play_stream_ended", answered=answered)
        except Exception as exc:
            if isinstance(exc, grpc.aio.AbortError):
                raise
            await abort_for(context, exc)

    async def play_answer(
        self, message: pb.PlayRequest | BadRequest, context: Context
    ) -> pb.PlayResponse | bytes:
        """The PlayResponse to one PlayRequest: the unary method's response, or its
        refusal as a PlayError (a message that sets no request, or is not a PlayRequest
        at all, is INVALID_ARGUMENT ``malformed_request``, answered with the request_id
        the refusal carries if its face could read one: the web face's JSON frames).
        With ``raw_replies``, a move the engine answered serialized is answered
        serialized, those bytes unparsed inside (services.gateway.raw_replies).
        Never raises."""
        if isinstance(message, BadRequest):
            return pb.PlayResponse(
                request_id=getattr(message, "request_id", 0), error=self._play_error(message, None)
            )
        reply = pb.PlayResponse(request_id=message.request_id)
        kind = message.WhichOneof("request")
        try:
            if kind == "submit_action":
                move = message.submit_action
                result = await self._move(move, context)
                if self._raw_replies and result.public_reply:
                    # Neither parsed nor serialized again here (issue 35).
                    return play_response(message.request_id, result.public_reply)
                # Written straight into its field of the reply: building it apart and
                # copying it in cost a deep copy of the game's view a move (issue 16).
                await self._answer(move, result, reply.submit_action)
            elif kind == "get_game":
                reply.get_game.CopyFrom(await self.get_game(message.get_game, context))
            elif kind == "list_legal_actions":
                reply.list_legal_actions.CopyFrom(
                    await self.list_legal_actions(message.list_legal_actions, context)
                )
            else:
                raise BadRequest(
                    "a PlayRequest must set submit_action, get_game or list_legal_actions"
                )
        except Exception as exc:
            inner = getattr(message, kind) if kind else None
            # A fresh reply: the refused answer may have been partly written.
            reply = pb.PlayResponse(request_id=message.request_id)
            reply.error.CopyFrom(self._play_error(exc, inner))
        return reply

    def _play_error(self, exc: Exception, request: Any) -> pb.PlayError:
        """A PlayError with the status the unary call would have ended with (an
        unexpected error is logged with the request's game id and seat)."""
        status = rich_status(exc)
        if status is None:
            game_id = getattr(request, "game_id", "")
            seat = getattr(request, "seat", None)
            with structlog.contextvars.bound_contextvars(game_id=game_id[:100], seat=seat):
                status = internal_status(exc)
        return pb.PlayError(code=status.code, message=status.message, details=status.details)
