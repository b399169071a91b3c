"""The lobby and the matchmaker as one service for the faces (LobbyService).

Every request is checked before anything is stored: the ruleset exists
(UnknownRuleset), the seat counts are the ruleset's (RulesetInfo ``seat_count``), the
options set up a game (as TournamentService.create does: a ruleset's InvalidOptions),
a time control the ruleset can honour (TimeControlInvalid, TimeoutPolicyUnsupported),
every string bounded. Then the lobby rules (services.lobby.tables) and the Redis stores
(services.lobby.redis_tables, services.matchmaking.redis_pool) decide; their refusals
become the domain's errors (services.lobby.errors), which the faces map to statuses.

Per player, at most MAX_OPEN_TABLES tables hosted while open and MAX_SEEKS seeks waiting
(a player waits at most once per pool anyway): the player's entries are kept in
``<prefix>:{lobby}:mine:<player>`` (sorted set, ``t:<table id>`` / ``s:<seek id>`` ->
ms), and those no longer open or waiting are dropped when counted. The count and the
add are two steps, so two calls racing may pass one over the limit: a quota against
hoarding, not an invariant.

A seek's id is ``<pool id>-<16 hex digits>`` (derived from the player and the command
id when one is given, so a retry answers the same seek): GetSeek and CancelSeek find its
pool from it. A seeker's rating is their display rating (``Rating.ordinal``) in the
rating book (services.tournament.ratings_book), the default one's for a new player.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.game import GameSnapshot
from services.engine.domain.reader import GameReader
from services.engine.domain.ruleset import SetupRequest, info_of
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.seat_clocks import epoch_ms
from services.engine.domain.timing.time_control import TimeControl
from services.lobby.errors import (
    LobbyInvalid,
    LobbyRuleRefused,
    RematchNotFound,
    SeekNotFound,
    TableIdNotFound,
    refused,
)
from services.lobby.redis_rematches import RedisRematches
from services.lobby.redis_tables import RedisLobby, TableNotFound
from services.lobby.rematch import (
    Rematch,
    RematchStatus,
    accept,
    check_window,
    decline,
    offer,
)
from services.lobby.tables import (
    EMPTY,
    LobbyRefused,
    LobbyTable,
    TableStatus,
    is_full,
    join,
    leave,
    open_table,
    start,
)
from services.matchmaking.redis_pool import RedisSeekPool, pool_id
from services.matchmaking.seeks import RatingWindow, Seek, SeekInvalid
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind
from services.tournament.ratings import Rating
from services.tournament.ratings_book import RatingsBook, account_identity

MAX_OPEN_TABLES = 5
"""Open tables one player may host at once."""
MAX_SEEKS = 5
"""Seeks one player may have waiting at once."""
MAX_ID_LENGTH = 64
"""The longest table id, seek id or command id accepted."""
MAX_OPTIONS_BYTES = 4096
"""The largest options JSON text accepted (UTF-8 bytes)."""
MAX_RULESET_LENGTH = 64
"""The longest ruleset name accepted."""
MAX_PAGE = 100
"""The most tables one ListTables page holds."""
DEFAULT_PAGE = 50
"""ListTables's page size when none is asked."""
MAX_BOTS_AFTER_S = 3600.0
"""The longest a seek may ask to wait before bots fill its table (s)."""
MAX_WINDOW = 10_000.0
"""The largest rating window figure accepted (points, or points a second)."""


@dataclass(frozen=True, slots=True)
class SeekAnswer:
    """Seek's and CancelSeek's answer: ``status`` (``waiting``, ``placed``,
    ``cancelled``), the ``seek_id``, the ``table_id`` of a placed seek, the seeker's
    ``rating``."""

    status: str
    seek_id: str
    table_id: str = ""
    rating: float = 0.0


@dataclass(frozen=True, slots=True)
class SeekState:
    """GetSeek's answer: ``status`` (``waiting`` / ``placed``), ``table_id`` and
    ``game_id`` (once open), the ``ruleset``, seconds ``waited_s`` (while waiting)."""

    status: str
    table_id: str
    game_id: str
    ruleset: str
    waited_s: float


