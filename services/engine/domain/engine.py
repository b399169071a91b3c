"""The generic engine: load a game's log, fold it, decide a command, append atomically."""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import structlog

from services.engine.domain.bot_credential import BotCredential
from services.engine.domain.chain import GENESIS_HASH
from services.engine.domain.clock import (
    Clock,
    IdSource,
    SeedSource,
    iso,
    random_game_id,
    random_seed,
    system_clock,
)
from services.engine.domain.command_result import CommandResult
from services.engine.domain.commands import (
    action_command,
    claim_command,
    create_command,
    create_content,
    create_scope,
    join_command,
    refuse_reuse,
    request_hash,
    resign_command,
)
from services.engine.domain.commitments import seal
from services.engine.domain.engine_clock import (
    ClockPlan,
    check_seat,
    creation_plan,
    move_plan,
    withdrawal_plan,
)
from services.engine.domain.engine_events import (
    ENGINE_EVENTS,
    game_created,
    seat_joined,
    secrets_revealed,
    seed_revealed,
)
from services.engine.domain.errors import (
    ChainMismatch,
    CorruptLog,
    GameNotFound,
    InvalidArgument,
    NotAuthorized,
    RuleViolation,
    VersionConflict,
)
from services.engine.domain.fairness import commit, rng_for
from services.engine.domain.game import GameSnapshot, SeatKind, SeatSpec
from services.engine.domain.game_ids import NOT_A_GAME_PREFIX, check_game_id
from services.engine.domain.game_seats import check_player_id, check_seat_name
from services.engine.domain.leaving import ABSENCE_MS, SeatControl
from services.engine.domain.leaving_plan import claim_plan, resignation_plan
from services.engine.domain.player_turns import player_turns
from services.engine.domain.rated import check_rated_join, check_rated_seats
from services.engine.domain.records import (
    SYSTEM_SEAT,
    AppendResult,
    CommandKey,
    Deadline,
    EventMetadata,
    NewGame,
    PrivateRecords,
    Publication,
    SecretValue,
    TurnRequest,
)
from services.engine.domain.ruleset import (
    DomainEvent,
    Resignation,
    SetupRequest,
    bot_policy_of,
    decide_and_fold,
    info_of,
)
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import SnapshotCache
from services.engine.domain.store_protocol import EventStore
from services.engine.domain.tallies import EngineTallies
from services.engine.domain.timing.seat_clocks import epoch_ms
from services.engine.domain.timing.time_control import TimeControl

log = structlog.get_logger(__name__)

_SEED_CACHE = 4096
_GAME_ID_NAMESPACE = uuid.UUID("6f1c5a5e-4d0e-4d84-9d7b-5b1f3b7f2a10")


def _command_id_used(command_id: str, seat: int) -> RuleViolation:
    """The refusal of a JoinGame whose command id is taken while its token holds no seat."""
    return RuleViolation(
        "command_id_used",
        f"command id {command_id[:100]!r} was already used in this game and seat {seat} is not "
        "held by this token; to retry a JoinGame safely, choose its token (seat_token) and "
        "send the same one again",
    )


class CommandLog:
    """Log lines about one command, carrying its game id, seat and command id.

    Nothing is bound in advance: a ``structlog`` bind per command cost a few us of every
    move, which logs nothing at INFO (issue 35); each line passes the fields itself.
    """

    __slots__ = ("_context",)

    def __init__(self, game_id: str, seat: int, command_id: str) -> None:
        self._context = {"game_id": game_id, "seat": seat, "command_id": command_id[:200]}

    def debug(self, event: str, **fields: Any) -> None:
        """A DEBUG line (nothing is formatted below that level)."""
        log.debug(event, **self._context, **fields)

    def info(self, event: str, **fields: Any) -> None:
        """An INFO line."""
        log.info(event, **self._context, **fields)

    def warning(self, event: str, **fields: Any) -> None:
        """A WARNING line."""
        log.warning(event, **self._context, **fields)


JOIN_ATTEMPTS = 5
"""Tries of a JoinGame against concurrent appends to the same game (see join_game)."""


