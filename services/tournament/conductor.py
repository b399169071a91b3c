"""Moving a tournament on: open rounds (create their games, then append RoundPaired),
record finished tables, finish the tournament. Shared by the service (Start) and the
director (game-finished notifications).

Crash safety rests on two facts. A round's games are created with command ids derived
from tournament id + round + table, and the pairing is a pure function of the log and
the seed, so a retry after a crash (or a second director doing the same work) gets the
very same game ids from the engine and creates nothing twice. And every append names
the tournament's version: of two directors deciding on the same version, one appends and
the other gets VersionConflict, reloads and finds the work done.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import structlog

from services.engine.domain.errors import VersionConflict
from services.engine.domain.game import GameSnapshot
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.timing.time_control import TimeControl as GameClock
from services.engine.domain.timing.time_control import TimeoutPolicy
from services.engine.transport.client import EngineClient
from services.metrics.families import TOURNAMENT_ROUNDS, TOURNAMENT_TABLES
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind
from services.tournament import events as ev
from services.tournament.aggregate import (
    RUNNING,
    TournamentState,
    decide_start,
    finishing_events,
    next_pairing,
    preview,
)
from services.tournament.config import TournamentConfig
from services.tournament.model import Pairing, Table, TableResult
from services.tournament.ratings_book import RatingsBook, account_identity
from services.tournament.repository import TournamentRepository

log = structlog.get_logger(__name__)

CREATE_CONCURRENCY = 16
"""Games created at once when a round opens."""
MAX_ATTEMPTS = 8
BOT_PREFIX = "bot:"
"""A bot player is rated as ``bot:<name>``: a name is a person's rating identity, and a
bot entered under it must not move that person's rating."""


def rated_identity(state: TournamentState, player: str) -> str:
    """The identity ``player``'s results are rated under: a player account that entered
    itself is rated as the account (``player:<id>``, the one rating book of its lobby
    games too), a bot as ``bot:<name>``, anyone else by the name."""
    entrant = state.entrant(player)
    if entrant is not None and entrant.player_id:
        return account_identity(entrant.player_id)
    bots = {e.player for e in state.entrants if e.kind == ev.BOT}
    return f"{BOT_PREFIX}{player}" if player in bots else player


"""Reload-and-redecide attempts when another writer moved the tournament first."""


def game_command_id(tournament_id: str, round_: int, table: int) -> str:
    """The CreateGame command id of a table: the same on every retry, so the engine
    returns the game created before instead of a second one."""
    return f"tournament:{tournament_id}:r{round_}:t{table}"


def table_seats(
    state: TournamentState, table: Table, token_hashes: dict[int, str]
) -> list[SeatSpec]:
    """The seats of ``table``'s game: a bot seat per bot entrant, a human seat bound to
    the player token of each human entrant (so the player plays with that token), and
    to the player account of one who entered with it (who plays with a credential)."""
    index = {e.player: i for i, e in enumerate(state.entrants)}
    seats = []
    for player in table.players:
        entrant = state.entrant(player)
        if entrant is None or entrant.kind == ev.BOT:
            seats.append(SeatSpec(SeatKind.BOT, player))
        else:
            token_hash = token_hashes.get(index[player], "")
            seats.append(SeatSpec(SeatKind.HUMAN, player, token_hash, player=entrant.player_id))
    return seats


def game_options(config: TournamentConfig) -> dict[str, object]:
    """The CreateGame options of every table (the ruleset's options as configured)."""
    return dict(config.options)


def game_clock(config: TournamentConfig) -> GameClock | None:
    """The time control every table's game is created with (None: the tournament has no
    clock), so no table waits on an absent player beyond it (issue 15, clocks)."""
    clock = config.time_control
    if not clock.is_set:
        return None
    return GameClock(
        clock.base_ms,
        clock.increment_ms,
        clock.move_deadline_ms,
        TimeoutPolicy(config.timeout_policy),
    )


def places_of(snapshot: GameSnapshot, players: Sequence[str] = ()) -> TableResult | None:
    """Finishing place per seat of a finished game (None while it runs), from the game's
    result with forfeited seats ranked last (``GameSnapshot.result``); ``forfeited``
    names those seats' players (``players``: the table's players in seat order)."""
    if not snapshot.is_terminal():
        return None
    result = snapshot.result()
    if result is None:
        return None
    places = [0] * len(snapshot.seats)
    for position, seat in enumerate(result.ranking):
        places[seat] = position + 1
    lost = snapshot.control.forfeited  # on time, withdrawn or resigned
    forfeited = tuple(players[seat] for seat in lost if seat < len(players))
    return TableResult(0, tuple(places), forfeited)


