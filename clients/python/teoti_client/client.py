"""Typed async access to ``gameserver.v1.GameService``.

:class:`TeotiClient` is the client for Python programs: plain dataclasses in, plain
dataclasses out, refusals raised as :mod:`teoti_client.errors` exceptions. Its base,
:class:`GameServiceClient`, is generic over the event type and the error decoding, so the
server's own tools (``services.client``) reuse every call with the engine's types.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Generic, Self, TypeVar, cast

import grpc

from teoti_client.errors import decode_error, error_info
from teoti_client.lobby import LobbyCalls, LobbyTableInfo, RematchInfo, SeekTicket
from teoti_client.lobby import SeekState as LobbySeekState
from teoti_client.play_stream import PlayStream, client_failure, error_of
from teoti_client.players import (
    PlayerCalls,
    PlayerCredentialInfo,
    PlayerNotice,
    PlayerProfile,
    PlayerWebhookInfo,
    RegisteredPlayer,
    player_metadata,
)
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc
from teoti_client.ratings import Leaderboard, PlayerRating, RatingCalls

WATCH_TOO_SLOW = "watch_too_slow"
"""The reason the server gives a watcher it dropped for falling behind."""

EventT = TypeVar("EventT")
_KINDS = {pb.SEAT_KIND_HUMAN: "human", pb.SEAT_KIND_BOT: "bot"}
_KIND_VALUES = {name: value for value, name in _KINDS.items()}
_POLICIES = {
    pb.TIMEOUT_POLICY_BOT_TAKEOVER: "bot_takeover",
    pb.TIMEOUT_POLICY_FORFEIT: "forfeit",
}
_POLICY_VALUES = {name: value for value, name in _POLICIES.items()}


def _time_control(message: pb.TimeControl) -> TimeControl:
    """A TimeControl message as the client's value (UNSPECIFIED policy: bot_takeover)."""
    return TimeControl(
        message.base_ms,
        message.increment_ms,
        message.move_deadline_ms,
        _POLICIES.get(message.timeout_policy, "bot_takeover"),
    )


def _time_control_proto(control: TimeControl) -> pb.TimeControl:
    """The client's TimeControl as the message (inverse of :func:`_time_control`)."""
    return pb.TimeControl(
        base_ms=control.base_ms,
        increment_ms=control.increment_ms,
        move_deadline_ms=control.move_deadline_ms,
        timeout_policy=_POLICY_VALUES[control.timeout_policy],
    )