class Engine:
    """Command side of every game, whatever its ruleset.

    Args:
        store: where logs live.
        registry: rulesets by name.
        clock: time stamped on events (``recorded_at``).
        seed_source: seed of each new game; decisions at version v use
            ``random.Random(f"{seed}:{v}")`` so replays are deterministic.
        id_source: id of a new game created without a command id.
        max_attempts: reload-and-redecide attempts when a concurrent writer wins and the
            client gave no expected version.
        snapshots: cache of folded games (shared with the read side in one process).
        bot_credential: what a command for a bot seat must carry (None: a random one,
            see :attr:`bot_credential`).
        absence_ms: how long a seat must be to act with no event in its game before
            another seat may claim it for a bot (services.engine.domain.leaving; each
            claim records the figure applied).
    """

    def __init__(
        self,
        store: EventStore,
        registry: RulesetRegistry,
        clock: Clock = system_clock,
        seed_source: SeedSource = random_seed,
        id_source: IdSource = random_game_id,
        max_attempts: int = 5,
        snapshots: SnapshotCache | None = None,
        bot_credential: BotCredential | None = None,
        absence_ms: int = ABSENCE_MS,
    ) -> None:
        self.store = store
        self.absence_ms = absence_ms
        self.bot_credential = bot_credential or BotCredential.generate()
        self._snapshots = snapshots or SnapshotCache(store, registry)
        self.registry = registry
        self._clock = clock
        self._seed_source = seed_source
        self._id_source = id_source
        self._max_attempts = max_attempts
        self._seeds: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self.tallies = EngineTallies()
        """Moves appended, conflicts, retries (read by the metrics endpoint)."""

    async def load(self, game_id: str) -> GameSnapshot:
        """The game folded from its log (cached). Raises GameNotFound, CorruptLog."""
        try:
            check_game_id(game_id)
        except ValueError as exc:
            raise GameNotFound(game_id) from exc
        if game_id.startswith(NOT_A_GAME_PREFIX):  # a tournament's log, not a game
            raise GameNotFound(game_id)
        return await self._snapshots.load(game_id)

    async def reached(self, game_id: str, version: int) -> GameSnapshot:
        """The game at ``version`` or later: the cached one when it has reached it (no
        I/O: an append of this process just put it there), else the store's latest.

        Raises GameNotFound, CorruptLog, UnknownRuleset (as :meth:`load`).
        """
        cached = self._snapshots.cached(game_id)
        if cached is not None and cached.version >= version:
            return cached
        return await self.load(game_id)

    def _metadata(self, command_id: str, seat: int) -> EventMetadata:
        return self._stamped(command_id, seat)[0]

    def _stamped(self, command_id: str, seat: int) -> tuple[EventMetadata, int]:
        """Metadata of an append made now, and that moment in ms since the epoch (what
        the clock events use): one clock read, the ms taken from the same moment rather
        than parsed back from ``recorded_at``'s text."""
        now = self._clock()
        return EventMetadata(command_id, seat, iso(now)), epoch_ms(now)

    def now(self) -> datetime:
        """The engine's clock (what stamps ``recorded_at``; the timekeeper's too)."""
        return self._clock()

    async def create_game(
        self,
        ruleset_name: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
        rated: bool = False,
    ) -> CommandResult:
        """Create a game: GameCreated + the ruleset's setup events, in one append.

        A ``rated`` game counts for its players' ratings: its seats must pass
        :func:`services.engine.domain.rated.check_rated_seats` (RatedSeatsInvalid,
        INVALID_ARGUMENT ``rated_game_seats``).

        With a ``time_control``, ``ClockStarted`` and the first ``ClocksUpdated`` close
        that append and the game's first deadline is set with it
        (services.engine.domain.timing); it raises TimeControlInvalid or
        TimeoutPolicyUnsupported (INVALID_ARGUMENT) for one the ruleset cannot honour.

        With a command id the game id is derived from it and the caller's scope (see
        :func:`services.engine.domain.commands.create_scope`), so a retried create returns the
        same game and another caller's id never meets it. Raises InvalidArgument (no
        seats, blank name; InvalidName ``name_invalid``), UnknownRuleset, InvalidOptions
        (``seat_count`` outside the ruleset's RulesetInfo, or from ``ruleset.setup``),
        RuleViolation ``command_id_reused`` (the id was used for another request).
        """
        ruleset = self.registry.get(ruleset_name)
        if not seats:
            raise InvalidArgument("a game needs at least one seat")
        if rated:  # before the ruleset's seat counts: a solo game is named as unratable
            check_rated_seats(seats)
        info_of(ruleset).check_seats(len(seats))  # the ruleset's own metadata, for every game
        if any(not seat.name.strip() and not seat.is_open for seat in seats):
            raise InvalidArgument("every seat needs a name (only an open seat may have none)")
        for seat in seats:
            check_seat_name(seat.name)  # every face and the tournament runner pass here
            check_player_id(seat.player)
        if any(seat.kind is SeatKind.BOT and (seat.token_hash or seat.player) for seat in seats):
            raise InvalidArgument("a bot seat has no token and no player")
        if time_control is not None:
            time_control.check(ruleset)
        command: CommandKey | None = None
        if command_id:
            content = create_content(ruleset_name, seats, options)
            if time_control is not None:  # unclocked requests keep their old hash
                content["time_control"] = time_control.to_json()
            if rated:  # unrated requests keep their old hash too
                content["rated"] = True
            content_hash = request_hash(content)
            scope = create_scope(seats, content_hash)
            game_id = uuid.uuid5(_GAME_ID_NAMESPACE, f"{scope}|{command_id}").hex
            command = create_command(command_id, content_hash)
            if done := await self.store.command_result(game_id, command.field):
                refuse_reuse(command, done.request_hash, command_id)
                return CommandResult(game_id, done.last_version, done.first_version)
        else:
            game_id = self._id_source()
        seed = self._seed_source()
        setup = ruleset.setup(
            SetupRequest(len(seats), dict(options), tuple(seat.name for seat in seats)),
            rng_for(seed, 0),
        )
        if not setup:
            raise RuntimeError(f"ruleset {ruleset_name} returned no setup events")
        sealed_setup, secrets = seal(setup, {})
        events = [
            game_created(ruleset_name, seats, options, seed, rated),
            *_with_reveals(sealed_setup, secrets),
        ]
        private = PrivateRecords(
            secrets, {i: seat.token_hash for i, seat in enumerate(seats) if seat.token_hash}
        )
        snapshot = _fold_new(game_id, self, events, seed, ruleset_name, seats, options, rated)
        metadata, now_ms = self._stamped(command_id, SYSTEM_SEAT)
        created_ms = int(self._clock().timestamp() * 1000)
        clock = creation_plan(time_control, snapshot, now_ms)
        events += clock.after
        version = snapshot.version + len(clock.after)
        requests: list[Publication] = [
            TurnRequest(game_id, s, version) for s in snapshot.bot_seats_to_act()
        ]
        requests += player_turns(None, snapshot, version, clock.deadline)
        result = await self.store.append(
            game_id,
            0,
            events,
            metadata,
            requests,
            prev_hash=GENESIS_HASH,
            new_game=NewGame(seed, created_ms),
            private=private,
            command=command,
            deadline=clock.deadline,
        )
        if result.duplicate and command is not None:
            refuse_reuse(command, result.request_hash, command_id)
        if not result.duplicate:
            # What the first command and the gateway's next read would fetch: keep it.
            await self._snapshots.appended(game_id, None, result.written, private)
            self._remember_seed(game_id, seed, snapshot.seed_commitment)
        log.info(
            "game_created",
            game_id=game_id,
            ruleset=ruleset_name,
            seats=len(seats),
            version=result.last_version,
        )
        written = () if result.duplicate else tuple(result.written)
        return CommandResult(game_id, result.last_version, result.first_version, written)

    async def submit_action(
        self,
        game_id: str,
        seat: int,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        command_id: str = "",
        bot_key: str = "",
    ) -> CommandResult:
        """Decide ``action`` of ``seat`` and append its events.

        A command id this seat used before for the same action returns the original
        result and decides nothing; for another action it is refused (rule
        ``command_id_reused``). Ids are per seat (:mod:`services.engine.domain.commands`). A
        bot seat only takes commands carrying ``bot_key``, the bot credential. Turn
        requests for every bot seat to act afterwards go out in the same append.

        The first try decides on the game as this engine last saw it, without reading
        the store: the append script checks the command id, then the version and head
        hash, so a decision on an out-of-date snapshot is never written. Only a success
        is taken from that try; a refusal or a conflict there is judged again the way it
        always was, on the stored log (command id lookup, fresh load, retries).

        Raises GameNotFound; InvalidArgument (unknown seat); NotAuthorized (a bot seat
        without the bot credential); RuleViolation (``game_over``, ``not_your_turn``,
        ``command_id_reused`` or the ruleset's own rule); VersionConflict if
        ``expected_version`` is stale, or if concurrent writers kept winning.
        """
        bound = CommandLog(game_id, seat, command_id)
        metadata, now_ms = self._stamped(command_id, seat)
        command = action_command(seat, command_id, action)
        is_bot = self.bot_credential.accepts(bot_key)
        if bot_key and not is_bot:  # a bot worker with another secret: no bot moves
            bound.warning("bot_credential_refused")
        cached = self._snapshots.cached(game_id)
        if cached is not None and expected_version in (None, cached.version):
            try:
                events, requests, private, deadline, decided = await self._command_events(
                    cached, seat, action, is_bot, now_ms
                )
                result = await self._write(
                    cached, events, metadata, requests, private, command, deadline
                )
            except VersionConflict:
                self.tallies.append_conflicts += 1  # the cached game is behind: ask the store
            except (RuleViolation, InvalidArgument, NotAuthorized):
                pass  # perhaps only because the cached game is behind: ask the store
            except ChainMismatch:
                self._snapshots.forget(game_id)  # the cache is off the log: reload it
            else:
                return await self._applied(
                    cached, result, len(events), bound, command, private, decided
                )
        if command is not None and (
            done := await self.store.command_result(game_id, command.field)
        ):
            refuse_reuse(command, done.request_hash, command_id)
            bound.info("duplicate_command", version=done.last_version)
            return CommandResult(game_id, done.last_version, done.first_version)
        conflict: VersionConflict | None = None
        for attempt in range(self._max_attempts):
            if attempt:
                self.tallies.append_retries += 1
            snapshot = await self.load(game_id)
            if expected_version is not None and expected_version != snapshot.version:
                raise VersionConflict(game_id, expected_version, snapshot.version)
            events, requests, private, deadline, decided = await self._command_events(
                snapshot, seat, action, is_bot, now_ms
            )
            try:
                result = await self._write(
                    snapshot, events, metadata, requests, private, command, deadline
                )
            except VersionConflict as exc:
                self.tallies.append_conflicts += 1
                # Whether another writer won or the store lost writes this cache still
                # holds (a failover, a cut AOF), the cached game is wrong: reload it.
                self._snapshots.forget(game_id)
                if expected_version is not None:
                    raise
                conflict = exc
                bound.info("append_conflict_retrying", expected=exc.expected, actual=exc.actual)
                continue
            except ChainMismatch:
                self._snapshots.forget(game_id)
                raise
            return await self._applied(
                snapshot, result, len(events), bound, command, private, decided
            )
        assert conflict is not None
        raise conflict

    async def _command_events(
        self,
        snapshot: GameSnapshot,
        seat: int,
        action: Mapping[str, Any],
        is_bot: bool,
        now_ms: int,
    ) -> tuple[list[DomainEvent], list[Publication], PrivateRecords, Deadline | None, Any]:
        """The events of ``action`` on ``snapshot`` at ``now_ms`` (hidden parts committed,
        reveals added, clock events around them), the turn requests to publish with them,
        the secrets to keep, the clock deadline to set and the ruleset's state after
        them (the decision's own, so the cache need not fold them again). Raises InvalidArgument,
        NotAuthorized, RuleViolation (see :meth:`submit_action`; also ``seat_forfeited``,
        ``reclaim_not_allowed`` of services.engine.domain.engine_clock)."""
        bot_seat = 0 <= seat < len(snapshot.seats) and snapshot.seats[seat].kind is SeatKind.BOT
        if bot_seat and not is_bot:
            raise NotAuthorized(f"seat {seat} is a bot seat: only the bot worker plays it")
        reclaim = check_seat(snapshot, seat, is_bot)
        seed = await self._seed(snapshot)
        decided, after = self._decide(snapshot, seat, action, seed)
        sealed, secrets = seal(decided, snapshot.private.secrets)
        events = _with_reveals(sealed, {**snapshot.private.secrets, **secrets})
        if after.is_terminal():
            # Same atomic append as the last move: nobody can see the end without its
            # secrets and seed, so every commitment left is opened now (RULES D7).
            opened = {i for e in events for s in e.payload.get("secrets", ()) for i in [s["id"]]}
            left = [i for i in (*snapshot.unrevealed(), *secrets) if i not in opened]
            if left:
                known = {**snapshot.private.secrets, **secrets}
                events.append(secrets_revealed({i: known[i] for i in left}))
            events.append(seed_revealed(seed))
        clock = move_plan(snapshot, seat, reclaim, after, now_ms)
        events = [*clock.before, *events, *clock.after]
        version = snapshot.version + len(events)
        control = _control_after(snapshot, clock.before)
        requests: list[Publication] = [
            TurnRequest(snapshot.game_id, s, version)
            for s in snapshot.bot_seats_to_act(after.state, control)
        ]
        requests += player_turns(snapshot, snapshot, version, clock.deadline, after.state, control)
        return events, requests, PrivateRecords(secrets), clock.deadline, after.state

    async def _applied(
        self,
        snapshot: GameSnapshot,
        result: AppendResult,
        events: int,
        bound: CommandLog,
        command: CommandKey | None,
        private: PrivateRecords | None = None,
        decided: Any = None,
    ) -> CommandResult:
        """Remember and log an append of ``events`` events onto ``snapshot`` (``decided``:
        the ruleset's state after them, see :meth:`_remember`). Raises RuleViolation
        ``command_id_reused`` if the store had the id for another action."""
        if result.duplicate and command is not None:
            refuse_reuse(command, result.request_hash, command.field.partition("|")[2])
        await self._remember(snapshot, result, private, decided)
        if result.duplicate:
            bound.info("duplicate_command", version=result.last_version)
        else:
            self.tallies.moves_appended += 1
            self.tallies.events_appended += events
            # DEBUG: one INFO line per accepted move cost about 18 us of a move's ~1.3-2.3
            # ms of server CPU (issue 16); the log itself records every move.
            bound.debug("action_applied", version=result.last_version, events=events)
        written = () if result.duplicate else tuple(result.written)
        return CommandResult(snapshot.game_id, result.last_version, result.first_version, written)

    async def join_game(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        command_id: str = "",
        player: str = "",
    ) -> CommandResult:
        """Claim an open human seat for the holder of the token hashed to ``token_hash``
        and/or the player account ``player`` (one of them at least; the gateway has
        checked the player's credential: the engine only ever sees the id).

        Joining again with the same token hash (or as the seat's player) is a success
        that appends nothing: that is
        how a lost reply is retried. Under the command id that joined, the retry gets the
        original reply, and must repeat the request (another name is refused
        ``command_id_reused``); under a new id or none it answers the current version.
        Command ids are scoped to the seat; one already used for this seat while it is
        not held by this token is refused: an idempotent replay must not answer "joined"
        to a request whose token would not work. Raises GameNotFound; InvalidArgument
        (unknown seat, blank name or hash), InvalidName (``name_invalid``: control
        characters, too long); RuleViolation ``seat_not_open`` (a bot seat, or taken by
        another token), ``command_id_used``, ``command_id_reused``;
        VersionConflict only if the game kept moving through JOIN_ATTEMPTS tries (a join
        names no version: a concurrent append, such as another seat's join, is not the
        caller's conflict, so it is tried again on the new log).
        """
        if not name.strip() or not (len(token_hash) == 64 or (not token_hash and player)):
            raise InvalidArgument("JoinGame needs a name and a token hash or a player")
        check_seat_name(name)
        check_player_id(player)
        for attempt in range(1, JOIN_ATTEMPTS + 1):
            try:
                return await self._join_once(game_id, seat, name, token_hash, command_id, player)
            except (VersionConflict, ChainMismatch):
                if attempt == JOIN_ATTEMPTS:
                    raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _join_once(
        self, game_id: str, seat: int, name: str, token_hash: str, command_id: str, player: str
    ) -> CommandResult:
        """One try of :meth:`join_game` on the game as loaded now."""
        snapshot = await self.load(game_id)
        if not 0 <= seat < len(snapshot.seats):
            raise InvalidArgument(f"unknown seat {seat}; the game has {len(snapshot.seats)} seats")
        current = snapshot.seats[seat]
        command = join_command(seat, command_id, name, token_hash, player)

        def held_by_caller(spec: SeatSpec) -> bool:
            if spec.kind is not SeatKind.HUMAN:
                return False
            if token_hash:
                return spec.token_hash == token_hash
            return spec.accepts_player(player)

        if held_by_caller(current):
            # Held by this token: a retry. Under a recorded command id it must be the same
            # request (another name is a reused id, issue 30 item 13) and gets the
            # original reply; without one it is a success that appends nothing.
            if command is not None and (
                done := await self.store.command_result(game_id, command.field)
            ):
                refuse_reuse(command, done.request_hash, command_id)
                return CommandResult(game_id, done.last_version, done.first_version)
            return CommandResult(game_id, snapshot.version, snapshot.version)
        if command is not None and await self.store.command_result(game_id, command.field):
            raise _command_id_used(command_id, seat)
        if not current.is_open:
            raise RuleViolation("seat_not_open", f"seat {seat} is not open to join")
        check_rated_join(snapshot.rated, player, snapshot.seats)
        binding = PrivateRecords(token_hashes={seat: token_hash}) if token_hash else None
        turns: list[Publication] = []
        if player:  # the seat is the player's from this append: its turn may have come
            seated = list(snapshot.seats)
            seated[seat] = replace(current, name=name, player=player, claimed=True)
            turns += player_turns(snapshot, snapshot, snapshot.version + 1, seats=seated)
        try:
            result = await self._write(
                snapshot,
                [seat_joined(seat, name, player)],
                self._metadata(command_id, SYSTEM_SEAT),
                turns,
                private=binding,
                command=command,
            )
        except (VersionConflict, ChainMismatch):
            self._snapshots.forget(game_id)
            raise
        if result.duplicate:  # a concurrent request with this command id was appended first
            if not held_by_caller((await self.load(game_id)).seats[seat]):
                raise _command_id_used(command_id, seat)
            return CommandResult(game_id, result.last_version, result.first_version)
        await self._remember(snapshot, result, binding)
        log.info("seat_joined", game_id=game_id, seat=seat, version=result.last_version)
        return CommandResult(game_id, result.last_version, result.first_version)

    async def _write(
        self,
        snapshot: GameSnapshot,
        events: Sequence[DomainEvent],
        metadata: EventMetadata,
        requests: Sequence[Publication] = (),
        private: PrivateRecords | None = None,
        command: CommandKey | None = None,
        deadline: Deadline | None = None,
    ) -> AppendResult:
        """Append ``events`` decided on ``snapshot`` with the ``private`` records they need
        and the clock ``deadline`` (in the same atomic step), deduplicated under
        ``command``: the store checks its version and head hash. Raises VersionConflict
        (nothing written), ChainMismatch."""
        return await self.store.append(
            snapshot.game_id,
            snapshot.version,
            events,
            metadata,
            requests,
            prev_hash=snapshot.head_hash,
            private=private,
            command=command,
            deadline=deadline,
        )

    async def append_system(
        self,
        snapshot: GameSnapshot,
        events: Sequence[DomainEvent],
        requests: Sequence[Publication],
        deadline: Deadline | None,
        command_id: str,
        recorded_at: datetime,
    ) -> CommandResult:
        """Append events no seat caused (e.g. a timeout) onto ``snapshot``, recorded at
        ``recorded_at`` under ``command_id`` (seat SYSTEM_SEAT), with its turn requests
        and clock deadline. Raises VersionConflict when the log moved past ``snapshot``
        (the caller decided on an old game: drop the decision), ChainMismatch."""
        metadata = EventMetadata(command_id, SYSTEM_SEAT, iso(recorded_at))
        try:
            result = await self._write(snapshot, events, metadata, requests, deadline=deadline)
        except (VersionConflict, ChainMismatch):
            self._snapshots.forget(snapshot.game_id)
            raise
        if result.duplicate:
            raise VersionConflict(snapshot.game_id, snapshot.version, result.last_version)
        await self._remember(snapshot, result)
        return CommandResult(snapshot.game_id, result.last_version, result.first_version)

    async def append_clock_plan(
        self, snapshot: GameSnapshot, plan: ClockPlan, command_id: str, recorded_at: datetime
    ) -> CommandResult:
        """Append the clock events of ``plan`` (a timeout, a withdrawal; its ``deadline``
        set) decided on ``snapshot`` at ``recorded_at``, with the turn requests of the bot
        seats to act once they are folded (a seat a bot now plays among them): the one
        way the timekeeper and :meth:`withdraw_seat` settle a seat. Raises as
        :meth:`append_system`."""
        events = [*plan.before, *plan.after]
        version = snapshot.version + len(events)
        control = _control_after(snapshot, plan.before)
        requests: list[Publication] = [
            TurnRequest(snapshot.game_id, seat, version)
            for seat in snapshot.bot_seats_to_act(control=control)
        ]
        requests += player_turns(snapshot, snapshot, version, plan.deadline, control=control)
        return await self.append_system(
            snapshot, events, requests, plan.deadline, command_id, recorded_at
        )

    async def withdraw_seat(self, game_id: str, seat: int) -> CommandResult:
        """Settle the human ``seat`` of ``game_id`` now because its player withdrew from
        the game's tournament (issue 30 item 4): the game's timeout policy is applied to
        it at once, as the timekeeper does when its clock runs out (``SeatForfeited`` or
        ``SeatTakenOver``, then ``ClocksUpdated``; services.engine.domain.engine_clock
        ``withdrawal_plan``), and a bot plays the seat to the game's end. Idempotent:
        nothing is appended (``first_version`` = ``version``) for a seat a bot already
        plays, a bot seat, a game that ended or one without a clock. Raises GameNotFound,
        InvalidArgument (no such seat), VersionConflict if the game kept moving through
        JOIN_ATTEMPTS tries (each decides again on the new log)."""
        for attempt in range(1, JOIN_ATTEMPTS + 1):
            snapshot = await self.load(game_id)
            now = self._clock()
            plan = withdrawal_plan(snapshot, seat, epoch_ms(now))
            if plan.deadline is None:
                return CommandResult(game_id, snapshot.version, snapshot.version)
            try:
                result = await self.append_clock_plan(
                    snapshot, plan, f"withdraw:{seat}:{snapshot.version}", now
                )
            except (VersionConflict, ChainMismatch):
                if attempt == JOIN_ATTEMPTS:
                    raise
                continue
            log.info(
                "seat_withdrawn",
                game_id=game_id,
                seat=seat,
                policy=plan.before[0].type,
                version=result.version,
            )
            return result
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def resign_seat(self, game_id: str, seat: int, command_id: str = "") -> CommandResult:
        """``seat``'s player resigns (ResignSeat; the gateway checked the seat's token).

        What it does is the game's (``Ruleset.resignation``, else the platform default,
        services.engine.domain.ruleset ``default_resignation``): the game ends with the
        seat ranked last (its secrets left and seed revealed in the same append), or the
        seat is out (ranked last among those still in, a zombie bot makes its moves), or
        a bot plays it for good. Events: services.engine.domain.leaving_plan
        ``resignation_plan``, recorded under SYSTEM_SEAT (no seat's move; the payload
        names the seat). A command id this seat used for a resignation before returns the
        original result. Raises GameNotFound, InvalidArgument, RuleViolation
        (``game_over``, ``seat_out``, ``seat_is_bot``, ``command_id_reused``),
        VersionConflict if the game kept moving through JOIN_ATTEMPTS tries.
        """
        command = resign_command(seat, command_id)

        def plan(snapshot: GameSnapshot, now_ms: int, _idle: int) -> tuple[bool, ClockPlan]:
            outcome, clock = resignation_plan(snapshot, seat, now_ms)
            return outcome is Resignation.GAME_ENDS, clock

        return await self._leave(game_id, command, command_id, plan, seat=seat)

    async def claim_seat_for_bot(
        self, game_id: str, seat: int, claimed_by: int, command_id: str = ""
    ) -> CommandResult:
        """Seat ``claimed_by``'s player (token checked by the gateway) hands ``seat`` to a
        bot, its clock having run out or its player absent (services.engine.domain.
        leaving_plan ``claim_plan``; absence: :attr:`absence_ms` to act with no event).
        Ids are scoped to the claiming seat and bound to the claimed one. Raises
        GameNotFound, InvalidArgument, RuleViolation (``game_over``, ``claim_own_seat``,
        ``claimer_out``, ``seat_is_bot``, ``seat_played_by_bot``, ``seat_not_absent``,
        ``command_id_reused``), VersionConflict as :meth:`resign_seat`."""
        command = claim_command(claimed_by, seat, command_id)

        def plan(snapshot: GameSnapshot, now_ms: int, idle: int) -> tuple[bool, ClockPlan]:
            has_bot = bot_policy_of(snapshot.ruleset) is not None
            clock = claim_plan(snapshot, seat, claimed_by, now_ms, idle, self.absence_ms, has_bot)
            return False, clock

        return await self._leave(game_id, command, command_id, plan, seat=seat)

    async def _leave(
        self,
        game_id: str,
        command: CommandKey | None,
        command_id: str,
        plan: Callable[[GameSnapshot, int, int], tuple[bool, ClockPlan]],
        seat: int,
    ) -> CommandResult:
        """Decide ``plan`` (``(snapshot, now_ms, idle_since_ms) -> (ends, clock plan)``)
        on the stored game and append it, retried on a concurrent append: a leave names
        no version, so another seat's move is not the caller's conflict."""
        bound = CommandLog(game_id, seat, command_id)
        for attempt in range(1, JOIN_ATTEMPTS + 1):
            if command is not None and (
                done := await self.store.command_result(game_id, command.field)
            ):
                refuse_reuse(command, done.request_hash, command_id)
                bound.info("duplicate_command", version=done.last_version)
                return CommandResult(game_id, done.last_version, done.first_version)
            snapshot = await self.load(game_id)
            last = await self.store.read(game_id, snapshot.version - 1, 1)
            idle_since = (
                epoch_ms(datetime.fromisoformat(last[0].metadata.recorded_at)) if last else 0
            )
            metadata, now_ms = self._stamped(command_id, SYSTEM_SEAT)
            ends, clock = plan(snapshot, now_ms, idle_since)
            events = list(clock.before)
            if ends:  # as a game's last move does: every commitment left, then the seed
                left = snapshot.unrevealed()
                if left:
                    secrets = snapshot.private.secrets
                    events.append(secrets_revealed({i: secrets[i] for i in left}))
                events.append(seed_revealed(await self._seed(snapshot)))
            events += clock.after
            control = _control_after(snapshot, clock.before)
            version = snapshot.version + len(events)
            requests: list[Publication] = [
                TurnRequest(game_id, s, version) for s in snapshot.bot_seats_to_act(control=control)
            ]
            requests += player_turns(snapshot, snapshot, version, clock.deadline, control=control)
            try:
                result = await self._write(
                    snapshot, events, metadata, requests, None, command, clock.deadline
                )
            except (VersionConflict, ChainMismatch):
                self._snapshots.forget(game_id)
                if attempt == JOIN_ATTEMPTS:
                    raise
                continue
            applied = await self._applied(snapshot, result, len(events), bound, command)
            if not result.duplicate:
                bound.info("seat_left", kind=events[0].type, version=result.last_version)
            return applied
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _remember(
        self,
        snapshot: GameSnapshot,
        result: AppendResult,
        private: PrivateRecords | None = None,
        decided: Any = None,
    ) -> None:
        """Fold what was just appended onto ``snapshot`` into the cache, so the next
        command and the next read of this game start from it instead of reading those
        events back; ``decided``, the ruleset's state after them as the decision reached
        it, spares folding the ruleset's events again (SnapshotCache.appended). Nothing
        is remembered for a command id the store reports as already applied, since then
        these events were not the ones written."""
        if not result.duplicate:
            await self._snapshots.appended(
                snapshot.game_id, snapshot, result.written, private, decided
            )

    async def _seed(self, snapshot: GameSnapshot) -> str:
        """The game's secret seed (engine-only key), checked against its commitment."""
        known = self._seeds.get(snapshot.game_id)
        if known is not None and known[1] == snapshot.seed_commitment:
            # Checked against this very commitment when remembered: hashing it again
            # each move could only agree (issue 35).
            self._seeds.move_to_end(snapshot.game_id)
            return known[0]
        seed = snapshot.revealed_seed or (known[0] if known is not None else None)
        if seed is None:
            seed = await self.store.secret_seed(snapshot.game_id)
        if seed is None or commit(seed) != snapshot.seed_commitment:
            raise CorruptLog(f"game {snapshot.game_id}: secret seed missing or not committed")
        self._remember_seed(snapshot.game_id, seed, snapshot.seed_commitment)
        return seed

    def _remember_seed(self, game_id: str, seed: str, commitment: str) -> None:
        """Seeds never change: keep the recent ones, with the commitment each was checked
        against, to save a round trip (and a hash) per command."""
        self._seeds[game_id] = (seed, commitment)
        self._seeds.move_to_end(game_id)
        while len(self._seeds) > _SEED_CACHE:
            self._seeds.popitem(last=False)

    def _decide(
        self, snapshot: GameSnapshot, seat: int, action: Mapping[str, Any], seed: str
    ) -> tuple[list[DomainEvent], GameSnapshot]:
        if not 0 <= seat < len(snapshot.seats):
            raise InvalidArgument(f"unknown seat {seat}; the game has {len(snapshot.seats)} seats")
        if snapshot.is_terminal():
            raise RuleViolation("game_over", "the game has ended")
        if seat not in snapshot.seats_to_act():
            raise RuleViolation(
                "not_your_turn",
                f"seat {seat} is not to act (waiting for {list(snapshot.seats_to_act())})",
            )
        events, state = decide_and_fold(
            snapshot.ruleset, snapshot.state, seat, action, rng_for(seed, snapshot.version)
        )
        if not events:
            raise RuleViolation("no_effect", "the action produced no events")
        # The state after the events (not yet stored), to find who acts next.
        return events, snapshot.updated(version=snapshot.version + len(events), state=state)