class Conductor:
    """Applies the tournament's automatic steps through the engine and the log.

    Args:
        repo: tournament logs.
        engine: creates the tables' games (in process or remote).
        reader: loads games to read their results.
        ratings: rating book updated from rated tables (None: no ratings).
        notices: the players' inboxes: a player account that entered gets a
            ``tournament_pairing`` notice for each table it is seated at (None: none).
    """

    def __init__(
        self,
        repo: TournamentRepository,
        engine: EngineClient,
        reader: GameReader,
        ratings: RatingsBook | None = None,
        notices: RedisInbox | None = None,
    ) -> None:
        self.repo = repo
        self._engine = engine
        self._reader = reader
        self._ratings = ratings
        self._notices = notices

    async def start(self, tournament_id: str) -> TournamentState:
        """Close registration and open round 1 (TournamentStarted + RoundPaired in one
        append). Raises TournamentRefused (see decide_start), TournamentNotFound."""
        state = await self.repo.load(tournament_id)
        started = decide_start(state)
        return await self._open_round(state, started, "start")

    async def advance(self, tournament_id: str) -> TournamentState:
        """Do whatever is due: when every table of the current round has finished,
        append RoundFinished with the next RoundPaired (its games created first), or with
        TournamentFinished + SeedRevealed after the last round. Idempotent."""
        for _attempt in range(MAX_ATTEMPTS):
            state = await self.repo.load(tournament_id)
            current = state.current
            if state.status != RUNNING or current is None or not current.complete():
                return state
            try:
                return await self._open_round(
                    state, [ev.round_finished(current.number)], f"after-round-{current.number}"
                )
            except VersionConflict:
                log.info("tournament_advance_conflict", tournament_id=tournament_id)
        return await self.repo.load(tournament_id)

    async def _open_round(
        self, state: TournamentState, prefix: list[DomainEvent], command_id: str
    ) -> TournamentState:
        seed = await self.repo.seed(state.tournament_id)
        after = preview(state, prefix)
        pairing = next_pairing(after, seed, strict=not state.rounds)
        if pairing is None:
            events = [*prefix, *finishing_events(after, seed)]
        else:
            game_ids = await self._create_games(after, pairing)
            await self.repo.bind_games(state.tournament_id, game_ids)
            events = [*prefix, ev.round_paired(pairing, game_ids)]
        new = await self.repo.append(state, events, command_id=command_id)
        log.info(
            "tournament_round_opened" if pairing else "tournament_finished",
            tournament_id=state.tournament_id,
            round=pairing.round if pairing else len(state.rounds),
            tables=len(pairing.tables) if pairing else 0,
            version=new.version,
        )
        if pairing is not None:
            TOURNAMENT_ROUNDS.inc()
            TOURNAMENT_TABLES.inc("opened", amount=len(pairing.tables))
            await self._announce(new, pairing)
        return new

    async def _announce(self, state: TournamentState, pairing: Pairing) -> None:
        """Tell each player account seated in ``pairing`` where its game is
        (``tournament_pairing``, docs/players.md). After the round is recorded, once: a
        notice that cannot be posted (an outage) is logged, not retried; the round in
        the tournament's log stays the record."""
        if self._notices is None or state.current is None:
            return
        game_ids = state.current.game_ids
        for table in pairing.tables:
            for seat, player in enumerate(table.players):
                entrant = state.entrant(player)
                if entrant is None or not entrant.player_id:
                    continue
                data = {
                    "tournament_id": state.tournament_id,
                    "round": pairing.round,
                    "table": table.number,
                    "game_id": game_ids.get(table.number, ""),
                    "seat": seat,
                }
                notice = Notice(NoticeKind.TOURNAMENT_PAIRING, data, _now_ms())
                try:
                    await self._notices.post(entrant.player_id, notice)
                except Exception as exc:  # an outage must not undo a recorded round
                    log.warning(
                        "tournament_pairing_notice_failed",
                        tournament_id=state.tournament_id,
                        error=type(exc).__name__,
                    )

    async def _create_games(self, state: TournamentState, pairing: Pairing) -> list[str]:
        """Create (or find again) the game of every table of ``pairing``, in bulk."""
        tokens = dict(await self.repo.player_tokens(state.tournament_id))
        options = game_options(state.config)
        clock = game_clock(state.config)
        limit = asyncio.Semaphore(CREATE_CONCURRENCY)

        async def create(table: Table) -> str:
            async with limit:
                result = await self._engine.create_game(
                    state.config.ruleset,
                    table_seats(state, table, tokens),
                    options,
                    command_id=game_command_id(state.tournament_id, pairing.round, table.number),
                    time_control=clock,
                )
                return result.game_id

        return list(await asyncio.gather(*(create(t) for t in pairing.tables)))

    async def settle_seat(self, state: TournamentState, player: str) -> None:
        """Settle ``player``'s table of the current round now, because the player is
        withdrawing (issue 30 item 4): the engine applies the tournament's timeout policy
        to their seat (Engine.withdraw_seat), a bot plays it and the game goes on to its
        end, which records the table as any other. Nothing for a player without a table
        in a running round, or whose table has finished. Raises the engine's errors
        (GameNotFound, an outage), before anything is recorded."""
        current = state.current
        if state.status != RUNNING or current is None:
            return
        for table in current.pairing.tables:
            if player in table.players and table.number not in current.results:
                game_id = current.game_ids[table.number]
                await self._engine.withdraw_seat(game_id, table.players.index(player))
                return

    async def game_finished(self, game_id: str) -> TournamentState | None:
        """Record the result of ``game_id`` if it is a finished table of a tournament,
        then advance that tournament. Returns its state (None: not a tournament game, or
        not finished). Idempotent: a table already recorded is not recorded again."""
        tournament_id = await self.repo.tournament_of(game_id)
        if tournament_id is None:
            return None
        return await self.table_finished(tournament_id, game_id)

    async def table_finished(self, tournament_id: str, game_id: str) -> TournamentState | None:
        """:meth:`game_finished` for a game already known to be a table of
        ``tournament_id`` (the director looks a batch of games up at once)."""
        snapshot = await self._reader.load(game_id)
        if places_of(snapshot) is None:
            return None
        for _attempt in range(MAX_ATTEMPTS):
            state = await self.repo.load(tournament_id)
            found = state.round_of_game(game_id)
            if found is None:
                return None
            round_, table = found
            if table.number in round_.results:
                break
            result = places_of(snapshot, table.players)
            assert result is not None  # finished above; a finished log stays finished
            event = ev.table_finished(
                round_.number,
                game_id,
                TableResult(table.number, result.places, result.forfeited),
            )
            try:
                state = await self.repo.append(
                    state, [event], command_id=f"table-{round_.number}-{table.number}"
                )
            except VersionConflict:
                continue
            TOURNAMENT_TABLES.inc("finished")
            log.info(
                "tournament_table_finished",
                tournament_id=tournament_id,
                round=round_.number,
                table=table.number,
            )
            break
        await self._rate(state, game_id, snapshot.version)
        return await self.advance(tournament_id)

    async def _rate(self, state: TournamentState, game_id: str, version: int) -> None:
        """Update ratings from a rated tournament's finished table (once per game; its
        history entries dated by the ``recorded_at`` of the game's event at ``version``,
        the last, as the rater of games outside tournaments does)."""
        if self._ratings is None or not state.config.rated:
            return
        found = state.round_of_game(game_id)
        if found is None:
            return
        round_, table = found
        result = round_.results.get(table.number)
        if result is not None:
            identities = [rated_identity(state, p) for p in table.players]
            last = await self._reader.events(game_id, version - 1, 1)
            at = last[-1].metadata.recorded_at if last else ""
            await self._ratings.record(state.config.ruleset, game_id, identities, result.places, at)

    async def sweep(self, tournament_ids: Sequence[str]) -> None:
        """Catch up on finished tables whose notification was never read (trimmed by the
        stream's cap, or lost by an older engine that published after its append): check
        every unrecorded table of each running tournament's current round, then advance
        it."""
        for tournament_id in tournament_ids:
            state = await self.repo.load(tournament_id)
            current = state.current
            if state.status != RUNNING or current is None:
                continue
            for table in current.pairing.tables:
                if table.number not in current.results:
                    await self.game_finished(current.game_ids[table.number])
            await self.advance(tournament_id)


def _now_ms() -> int:
    """Wall-clock ms since the epoch (a notice's ``at_ms``)."""
    return int(time.time() * 1000)