def canonical_json(value: Mapping[str, Any]) -> str:
    """JSON text with sorted keys and no spaces, as the server writes it (UTF-8 as is)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as the server shows it (``token`` only for a seat you create/claim).

    ``kind`` is ``"human"`` or ``"bot"``; an ``open`` human seat waits for JoinGame.
    ``player``: the id of the player account sitting here ("" for none); its player
    credential acts for the seat wherever a seat token goes. ``bind_to_caller`` (for
    ``create_game`` with a ``credential``): bind this human seat to you.
    """

    kind: str
    name: str
    open: bool = False
    token: str = ""
    player: str = ""
    bind_to_caller: bool = False


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-seat clocks of a game (every human seat gets the same; bot seats have none).

    Times in ms, 0 where unused: ``base_ms`` (each seat's budget for the whole game,
    1,000 or more) with ``increment_ms`` (added after each of its moves), and/or
    ``move_deadline_ms`` (each move within this long of the seat's turn; 1,000 or more).
    ``timeout_policy``: ``"bot_takeover"`` (a bot plays the seat; the player may reclaim
    it) or ``"forfeit"`` (the seat is ranked last). The server refuses a control it
    cannot honour (InvalidArgument ``time_control_invalid`` /
    ``timeout_policy_unsupported``).
    """

    base_ms: int = 0
    increment_ms: int = 0
    move_deadline_ms: int = 0
    timeout_policy: str = "bot_takeover"


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's clock as GetGame shows it (ms; None where it does not apply):
    ``remaining_ms`` base time left when its current decision started, ``deadline_ms``
    when it times out (ms since the Unix epoch; None while not running)."""

    seat: int
    remaining_ms: int | None
    deadline_ms: int | None
    taken_over: bool
    forfeited: bool


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """Result of create_game: the game id, its version, and each claimed seat's token."""

    game_id: str
    version: int
    seat_tokens: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameView:
    """A projection of a game (GetGame / GetGameAt); ``state`` is the ruleset's view."""

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
    time_control: TimeControl | None = None
    """The game's clocks; None for a game without them."""
    clocks: tuple[SeatClock, ...] = ()
    """Each clocked seat's clock (empty without clocks)."""
    seats_resigned: tuple[int, ...] = ()
    """Seats whose player resigned."""
    seats_out: tuple[int, ...] = ()
    """Seats out of the game (resigned or forfeited), the first out first."""
    seats_played_by_bot: tuple[int, ...] = ()
    """Human seats a bot plays now (out, or taken over after a timeout or a claim)."""
    rated: bool = False
    """The game counts for its players' ratings (created rated)."""


@dataclass(frozen=True, slots=True)
class LegalMove:
    """One legal action (the JSON object to submit) and its description."""

    action: dict[str, Any]
    description: str


@dataclass(frozen=True, slots=True)
class ActionResult:
    """Versions after an accepted action: the last and the first event it appended."""

    version: int
    first_version: int


@dataclass(frozen=True, slots=True)
class Resigned:
    """Result of resign (ResignSeat): the versions it appended (the first is its
    ``SeatResigned``), what it did (``outcome``: ``"game_ended"``, ``"forfeited"`` or
    ``"taken_over"``, the game's rule) and whether the game has ended."""

    version: int
    first_version: int
    outcome: str
    finished: bool


@dataclass(frozen=True, slots=True)
class MoveResult:
    """An accepted action with the seat's view after it and its next legal actions
    (``game.version`` >= ``version``: others may have acted since)."""

    version: int
    first_version: int
    game: GameView
    legal_actions: tuple[LegalMove, ...]


@dataclass(frozen=True, slots=True)
class SeatUpdate(Generic[EventT]):
    """One event of a seat's watch (:meth:`GameServiceClient.watch_as_seat`); on the last
    event of each batch the server sends, also the seat's view and legal actions at
    ``event``'s version (else ``game`` is None and ``legal_actions`` empty)."""

    event: EventT
    game: GameView | None
    legal_actions: tuple[LegalMove, ...]


@dataclass(frozen=True, slots=True)
class SignedHead:
    """The service's signed statement of a game's head (GetSignedHead): ``statement_json``
    is the exact signed text (canonical JSON of ``{"format": "teoti-signed-head",
    "format_version", "game_id", "ruleset", "version", "head_hash", "finished", "key_id",
    "signed_at"}``), ``signature`` its Ed25519 signature (base64), ``key_id`` the key's
    id (:meth:`GameServiceClient.signing_keys`). Check it with ``cryptography`` or
    ``teoti replay --verify``."""

    statement_json: str
    signature: str
    key_id: str


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A public key the service signs (``current``) or signed heads with (ListSigningKeys):
    ``public_key`` the raw 32-byte Ed25519 key, base64; ``valid_from`` / ``valid_until``
    ISO 8601 UTC ("" unknown / still current)."""

    key_id: str
    algorithm: str
    public_key: str
    valid_from: str
    valid_until: str
    current: bool


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """Audit of a game's log (VerifyGame); ``signed_head``: the server's signature over
    the head it audited (None if the log did not check out or the server signs nothing)."""

    ok: bool
    first_bad_version: int
    problems: tuple[str, ...]
    events: int
    head_hash: str
    seed_revealed: bool
    seed_verified: bool
    signed_head: SignedHead | None = None


def _signed_head(message: pb.SignedHead) -> SignedHead:
    return SignedHead(message.statement_json, message.signature, message.key_id)


@dataclass(frozen=True, slots=True)
class RulesetSummary:
    """A ruleset the server hosts (ListRulesets): pass ``name`` to ``create_game``.

    ``solo_options`` (decoded JSON), ``solo_seats`` and ``solo_opponent`` describe its
    solo mode; ``solo_seats`` is 0 when the game has none.
    """

    name: str
    title: str
    min_seats: int
    max_seats: int
    is_default: bool
    solo_options: dict[str, Any]
    solo_seats: int
    solo_opponent: str


@dataclass(frozen=True, slots=True)
class Event:
    """One event of a game's log as the API shows it.

    ``payload`` is decoded JSON; ``seat`` is -1 for system events; ``redacted`` marks a
    payload shortened for this reader (``hash`` covers the stored, whole event);
    ``description`` is the event in one sentence of the game's words with seats named
    (issue 33; not part of the record: in no hash, "" from a server before it).
    """

    version: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    command_id: str
    seat: int
    recorded_at: str
    hash: str
    redacted: bool = False
    description: str = ""


class GameServiceClient(Generic[EventT]):
    """Every GameService call, generic over how events and refusals are decoded.

    Subclasses implement :meth:`_decode_event` and may override :meth:`_decode_error`.
    ``target`` is ``host:port`` (or any gRPC target); ``timeout_s`` is the deadline of
    each unary call; ``channel`` replaces the default insecure channel (e.g. TLS);
    ``channel_options`` are gRPC channel arguments of the default channel (for instance
    ``("grpc.use_local_subchannel_pool", 1)`` for a connection of its own: channels to one
    target otherwise share one connection). ``play_stream``: :meth:`play` sends its moves
    on one long-lived ``Play`` stream (opened on the first move, reopened on the next
    move after it breaks; far less server CPU per move), else one unary SubmitAction
    call each; either way it answers and refuses alike.
    """

    def __init__(
        self,
        target: str,
        timeout_s: float = 30.0,
        channel: grpc.aio.Channel | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        play_stream: bool = True,
    ) -> None:
        self._channel = (
            channel
            if channel is not None
            else grpc.aio.insecure_channel(target, options=list(channel_options))
        )
        self._stub = pb_grpc.GameServiceStub(self._channel)
        self._timeout = timeout_s
        self._play = PlayStream(self._stub) if play_stream else None
        self._players = PlayerCalls(self._channel, self._call_as)
        self._ratings = RatingCalls(self._channel, self._call_as)
        self._lobby = LobbyCalls(self._channel, self._call_as, _time_control_proto, _time_control)
        self._closed = False

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def connect(self) -> None:
        """Connect now instead of on the first call: make the channel's connection and,
        for a client that plays on the Play stream, open that stream and wait until the
        server has accepted it, all within the client's ``timeout_s``. A bot, a
        tournament runner or a benchmark calls this before it starts the clock so that
        its first move pays no set-up (otherwise each call connects when it needs to).
        Idempotent.

        Raises, as a call would: the stream's refusal decoded (a GameServiceError such as
        ``too_many_play_streams``); ``grpc.aio.AioRpcError`` UNAVAILABLE when the server
        cannot be reached (refused, unresolvable, a TLS handshake that fails), CANCELLED
        once the client is closed, and DEADLINE_EXCEEDED when the connection or the
        server's acceptance took longer than ``timeout_s`` (a server from before Play
        streams were acknowledged never sends it).
        """
        if self._closed:
            raise client_failure(grpc.StatusCode.CANCELLED, "the client is closed")
        try:
            async with asyncio.timeout(self._timeout):
                if self._play is not None:
                    await self._play.open_now()
                else:
                    await self._channel_ready()
        except TimeoutError:
            raise client_failure(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"not connected within {self._timeout:g} s"
            ) from None
        except grpc.aio.AioRpcError as error:
            raise self._decode_error(error) from error

    async def _channel_ready(self) -> None:
        """Wait for the channel to be READY; UNAVAILABLE as soon as a connection attempt
        fails (as a call without wait-for-ready would), CANCELLED if it is shut down."""
        channel = self._channel
        state = channel.get_state(try_to_connect=True)
        while state is not grpc.ChannelConnectivity.READY:
            if state is grpc.ChannelConnectivity.TRANSIENT_FAILURE:
                raise client_failure(grpc.StatusCode.UNAVAILABLE, "could not connect to the server")
            if state is grpc.ChannelConnectivity.SHUTDOWN:
                raise client_failure(grpc.StatusCode.CANCELLED, "the client is closed")
            await channel.wait_for_state_change(state)
            state = channel.get_state(try_to_connect=True)

    async def close(self) -> None:
        """Close the Play stream, if open, and the channel."""
        self._closed = True
        if self._play is not None:
            await self._play.close()
        await self._channel.close()

    def _decode_event(self, event: pb.Event) -> EventT:
        raise NotImplementedError

    def _decode_error(self, error: grpc.aio.AioRpcError) -> Exception:
        return decode_error(error)

    async def _call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            raise self._decode_error(error) from error

    async def _call_as(
        self, method: Any, request: Any, metadata: tuple[tuple[str, str], ...]
    ) -> Any:
        """:meth:`_call` with call metadata (a player credential)."""
        try:
            return await method(request, timeout=self._timeout, metadata=metadata or None)
        except grpc.aio.AioRpcError as error:
            raise self._decode_error(error) from error

    async def register_player(
        self,
        name: str,
        bot: bool = False,
        label: str = "",
        command_id: str = "",
        credential: str = "",
    ) -> RegisteredPlayer:
        """Register the player ``name`` (a bot account if ``bot``): its profile and first
        player credential (keep it secret: it is shown this once). ``label`` names the
        credential ("phone"); ``command_id`` makes a retry safe (it returns the player,
        and the credential only if you chose it: ``credential``, ``"tpc_"`` +
        ``secrets.token_urlsafe(32)``). Raises RuleViolation ``name_taken`` when the
        name's identity (NFKC, trimmed, case-folded) is another player's."""
        return await self._players.register(name, bot, label, command_id, credential)

    async def create_player_credential(
        self, credential: str, label: str = "", command_id: str = "", chosen: str = ""
    ) -> tuple[PlayerCredentialInfo, str]:
        """Another credential (one per device or bot) for the player holding
        ``credential``: (its id and label, the new secret, shown this once)."""
        return await self._players.create_credential(credential, label, command_id, chosen)

    async def player_credentials(self, credential: str) -> list[PlayerCredentialInfo]:
        """The credentials of the player holding ``credential`` (never their secrets)."""
        return await self._players.list_credentials(credential)

    async def revoke_player_credential(self, credential: str, credential_id: str) -> None:
        """Revoke ``credential_id`` (one of the caller's): refused from the next call on."""
        await self._players.revoke_credential(credential, credential_id)

    async def get_player(self, player_id: str = "", name: str = "") -> PlayerProfile:
        """A player's public profile by id or by name (any spelling of its identity)."""
        return await self._players.get(player_id, name)

    async def my_player(self, credential: str) -> tuple[PlayerProfile, str]:
        """(profile, credential id) of the player holding ``credential``."""
        return await self._players.me(credential)

    async def set_player_webhook(self, credential: str, url: str) -> tuple[PlayerWebhookInfo, str]:
        """Ask for the notices of the player holding ``credential`` to be POSTed to
        ``url`` (https, a public host) while this credential exists, or replace the URL
        it set: (the webhook, its signing secret, shown this once; check each request's
        ``Teoti-Signature`` with it: :func:`teoti_client.webhooks.verify_webhook_signature`).
        Raises InvalidArgument (``webhook_url_invalid``, ``webhook_url_not_https``,
        ``webhook_address_not_public``)."""
        return await self._players.set_webhook(credential, url)

    async def get_player_webhook(self, credential: str) -> PlayerWebhookInfo:
        """The webhook ``credential`` set (never its secret) and how its deliveries
        stand. Raises GameNotFound ``webhook_not_found`` if it set none."""
        return await self._players.get_webhook(credential)

    async def delete_player_webhook(self, credential: str) -> None:
        """Drop the webhook ``credential`` set. Raises GameNotFound ``webhook_not_found``
        if it set none."""
        await self._players.delete_webhook(credential)

    async def watch_player(
        self, credential: str, after: str = "", opened: Callable[[], None] | None = None
    ) -> AsyncIterator[PlayerNotice]:
        """The notices of the player holding ``credential`` (your turn, game started or
        finished...): those after the notice id ``after`` the server keeps ("": all of
        them, about the last 1,000), then each new one as it comes, for ever (leave the
        loop to stop). To resume after a disconnect, pass the last notice's
        ``notice_id``: nothing is missed or repeated. ``opened``: called each time the
        server has answered the stream's opening, before its first notice (so a client
        timing notices knows when the stream is live). Raises NotAuthorized
        ``player_credential_invalid`` (at once, or at the next notice once the
        credential is revoked), InvalidArgument ``notice_cursor`` for a bad ``after``."""
        async for notice in self._players.watch(credential, after, opened):
            yield notice

    async def rating_leaderboard(
        self, ruleset: str, page_size: int = 0, page_token: str = ""
    ) -> Leaderboard:
        """A page of ``ruleset``'s leaderboard (RatingService), best first: ``page_size``
        rows (1 to 200; 0: 50) after ``page_token`` (a previous page's
        ``next_page_token``; "" for the top). Raises InvalidArgument
        (``unknown_ruleset``, ``page_size``, ``page_token``)."""
        return await self._ratings.leaderboard(ruleset, page_size, page_token)

    async def player_rating(
        self, player_id: str, ruleset: str, page_size: int = 0, page_token: str = ""
    ) -> PlayerRating:
        """The player's rating in ``ruleset`` and a page of the rated games that made it,
        newest first (``page_size`` 1 to 200; 0: 20). Raises GameNotFound
        (``player_not_found``), InvalidArgument."""
        return await self._ratings.player_rating(player_id, ruleset, page_size, page_token)

    # -- LobbyService (issue 32): tables and seeks, as the player holding ``credential``

    async def open_table(
        self,
        credential: str,
        ruleset: str,
        seats: int,
        options: dict[str, Any] | None = None,
        rated: bool = False,
        time_control: TimeControl | None = None,
        host_stands: bool = False,
        command_id: str = "",
    ) -> LobbyTableInfo[TimeControl]:
        """Open a lobby table of ``seats`` seats (you in seat 0 unless ``host_stands``).
        Raises InvalidArgument (unknown ruleset, a seat count or options the ruleset
        refuses), RuleViolation (``too_many_tables``, ``rated_table_seats``)."""
        return await self._lobby.open_table(
            credential, ruleset, seats, options, rated, time_control, host_stands, command_id
        )

    async def list_tables(
        self,
        credential: str,
        ruleset: str = "",
        rated: bool | None = None,
        include_full: bool = False,
        page_size: int = 0,
        page_token: str = "",
    ) -> tuple[list[LobbyTableInfo[TimeControl]], str]:
        """Open tables oldest first, and the next page's token ("" at the end)."""
        return await self._lobby.list_tables(
            credential, ruleset, rated, include_full, page_size, page_token
        )

    async def get_table(self, credential: str, table_id: str) -> LobbyTableInfo[TimeControl]:
        """A table (its ``game_id`` once its game is open)."""
        return await self._lobby.get_table(credential, table_id)

    async def join_table(
        self, credential: str, table_id: str, seat: int | None = None
    ) -> LobbyTableInfo[TimeControl]:
        """Take ``seat`` (None: the first free one); filling the table starts it."""
        return await self._lobby.join_table(credential, table_id, seat)

    async def leave_table(self, credential: str, table_id: str) -> LobbyTableInfo[TimeControl]:
        """Stand up before the start (the host leaving closes the table)."""
        return await self._lobby.leave_table(credential, table_id)

    async def start_table(
        self, credential: str, table_id: str, fill_with_bots: bool = False
    ) -> LobbyTableInfo[TimeControl]:
        """Start your table early, bots in the empty seats (an unrated table only)."""
        return await self._lobby.start_table(credential, table_id, fill_with_bots)

    async def seek(
        self,
        credential: str,
        ruleset: str,
        min_seats: int = 2,
        max_seats: int = 2,
        rated: bool = False,
        time_control: TimeControl | None = None,
        window: tuple[float, float, float] | None = None,
        bots_after_s: float | None = None,
        command_id: str = "",
    ) -> SeekTicket:
        """Ask the matchmaker for a game of ``min_seats`` to ``max_seats`` seats.
        ``window``: (base points, points added per second, limit; ``math.inf`` for
        none), None for the server's default; ``bots_after_s``: bots fill the table
        once the seek waited this long (unrated only)."""
        return await self._lobby.seek(
            credential,
            ruleset,
            min_seats,
            max_seats,
            rated,
            time_control,
            window,
            bots_after_s,
            command_id,
        )

    async def cancel_seek(self, credential: str, seek_id: str) -> tuple[str, str]:
        """Withdraw a waiting seek at once: (``cancelled``, "") or, too late,
        (``placed``, table id)."""
        return await self._lobby.cancel_seek(credential, seek_id)

    async def get_seek(self, credential: str, seek_id: str) -> LobbySeekState:
        """Where your seek stands (``game_id`` once its table's game is open)."""
        return await self._lobby.get_seek(credential, seek_id)

    async def offer_rematch(self, credential: str, game_id: str) -> RematchInfo:
        """Offer the other players of the finished ``game_id`` to play it again (same
        seats, options, clocks and rated flag; a new game with a new seed). They get a
        ``rematch_offered`` notice; one rematch per game, offered within a day of its
        end; offers lapse after 10 minutes. Raises RuleViolation ``game_not_finished``,
        ``not_in_game``, ``rematch_used``, ``rematch_window_closed``."""
        return await self._lobby.offer_rematch(credential, game_id)

    async def accept_rematch(self, credential: str, game_id: str) -> RematchInfo:
        """Accept the rematch of ``game_id``; when every player did, its table starts
        and its game opens (``get_table(credential, rematch.table_id)``)."""
        return await self._lobby.accept_rematch(credential, game_id)

    async def decline_rematch(self, credential: str, game_id: str) -> RematchInfo:
        """Decline the rematch of ``game_id``: it is off."""
        return await self._lobby.decline_rematch(credential, game_id)

    async def create_game(
        self,
        seats: Sequence[SeatInfo],
        ruleset: str = "",
        options: Mapping[str, Any] | None = None,
        command_id: str = "",
        time_control: TimeControl | None = None,
        credential: str = "",
        rated: bool = False,
    ) -> CreatedGame:
        """Create a game (``ruleset`` "" = the server's default); ``SeatInfo.token`` may
        preset a human seat's token; ``time_control``: the human seats' clocks (None:
        no clocks); ``credential``: your player credential, which the seats marked
        ``bind_to_caller`` are bound to (they get no token unless you chose one);
        ``rated``: the game counts for its players' ratings (every seat bound to you or
        open for a player, no bot seat: else INVALID_ARGUMENT ``rated_game_seats``). Raises
        KeyError for a seat kind other than human/bot or a timeout policy other than
        bot_takeover/forfeit."""
        request = pb.CreateGameRequest(
            ruleset=ruleset,
            seats=[
                pb.Seat(
                    kind=_KIND_VALUES[s.kind],
                    name=s.name,
                    token=s.token,
                    open=s.open,
                    bind_to_caller=s.bind_to_caller,
                )
                for s in seats
            ],
            options_json=canonical_json(dict(options or {})),
            command_id=command_id,
            rated=rated,
        )
        if time_control is not None:
            request.time_control.CopyFrom(
                pb.TimeControl(
                    base_ms=time_control.base_ms,
                    increment_ms=time_control.increment_ms,
                    move_deadline_ms=time_control.move_deadline_ms,
                    timeout_policy=_POLICY_VALUES[time_control.timeout_policy],
                )
            )
        reply: pb.CreateGameResponse = await self._call_as(
            self._stub.CreateGame, request, player_metadata(credential) if credential else ()
        )
        return CreatedGame(
            reply.game_id, reply.version, {t.seat: t.token for t in reply.seat_tokens}
        )

    @staticmethod
    def _view(reply: pb.GetGameResponse) -> GameView:
        return GameView(
            reply.game_id,
            reply.ruleset,
            reply.version,
            json.loads(reply.state_json),
            tuple(
                SeatInfo(_KINDS.get(s.kind, "?"), s.name, s.open, player=s.player)
                for s in reply.seats
            ),
            tuple(reply.seats_to_act),
            reply.finished,
            tuple(reply.scores),
            tuple(reply.result.ranking),
            reply.head_hash,
            reply.seed_commitment,
            reply.revealed_seed,
            _time_control(reply.time_control) if reply.HasField("time_control") else None,
            tuple(
                SeatClock(
                    c.seat,
                    c.remaining_ms if c.HasField("remaining_ms") else None,
                    c.deadline_ms if c.HasField("deadline_ms") else None,
                    c.taken_over,
                    c.forfeited,
                )
                for c in reply.clocks
            ),
            tuple(reply.seats_resigned),
            tuple(reply.seats_out),
            tuple(reply.seats_played_by_bot),
            reply.rated,
        )

    async def get_game(self, game_id: str, seat: int | None = None, token: str = "") -> GameView:
        """The public view, or ``seat``'s own view (needs its token)."""
        request = pb.GetGameRequest(game_id=game_id, seat_token=token)
        if seat is not None:
            request.seat = seat
        reply: pb.GetGameResponse = await self._call(self._stub.GetGame, request)
        return self._view(reply)

    async def get_game_at(
        self, game_id: str, version: int, seat: int | None = None, token: str = ""
    ) -> GameView:
        """The view at an earlier ``version``."""
        request = pb.GetGameAtRequest(game_id=game_id, version=version, seat_token=token)
        if seat is not None:
            request.seat = seat
        reply: pb.GetGameAtResponse = await self._call(self._stub.GetGameAt, request)
        return self._view(reply.game)

    async def list_games(
        self, page_size: int = 20, page_token: str = "", ruleset: str = "", status: int = 0
    ) -> tuple[list[str], str]:
        """``(game ids, next page token)`` of one page; ``status`` is a
        ``GameStatusFilter`` value (0 = all)."""
        request = pb.ListGamesRequest(
            page_size=page_size,
            page_token=page_token,
            ruleset=ruleset,
            status=cast(pb.GameStatusFilter, status),  # any enum number is valid on the wire
        )
        reply: pb.ListGamesResponse = await self._call(self._stub.ListGames, request)
        return [g.game_id for g in reply.games], reply.next_page_token

    async def join_game(
        self,
        game_id: str,
        seat: int,
        name: str,
        token: str = "",
        command_id: str = "",
        credential: str = "",
    ) -> str:
        """Claim an open seat; returns its token (``token`` if you chose one). With your
        player ``credential`` the seat is bound to you ("" returned unless you chose a
        token too; ``name`` "" is your player name): play it with the credential as
        the token."""
        request = pb.JoinGameRequest(
            game_id=game_id, seat=seat, name=name, seat_token=token, command_id=command_id
        )
        reply: pb.JoinGameResponse = await self._call_as(
            self._stub.JoinGame, request, player_metadata(credential) if credential else ()
        )
        return reply.seat_token.token

    async def legal_actions(self, game_id: str, seat: int, token: str) -> list[LegalMove]:
        """The seat's legal actions now (empty when it is not the seat's turn)."""
        request = pb.ListLegalActionsRequest(game_id=game_id, seat=seat, seat_token=token)
        reply: pb.ListLegalActionsResponse = await self._call(self._stub.ListLegalActions, request)
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
        """Submit one action for a human seat (``command_id`` makes a retry safe)."""
        reply = await self._submit(
            game_id, seat, token, action, expected_version, command_id, return_view=False
        )
        return ActionResult(reply.version, reply.first_version)

    async def resign(self, game_id: str, seat: int, token: str, command_id: str = "") -> Resigned:
        """Resign (concede) ``seat`` with its token (or its player's credential). The
        game's rule decides what it does:
        a 2-seat game ends with this seat last, a bigger one goes on with it out (a bot
        makes its moves). ``command_id`` makes a retry safe. Raises RuleViolation
        (``game_over``, ``seat_out``), NotAuthorized, GameNotFound."""
        request = pb.ResignSeatRequest(
            game_id=game_id, seat=seat, seat_token=token, command_id=command_id
        )
        reply: pb.ResignSeatResponse = await self._call(self._stub.ResignSeat, request)
        outcome = pb.ResignOutcome.Name(reply.outcome).removeprefix("RESIGN_OUTCOME_").lower()
        return Resigned(reply.version, reply.first_version, outcome, reply.finished)

    async def claim_seat_for_bot(
        self, game_id: str, seat: int, claimed_by: int, token: str, command_id: str = ""
    ) -> ActionResult:
        """Hand ``seat`` to a bot as the player of seat ``claimed_by`` (with its token, or
        its player's credential):
        allowed once ``seat``'s clock ran out, or after it was to act with no event in
        the game for the absence time (5 minutes by default). Raises RuleViolation
        (``seat_not_absent``, ``seat_played_by_bot``, ...), NotAuthorized, GameNotFound."""
        request = pb.ClaimSeatForBotRequest(
            game_id=game_id,
            seat=seat,
            claimed_by=claimed_by,
            seat_token=token,
            command_id=command_id,
        )
        reply: pb.ClaimSeatForBotResponse = await self._call(self._stub.ClaimSeatForBot, request)
        return ActionResult(reply.version, reply.first_version)

    async def _submit(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: Mapping[str, Any],
        expected_version: int | None,
        command_id: str,
        return_view: bool,
    ) -> pb.SubmitActionResponse:
        request = pb.SubmitActionRequest(
            game_id=game_id,
            seat=seat,
            action_json=canonical_json(dict(action)),
            command_id=command_id,
            seat_token=token,
            return_view=return_view,
        )
        if expected_version is not None:
            request.expected_version = expected_version
        if return_view and self._play is not None:
            return await self._streamed(self._play, request)
        reply: pb.SubmitActionResponse = await self._call(self._stub.SubmitAction, request)
        return reply

    async def _streamed(
        self, play: PlayStream, request: pb.SubmitActionRequest
    ) -> pb.SubmitActionResponse:
        """SubmitAction over the Play stream; raises as the unary call would."""
        try:
            reply = await play.request(pb.PlayRequest(submit_action=request), self._timeout)
            if reply.HasField("error"):
                raise error_of(reply.error)
        except grpc.aio.AioRpcError as error:
            raise self._decode_error(error) from error
        return reply.submit_action

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
        same call (SubmitAction with ``return_view``): one round trip per move, on the
        client's Play stream unless it was made with ``play_stream=False``."""
        reply = await self._submit(
            game_id, seat, token, action, expected_version, command_id, return_view=True
        )
        return MoveResult(
            reply.version,
            reply.first_version,
            self._view(reply.game),
            tuple(LegalMove(json.loads(a.action_json), a.description) for a in reply.legal_actions),
        )

    async def events(self, game_id: str, from_version: int = 0) -> list[EventT]:
        """The whole log after ``from_version`` (pages through ListEvents)."""
        result: list[EventT] = []
        while True:
            request = pb.ListEventsRequest(game_id=game_id, from_version=from_version)
            reply: pb.ListEventsResponse = await self._call(self._stub.ListEvents, request)
            result += [self._decode_event(e) for e in reply.events]
            if not reply.next_from_version:
                return result
            from_version = reply.next_from_version

    async def watch(self, game_id: str, from_version: int = 0) -> AsyncIterator[EventT]:
        """Events as they are recorded, until the game ends (no deadline).

        A watcher that falls too far behind is dropped by the server (``watch_too_slow``,
        which protects the other watchers); this watch then resumes from the last event
        it yielded, so the caller sees every event once, in order.
        """
        request = pb.WatchGameRequest(game_id=game_id, from_version=from_version)
        async for reply in self._watch_replies(request):
            yield self._decode_event(reply.event)

    async def watch_as_seat(
        self, game_id: str, seat: int, token: str, from_version: int = 0
    ) -> AsyncIterator[SeatUpdate[EventT]]:
        """Like :meth:`watch`, as ``seat`` (with its ``token``) and with the view
        (WatchGame ``with_view``): the last event of each batch comes with the seat's view
        and legal actions at its version, so a player follows the others' moves without
        asking GetGame. Raises the decoded refusal of a wrong token or seat."""
        request = pb.WatchGameRequest(
            game_id=game_id,
            from_version=from_version,
            seat=seat,
            seat_token=token,
            with_view=True,
        )
        async for reply in self._watch_replies(request):
            has_view = reply.HasField("game")
            yield SeatUpdate(
                self._decode_event(reply.event),
                self._view(reply.game) if has_view else None,
                tuple(
                    LegalMove(json.loads(a.action_json), a.description) for a in reply.legal_actions
                ),
            )

    async def _watch_replies(
        self, request: pb.WatchGameRequest
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """WatchGame's replies for ``request``, resumed after the last one yielded when
        the server drops a slow watcher (``watch_too_slow``)."""
        while True:
            try:
                async for reply in self._stub.WatchGame(request):
                    typed: pb.WatchGameResponse = reply
                    request.from_version = typed.event.version
                    yield typed
                return
            except grpc.aio.AioRpcError as error:
                info = error_info(error)
                if info is not None and info.reason == WATCH_TOO_SLOW:
                    continue  # resume where this watch stopped
                raise self._decode_error(error) from error

    async def verify(self, game_id: str) -> VerifyResult:
        """Audit the game's log on the server."""
        request = pb.VerifyGameRequest(game_id=game_id)
        r: pb.VerifyGameResponse = await self._call(self._stub.VerifyGame, request)
        return VerifyResult(
            r.ok,
            r.first_bad_version,
            tuple(r.problems),
            r.events,
            r.head_hash,
            r.seed_revealed,
            r.seed_verified,
            _signed_head(r.signed_head) if r.HasField("signed_head") else None,
        )

    async def signed_head(self, game_id: str) -> SignedHead:
        """The server's signature over the game's current head (FAILED_PRECONDITION
        ``signing_key_missing`` from a server that signs nothing)."""
        request = pb.GetSignedHeadRequest(game_id=game_id)
        reply: pb.GetSignedHeadResponse = await self._call(self._stub.GetSignedHead, request)
        return _signed_head(reply.signed_head)

    async def signing_keys(self) -> list[SigningKey]:
        """The server's public signing keys: the current one first, then retired ones."""
        reply: pb.ListSigningKeysResponse = await self._call(
            self._stub.ListSigningKeys, pb.ListSigningKeysRequest()
        )
        return [
            SigningKey(k.key_id, k.algorithm, k.public_key, k.valid_from, k.valid_until, k.current)
            for k in reply.keys
        ]

    async def list_rulesets(self) -> list[RulesetSummary]:
        """The server's rulesets with their seat counts and solo modes, by name."""
        reply: pb.ListRulesetsResponse = await self._call(
            self._stub.ListRulesets, pb.ListRulesetsRequest()
        )
        return [
            RulesetSummary(
                r.name,
                r.title,
                r.min_seats,
                r.max_seats,
                r.is_default,
                json.loads(r.solo.options_json) if r.HasField("solo") else {},
                r.solo.seats if r.HasField("solo") else 0,
                r.solo.opponent if r.HasField("solo") else "",
            )
            for r in reply.rulesets
        ]


class TeotiClient(GameServiceClient[Event]):
    """The client for Python programs: events as :class:`Event`, refusals as
    :class:`~teoti_client.errors.GameServiceError` subclasses.

    Use ``async with TeotiClient("127.0.0.1:50051") as client:``.
    """

    def _decode_event(self, event: pb.Event) -> Event:
        return Event(
            event.version,
            event.type,
            event.schema_version,
            json.loads(event.payload_json),
            event.metadata.command_id,
            event.metadata.seat,
            event.metadata.recorded_at,
            event.hash,
            event.redacted,
            event.description,
        )