def _control_after(snapshot: GameSnapshot, events: Sequence[DomainEvent]) -> SeatControl:
    """Who plays each seat of ``snapshot`` once ``events`` (an append's engine events:
    a reclaim, a timeout, a resignation) are folded."""
    control = snapshot.control
    for event in events:
        control = control.apply(event)
    return control


def _with_reveals(
    events: Sequence[DomainEvent], secrets: Mapping[str, SecretValue]
) -> list[DomainEvent]:
    """``events`` with a ``SecretsRevealed`` right after each event that reveals secrets.

    Raises RuntimeError (a ruleset bug) for a reveal of an unknown secret id.
    """
    result: list[DomainEvent] = []
    for event in events:
        result.append(event)
        if event.reveals:
            missing = [i for i in event.reveals if i not in secrets]
            if missing:
                raise RuntimeError(f"{event.type} reveals unknown secrets {missing}")
            result.append(secrets_revealed({i: secrets[i] for i in event.reveals}))
    return result


def _fold_new(
    game_id: str,
    engine: Engine,
    events: Sequence[DomainEvent],
    seed: str,
    ruleset_name: str,
    seats: Sequence[SeatSpec],
    options: Mapping[str, Any],
    rated: bool = False,
) -> GameSnapshot:
    """The snapshot of a game about to be created (GameCreated + setup events)."""
    ruleset = engine.registry.get(ruleset_name)
    state = ruleset.evolve(None, events[1])
    for event in events[2:]:
        if event.type not in ENGINE_EVENTS:
            state = ruleset.evolve(state, event)
    return GameSnapshot(
        game_id,
        ruleset_name,
        ruleset,
        tuple(seats),
        dict(options),
        commit(seed),
        len(events),
        state,
        rated=rated,
    )


__all__ = ["Engine", "SeatKind", "SeatSpec"]