def check_id(value: str, field: str) -> str:
    """``value`` if 1 to MAX_ID_LENGTH printable characters, else LobbyInvalid ``field``."""
    if not value or len(value) > MAX_ID_LENGTH or not value.isprintable():
        raise LobbyInvalid(field, f"{field} must be 1 to {MAX_ID_LENGTH} printable characters")
    return value


def canonical_time_control(control: TimeControl | None) -> str:
    """A time control as the canonical JSON text tables and seeks keep ("" for none)."""
    if control is None:
        return ""
    return json.dumps(control.to_json(), sort_keys=True, separators=(",", ":"))


def parse_options(text: str) -> dict[str, Any]:
    """The options JSON object of a request ("" is none). Raises LobbyInvalid
    ``options_invalid`` (too long, not JSON, not an object)."""
    if not text:
        return {}
    if len(text.encode("utf-8")) > MAX_OPTIONS_BYTES:
        raise LobbyInvalid("options_invalid", f"options are at most {MAX_OPTIONS_BYTES} bytes")
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise LobbyInvalid("options_invalid", "options_json is not JSON") from exc
    if not isinstance(options, dict):
        raise LobbyInvalid("options_invalid", "options_json must be a JSON object")
    return options


class LobbyService:
    """Lobby tables and seeks for the faces (see the module doc).

    Args:
        lobby: the lobby's tables in Redis.
        pool: the waiting seeks in Redis.
        ratings: the rating book (seekers' ratings).
        registry: the installed rulesets.
        client: the Redis client of the per-player quotas (the lobby's login).
        prefix: the deployment's key prefix.
        now_ms: the time in ms since the epoch.
        reader: the games (rematches read the finished game); None: no rematches.
        inbox: the players' inboxes (``rematch_offered``); None: no rematches.
    """

    def __init__(
        self,
        lobby: RedisLobby,
        pool: RedisSeekPool,
        ratings: RatingsBook,
        registry: RulesetRegistry,
        client: RedisClient,
        prefix: str,
        now_ms: Callable[[], int],
        reader: GameReader | None = None,
        inbox: RedisInbox | None = None,
    ) -> None:
        self._reader = reader
        self._inbox = inbox
        self._rematches = RedisRematches(client, prefix)
        self._lobby = lobby
        self._pool = pool
        self._ratings = ratings
        self._registry = registry
        self._redis = client
        self._prefix = prefix
        self._now_ms = now_ms

    def now_ms(self) -> int:
        """The service's time, ms since the epoch."""
        return self._now_ms()

    # -- checks ------------------------------------------------------------------

    def _check_game(
        self,
        ruleset_name: str,
        seat_counts: range,
        options: dict[str, Any],
        control: TimeControl | None,
    ) -> None:
        """Set up a game of every seat count (raises the ruleset's refusals)."""
        if not ruleset_name or len(ruleset_name) > MAX_RULESET_LENGTH:
            raise LobbyInvalid("ruleset", f"ruleset must be 1 to {MAX_RULESET_LENGTH} characters")
        ruleset = self._registry.get(ruleset_name)
        info = info_of(ruleset)
        for seats in seat_counts:
            info.check_seats(seats)
            names = tuple(f"player {n + 1}" for n in range(seats))
            ruleset.setup(SetupRequest(seats, dict(options), names), random.Random(0))
        if control is not None:
            control.check(ruleset)

    def _mine_key(self, player: str) -> str:
        return f"{self._prefix}:{{lobby}}:mine:{player}"

    async def _count_mine(self, player: str, kind: str) -> int:
        """The player's tables still open (``t``) or seeks still waiting (``s``); the
        others are dropped from the player's set."""
        members: Any = await self._redis.zrange(self._mine_key(player), 0, -1)
        count = 0
        for raw in members or ():
            member = raw.decode() if isinstance(raw, bytes) else str(raw)
            mine_kind, _, ident = member.partition(":")
            if mine_kind != kind:
                continue
            if await self._still_active(kind, ident):
                count += 1
            else:
                await self._redis.zrem(self._mine_key(player), member)
        return count

    async def _still_active(self, kind: str, ident: str) -> bool:
        if kind == "t":
            try:
                return (await self._lobby.get(ident)).status is TableStatus.OPEN
            except TableNotFound:
                return False
        pool = await self._pool.pool_of(ident.partition("-")[0])
        if pool is None:
            return False
        seek, _table = await self._pool.lookup(pool, ident)
        return seek is not None

    async def _remember(self, player: str, kind: str, ident: str) -> None:
        await self._redis.zadd(self._mine_key(player), {f"{kind}:{ident}": self._now_ms()})

    # -- tables ------------------------------------------------------------------

    async def open_table(
        self,
        player: str,
        ruleset: str,
        options_json: str,
        seat_count: int,
        rated: bool,
        control: TimeControl | None,
        host_sits: bool = True,
        command_id: str = "",
    ) -> LobbyTable:
        """Open a table hosted by ``player``. Raises LobbyInvalid (options, ids),
        UnknownRuleset, InvalidOptions (``seat_count``, the ruleset's), TimeControlInvalid,
        LobbyRuleRefused (``table_seats``, ``rated_table_seats``, ``too_many_tables``,
        ``table_id_taken``)."""
        options = parse_options(options_json)
        self._check_game(ruleset, range(seat_count, seat_count + 1), options, control)
        if command_id:
            check_id(command_id, "command_id")
            digest = hashlib.sha256(f"table|{player}|{command_id}".encode()).hexdigest()
            table_id = digest[:20]
            try:
                stored = await self._lobby.get(table_id)
            except TableNotFound:
                pass
            else:
                asked = (ruleset, _canonical(options), seat_count, rated)
                kept = (stored.ruleset, stored.options, len(stored.seats), stored.rated)
                same_clock = stored.time_control == canonical_time_control(control)
                if asked != kept or not same_clock or (player in stored.seats) != host_sits:
                    raise LobbyRuleRefused(
                        "command_id_reused", "this command id opened another table"
                    )
                return stored
        else:
            table_id = secrets.token_hex(10)
        if await self._count_mine(player, "t") >= MAX_OPEN_TABLES:
            raise LobbyRuleRefused(
                "too_many_tables", f"a player hosts at most {MAX_OPEN_TABLES} open tables"
            )
        try:
            table = open_table(
                table_id,
                player,
                ruleset,
                seat_count,
                options=_canonical(options),
                rated=rated,
                time_control=canonical_time_control(control),
                created_ms=self._now_ms(),
                host_sits=host_sits,
            )
            stored = await self._lobby.create(table)
        except LobbyRefused as exc:
            raise refused(exc) from exc
        await self._remember(player, "t", table_id)
        return stored

    async def get_table(self, table_id: str) -> LobbyTable:
        """The table ``table_id``. Raises TableIdNotFound, LobbyInvalid."""
        check_id(table_id, "table_id")
        try:
            return await self._lobby.get(table_id)
        except TableNotFound as exc:
            raise TableIdNotFound(table_id) from exc

    async def list_tables(
        self, ruleset: str, rated: bool | None, include_full: bool, page_size: int, token: str
    ) -> tuple[list[LobbyTable], str]:
        """Open tables oldest first and the next page's token ("" at the end). The token
        is the last table's creation ms. Raises LobbyInvalid ``page_token``."""
        size = DEFAULT_PAGE if page_size <= 0 else min(page_size, MAX_PAGE)
        if len(ruleset) > MAX_RULESET_LENGTH:
            raise LobbyInvalid(
                "ruleset", f"ruleset must be at most {MAX_RULESET_LENGTH} characters"
            )
        after = 0
        if token:
            if not token.isdigit() or len(token) > 19:
                raise LobbyInvalid("page_token", "page_token is not one ListTables gave")
            after = int(token)
        tables = await self._lobby.list_open(ruleset, rated, not include_full, size, after)
        following = str(tables[-1].created_ms) if len(tables) == size else ""
        return tables, following

    async def _change(
        self, table_id: str, decide: Callable[[LobbyTable], LobbyTable]
    ) -> LobbyTable:
        check_id(table_id, "table_id")
        try:
            return await self._lobby.change(table_id, decide)
        except TableNotFound as exc:
            raise TableIdNotFound(table_id) from exc
        except LobbyRefused as exc:
            raise refused(exc) from exc

    async def join_table(self, player: str, table_id: str, seat: int | None) -> LobbyTable:
        """``player`` takes ``seat`` (None: the first free one); a join that fills the
        table starts it. Raises TableIdNotFound, LobbyRuleRefused (the lobby's rules)."""

        def decide(table: LobbyTable) -> LobbyTable:
            seated = join(table, player, seat)
            return start(seated, by=player) if is_full(seated) else seated

        return await self._change(table_id, decide)

    async def leave_table(self, player: str, table_id: str) -> LobbyTable:
        """``player`` stands up (the host closes the table). Raises as join_table."""
        return await self._change(table_id, lambda table: leave(table, player))

    async def start_table(self, player: str, table_id: str, fill_with_bots: bool) -> LobbyTable:
        """Start the table early (see services.lobby.tables ``start``)."""
        return await self._change(table_id, lambda table: start(table, player, fill_with_bots))

    # -- seeks -------------------------------------------------------------------

    async def seek(
        self,
        player: str,
        ruleset: str,
        min_seats: int,
        max_seats: int,
        rated: bool,
        control: TimeControl | None,
        window: RatingWindow | None,
        bots_after_s: float | None,
        command_id: str = "",
    ) -> SeekAnswer:
        """Put a seek in its pool. Raises LobbyInvalid ``seek_invalid`` (seats, window,
        bots), the game checks' refusals, LobbyRuleRefused ``too_many_seeks``,
        ``already_seeking`` (the player waits in this pool with another seek: its id is
        in the message), ``command_id_reused``."""
        if not 1 <= min_seats <= max_seats <= 5:
            raise LobbyInvalid("seek_invalid", "seats must satisfy 1 <= min <= max <= 5")
        self._check_game(ruleset, range(min_seats, max_seats + 1), {}, control)
        window = window or RatingWindow()
        for figure in (window.base, window.widen_per_s):
            if not (math.isfinite(figure) and 0 <= figure <= MAX_WINDOW):
                raise LobbyInvalid("seek_invalid", f"window figures are 0 to {MAX_WINDOW:g}")
        if bots_after_s is not None:
            if not (math.isfinite(bots_after_s) and 0 <= bots_after_s <= MAX_BOTS_AFTER_S):
                raise LobbyInvalid("seek_invalid", f"bots_after_s is 0 to {MAX_BOTS_AFTER_S:g}")
            if rated:
                raise LobbyInvalid("seek_invalid", "a rated seek takes no bots")
        time_control = canonical_time_control(control)
        known = await self._ratings.rating(ruleset, account_identity(player))
        rating = (known or Rating()).ordinal  # a player never rated: the default
        pool_hex = pool_id(f"{ruleset}|{'rated' if rated else 'casual'}|{time_control}")
        if command_id:
            check_id(command_id, "command_id")
            tail = hashlib.sha256(f"seek|{player}|{command_id}".encode()).hexdigest()[:16]
        else:
            tail = secrets.token_hex(8)
        seek_id = f"{pool_hex}-{tail}"
        if command_id and await self._seek_elsewhere(player, seek_id):
            raise LobbyRuleRefused("command_id_reused", "this command id made another seek")
        try:
            seek = Seek(
                seek_id,
                player,
                ruleset,
                min_seats,
                max_seats,
                rated,
                time_control,
                rating,
                window,
                self._now_ms(),
                bots_after_s,
            )
        except SeekInvalid as exc:
            raise LobbyInvalid("seek_invalid", str(exc)) from exc
        retry = await self._redis.zscore(self._mine_key(player), f"s:{seek_id}") is not None
        if not retry and await self._count_mine(player, "s") >= MAX_SEEKS:
            raise LobbyRuleRefused(
                "too_many_seeks", f"a player waits with at most {MAX_SEEKS} seeks"
            )
        status = await self._pool.add(seek)
        if status.status == "added":
            await self._remember(player, "s", seek_id)
            return SeekAnswer("waiting", seek_id, rating=rating)
        if status.status == "placed":
            return SeekAnswer("placed", seek_id, status.table_id, rating)
        if status.status == "waiting" and status.seek_id == seek_id:
            stored, _table = await self._pool.lookup(seek.pool, seek_id)
            if stored is not None and _seek_terms(stored) != _seek_terms(seek):
                raise LobbyRuleRefused("command_id_reused", "this command id made another seek")
            return SeekAnswer("waiting", seek_id, rating=rating)
        if status.status == "waiting":
            raise LobbyRuleRefused(
                "already_seeking", f"you already wait in this pool with seek {status.seek_id}"
            )
        raise LobbyRuleRefused("command_id_reused", "this seek id waits for another player")

    async def _seek_elsewhere(self, player: str, seek_id: str) -> bool:
        """True if ``player``'s set holds a seek of the same command id (the same tail)
        in another pool: the command id was used for another request."""
        tail = seek_id.partition("-")[2]
        members: Any = await self._redis.zrange(self._mine_key(player), 0, -1)
        for raw in members or ():
            member = raw.decode() if isinstance(raw, bytes) else str(raw)
            if member.startswith("s:") and member.endswith(f"-{tail}") and member != f"s:{seek_id}":
                return True
        return False

    async def _pool_of(self, player: str, seek_id: str) -> str:
        check_id(seek_id, "seek_id")
        pool = await self._pool.pool_of(seek_id.partition("-")[0])
        if pool is None:
            raise SeekNotFound(seek_id)
        return pool

    async def cancel_seek(self, player: str, seek_id: str) -> SeekAnswer:
        """Withdraw ``player``'s waiting seek at once: ``cancelled``, or ``placed`` when
        too late. Raises SeekNotFound (unknown, or another player's)."""
        pool = await self._pool_of(player, seek_id)
        status = await self._pool.cancel(pool, seek_id, player)
        if status.status == "cancelled":
            return SeekAnswer("cancelled", seek_id)
        if status.status == "placed":
            table = await self.get_table(status.table_id)
            if player in table.seats:
                return SeekAnswer("placed", seek_id, status.table_id)
        raise SeekNotFound(seek_id)

    async def get_seek(self, player: str, seek_id: str) -> SeekState:
        """Where ``player``'s seek stands. Raises SeekNotFound (unknown, cancelled,
        another player's)."""
        pool = await self._pool_of(player, seek_id)
        seek, table_id = await self._pool.lookup(pool, seek_id)
        if seek is not None:
            if seek.player != player:
                raise SeekNotFound(seek_id)
            return SeekState("waiting", "", "", seek.ruleset, seek.waited_s(self._now_ms()))
        if not table_id:
            raise SeekNotFound(seek_id)
        try:
            table = await self._lobby.get(table_id)
        except TableNotFound:
            # Placed, and its table not yet recorded by the opener.
            return SeekState("placed", table_id, "", pool.partition("|")[0], 0.0)
        if player not in table.seats:
            raise SeekNotFound(seek_id)
        return SeekState("placed", table_id, table.game_id, table.ruleset, 0.0)

    # -- rematches (services.lobby.rematch) ----------------------------------------

    def _rematch_parts(self) -> tuple[GameReader, RedisInbox]:
        if self._reader is None or self._inbox is None:
            raise LobbyRuleRefused("rematch_unavailable", "this gateway offers no rematches")
        return self._reader, self._inbox

    async def offer_rematch(self, player: str, game_id: str) -> Rematch:
        """``player`` offers a rematch of the finished game ``game_id`` (see
        services.lobby.rematch); the other players get ``rematch_offered``. A second
        offer while one is pending accepts it. Raises GameNotFound, LobbyRuleRefused
        ``game_not_finished``, ``not_in_game``, ``rematch_used`` (the game had its
        rematch: opened, declined or expired), ``rematch_window_closed`` (the game ended
        more than REMATCH_WINDOW_MS ago)."""
        reader, inbox = self._rematch_parts()
        check_id(game_id, "game_id")
        now = self._now_ms()
        players: tuple[str, ...] = ()
        if await self._rematches.get(game_id) is None:
            snapshot = await reader.load(game_id)
            if not snapshot.is_terminal():
                raise LobbyRuleRefused("game_not_finished", f"game {game_id} is not finished")
            try:
                check_window(game_id, await _ended_ms(reader, snapshot), now)
            except LobbyRefused as exc:
                raise refused(exc) from exc
            players = tuple(dict.fromkeys(s.player for s in snapshot.seats if s.player))

        def decide(current: Rematch | None) -> Rematch:
            if current is None and not players:
                # It was there when this offer began and is gone: the sweeper dropped
                # it, long settled (services.lobby.retention).
                raise LobbyRefused("rematch_used", f"game {game_id} has had its rematch")
            if current is None:
                return offer(game_id, player, players, now)
            if current.status is RematchStatus.OFFERED and not current.expired(now):
                return accept(current, player, now)
            if current.status is RematchStatus.ACCEPTED and player in current.accepted:
                return current
            if player not in current.players:
                raise LobbyRefused("not_in_game", f"you did not play game {game_id}")
            raise LobbyRefused("rematch_used", f"game {game_id} has had its rematch")

        try:
            before, after = await self._rematches.change(game_id, decide)
        except LobbyRefused as exc:
            raise refused(exc) from exc
        if before is None:
            data = {"game_id": game_id, "offer_id": after.offer_id, "by": player}
            for other in after.players:
                if other != player:
                    await inbox.post(other, Notice(NoticeKind.REMATCH_OFFERED, data, now))
        if after.status is RematchStatus.ACCEPTED:
            await self._open_rematch(after)
        return after

    async def accept_rematch(self, player: str, game_id: str) -> Rematch:
        """``player`` accepts the rematch of ``game_id``; the last acceptance opens it
        (a started lobby table: the opener creates its game and tells everyone).
        Raises RematchNotFound, LobbyRuleRefused ``not_in_game``, ``rematch_declined``,
        ``rematch_expired``."""
        self._rematch_parts()
        check_id(game_id, "game_id")
        now = self._now_ms()

        def decide(current: Rematch | None) -> Rematch:
            if current is None:
                raise _NoRematch()
            return accept(current, player, now)

        after = await self._change_rematch(game_id, decide)
        if after.status is RematchStatus.ACCEPTED:
            await self._open_rematch(after)
        return after

    async def decline_rematch(self, player: str, game_id: str) -> Rematch:
        """``player`` declines the rematch of ``game_id``. Raises RematchNotFound,
        LobbyRuleRefused ``not_in_game``, ``rematch_accepted``, ``rematch_expired``."""
        self._rematch_parts()
        check_id(game_id, "game_id")
        now = self._now_ms()

        def decide(current: Rematch | None) -> Rematch:
            if current is None:
                raise _NoRematch()
            return decline(current, player, now)

        return await self._change_rematch(game_id, decide)

    async def _change_rematch(
        self, game_id: str, decide: Callable[[Rematch | None], Rematch]
    ) -> Rematch:
        try:
            _before, after = await self._rematches.change(game_id, decide)
        except _NoRematch as exc:
            raise RematchNotFound(game_id) from exc
        except LobbyRefused as exc:
            raise refused(exc) from exc
        return after

    async def _open_rematch(self, rematch: Rematch) -> LobbyTable:
        """The rematch's table, started and on the opener's stream (idempotent): the
        finished game's ruleset, seats (its players where they sat, bots elsewhere),
        options, time control and rated flag (the table that opened it, else unrated)."""
        reader, _inbox = self._rematch_parts()
        snapshot = await reader.load(rematch.game_id)
        original = await self._lobby.table_of_game(rematch.game_id)
        seats = tuple(seat.player or EMPTY for seat in snapshot.seats)
        if original is not None:
            options, control, rated = original.options, original.time_control, original.rated
        else:
            options = _canonical(dict(snapshot.options))
            clock = snapshot.clock
            control = canonical_time_control(clock.control if clock is not None else None)
            rated = False
        table = LobbyTable(
            table_id=rematch.table_id,
            host=rematch.by,
            ruleset=snapshot.ruleset_name,
            options=options,
            seats=seats,
            rated=rated,
            time_control=control,
            created_ms=rematch.decided_ms,
            status=TableStatus.STARTED,
            bots=tuple(i for i, p in enumerate(seats) if p == EMPTY),
        )
        return await self._lobby.create_started(table)


async def _ended_ms(reader: GameReader, snapshot: GameSnapshot) -> int:
    """When the finished ``snapshot``'s game ended: its last event's recorded time (ms
    since the epoch)."""
    last = await reader.events(snapshot.game_id, snapshot.version - 1, 1)
    return epoch_ms(datetime.fromisoformat(last[-1].metadata.recorded_at))


def _canonical(options: dict[str, Any]) -> str:
    """Options as the canonical JSON text a table keeps."""
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def _seek_terms(seek: Seek) -> tuple[Any, ...]:
    """What a seek asks for beyond its pool (a retry must ask the same)."""
    return (seek.min_seats, seek.max_seats, seek.window, seek.bots_after_s)


class _NoRematch(LookupError):
    """No rematch was offered for the game (inside a decision)."""
