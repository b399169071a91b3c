"""The tournament application service: commands and queries, free of gRPC.

Commands load the tournament, decide on it (services.tournament.aggregate) and append at
the version they decided on; a concurrent writer makes them reload and decide again.
Queries fold the log; Export and Verify use nothing but the log (and the revealed seed).
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable
from typing import Any

import structlog

from services.engine.domain.chain import verify_chain
from services.engine.domain.errors import VersionConflict
from services.engine.domain.game_seats import check_client_token, new_token
from services.engine.domain.records import PrivateRecords, canonical_json
from services.engine.domain.ruleset import SetupRequest, bot_policy_of, info_of
from services.engine.domain.rulesets import RulesetRegistry
from services.tournament import events as ev
from services.tournament.aggregate import (
    TournamentState,
    decide_register,
    decide_withdraw,
    replay_pairings,
)
from services.tournament.conductor import BOT_PREFIX, Conductor
from services.tournament.config import TournamentConfig, validate, with_default_clock
from services.tournament.errors import InvalidTournament, NotPermitted, TournamentRefused
from services.tournament.model import Format
from services.tournament.ratings import Rating
from services.tournament.ratings_book import ACCOUNT_PREFIX, RatingsBook
from services.tournament.repository import (
    TournamentRepository,
    stream_id,
    token_hash,
    tournament_id_for,
)
from services.tournament.serial import TournamentWriters, pause_before_retry

log = structlog.get_logger(__name__)

MAX_NAME = 60
MAX_ATTEMPTS = 8


def _random_seed() -> str:
    return secrets.token_hex(16)


class TournamentService:
    """Tournament commands and queries.

    Args:
        conductor: opens rounds (Start) through the engine; holds the repository.
        registry: rulesets (seat ranges, bots) for config validation.
        ratings: the rating book (leaderboards).
        seed_source: secret pairing seed of a new tournament.
    """

    def __init__(
        self,
        conductor: Conductor,
        registry: RulesetRegistry,
        ratings: RatingsBook,
        seed_source: Callable[[], str] = _random_seed,
    ) -> None:
        self.conductor = conductor
        self.repo: TournamentRepository = conductor.repo
        self._registry = registry
        self._ratings = ratings
        self._seed_source = seed_source
        self._writers = TournamentWriters()

    async def create(
        self, config: TournamentConfig, command_id: str = "", organiser_token: str = ""
    ) -> tuple[TournamentState, str]:
        """Create a tournament (config checked, and its options by setting up a game of
        each table size) whose organiser holds ``organiser_token`` ("": a generated
        one; only its hash is kept, service-only). Returns (tournament, organiser
        token). A retry with the same ``command_id`` and config returns the tournament
        and the token it sent ("" if it sent none: a generated token is never kept).
        Raises InvalidTournament (``seat_token_strength`` for a weak token),
        UnknownRuleset, TournamentRefused ``command_id_reused`` (the id created a
        tournament with another config), NotPermitted ``not_the_organiser`` (a retry
        with another organiser token).

        A config without a time control gets DEFAULT_TOURNAMENT_CLOCK (issue 30 item 4:
        no table may wait for ever on a player who never moves)."""
        config = with_default_clock(config)
        chosen = organiser_token
        if chosen:
            _strong(chosen)
        organiser_token = chosen or new_token()
        ruleset = self._registry.get(config.ruleset)
        validate(config, info_of(ruleset), bot_policy_of(ruleset) is not None)
        # Options the ruleset refuses would only show when round 1's games are created:
        # set up one game of every table size now (raises InvalidOptions).
        for seats in range(config.min_seats, config.max_seats + 1):
            names = tuple(f"player {n + 1}" for n in range(seats))
            ruleset.setup(SetupRequest(seats, dict(config.options), names), random.Random(0))
        tournament_id = tournament_id_for(command_id) if command_id else uuid.uuid4().hex[:20]
        if command_id:
            try:
                existing = await self.repo.load(tournament_id)
            except LookupError:
                pass
            else:
                if existing.config != config:
                    raise TournamentRefused(
                        "command_id_reused",
                        "this command id created a tournament with another config; "
                        "choose a new command id",
                    )
                if chosen:
                    await self.check_organiser(tournament_id, chosen)
                return existing, chosen
        state = await self.repo.create(
            tournament_id, config, self._seed_source(), command_id, token_hash(organiser_token)
        )
        if await self.repo.organiser_hash(tournament_id) != token_hash(organiser_token):
            # A concurrent retry of the same command id created it first.
            return state, chosen
        log.info("tournament_created", tournament_id=tournament_id, ruleset=config.ruleset)
        return state, organiser_token

    async def check_organiser(self, tournament_id: str, organiser_token: str) -> None:
        """Check ``organiser_token`` is the tournament's organiser token. Raises
        NotPermitted ``not_the_organiser``, TournamentNotFound."""
        await self.repo.load(tournament_id)  # raises TournamentNotFound
        bound = await self.repo.organiser_hash(tournament_id)
        if not bound or not secrets.compare_digest(bound, token_hash(organiser_token)):
            raise NotPermitted("not_the_organiser", "this needs the tournament's organiser token")

    async def register(
        self,
        tournament_id: str,
        player: str,
        token: str,
        bot: bool = False,
        organiser_token: str = "",
    ) -> TournamentState:
        """Enter ``player``: a human holding ``token``, or a bot (which needs the
        ``organiser_token``; it is rated as ``bot:<name>``). Raises InvalidTournament
        (``player_name``: bad name, or a human name starting ``bot:``;
        ``seat_token_strength``), TournamentRefused (see decide_register;
        ``name_taken``: a human's name held by another token, or a bot named like a
        registered human), NotPermitted ``not_the_organiser``, TournamentNotFound."""
        player = player.strip()
        if not 1 <= len(player) <= MAX_NAME or not player.isprintable():
            raise InvalidTournament(
                "player_name", f"a player name is 1 to {MAX_NAME} printable characters"
            )
        if player.casefold().startswith(ACCOUNT_PREFIX):
            # One rating book: ``player:<id>`` is a player account's rating identity
            # (services.tournament.ratings_book), which no tournament name may wear.
            raise InvalidTournament(
                "player_name", f"a player name may not start with {ACCOUNT_PREFIX!r}"
            )
        hashed = ""
        if bot:
            await self.check_organiser(tournament_id, organiser_token)
            # A person's name is their rating identity: no bot may wear it.
            if await self.repo.is_claimed(player):
                raise TournamentRefused(
                    "name_taken", f"the player name {player!r} belongs to a human player"
                )
        else:
            if player.casefold().startswith(BOT_PREFIX):
                raise InvalidTournament(
                    "player_name", f"a human player name may not start with {BOT_PREFIX!r}"
                )
            hashed = token_hash(_strong(token))
        async with self._writers.turn(tournament_id):
            for attempt in range(MAX_ATTEMPTS):
                state = await self.repo.load(tournament_id)
                if hashed and attempt == 0:
                    # Only once the tournament is known: an unknown id claims no name. The
                    # person keeps the display form of their first claim in every
                    # tournament (one identity, one rating: services.players.names).
                    player = await self.repo.claim_name(player, hashed)
                kind = ev.BOT if bot else ev.HUMAN
                events = decide_register(state, player, kind, self.repo.now())
                private = (
                    PrivateRecords(token_hashes={len(state.entrants): hashed}) if hashed else None
                )
                try:
                    return await self.repo.append(state, events, private=private)
                except VersionConflict:
                    await pause_before_retry(attempt)
        raise TournamentRefused("busy", "the tournament kept changing; retry")

    async def register_account(
        self, tournament_id: str, player_id: str, name: str
    ) -> TournamentState:
        """Enter the player account ``player_id`` (its display ``name``) as a human
        player: no tournament token; its tables' seats are bound to the account, which
        plays them with its player credential (the caller has authenticated it). The
        name's identity is claimed across tournaments for the account, as a token
        registration claims it for its token. Raises TournamentRefused (those of
        decide_register; ``name_taken``: the name is held by a tournament token),
        TournamentNotFound."""
        holder = f"account:{player_id}"
        async with self._writers.turn(tournament_id):
            for attempt in range(MAX_ATTEMPTS):
                state = await self.repo.load(tournament_id)
                if attempt == 0:
                    name = await self.repo.claim_name(name, holder)
                events = decide_register(state, name, ev.HUMAN, self.repo.now(), player_id)
                try:
                    return await self.repo.append(state, events)
                except VersionConflict:
                    await pause_before_retry(attempt)
        raise TournamentRefused("busy", "the tournament kept changing; retry")

    async def withdraw(
        self,
        tournament_id: str,
        player: str,
        token: str,
        organiser_token: str = "",
        player_id: str = "",
    ) -> TournamentState:
        """Withdraw ``player``: the caller holds the player's ``token``, or is the player
        account ``player_id`` that entered them (authenticated by the caller), or (for
        any player, bots included) holds the ``organiser_token``. The player is paired no more,
        and their table of the running round, if it has not finished, is settled now:
        the tournament's ``timeout_policy`` is applied to their seat (see
        Conductor.settle_seat) and a bot plays it to the end. Raises NotPermitted
        (``not_your_player``, ``not_the_organiser``), TournamentRefused (those of
        decide_withdraw), TournamentNotFound."""
        if organiser_token:
            await self.check_organiser(tournament_id, organiser_token)
        async with self._writers.turn(tournament_id):
            for attempt in range(MAX_ATTEMPTS):
                state = await self.repo.load(tournament_id)
                events = decide_withdraw(state, player)
                registered = state.named(player) or player  # decide_withdraw found it
                entrant = state.entrant(registered)
                if player_id and not organiser_token:
                    if entrant is None or entrant.player_id != player_id:
                        raise NotPermitted(
                            "not_your_player", f"your player account did not enter {player!r}"
                        )
                elif not organiser_token:
                    tokens = await self.repo.player_tokens(tournament_id)
                    bound = tokens.get(state.players().index(registered), "")
                    if not bound or not secrets.compare_digest(bound, token_hash(token)):
                        raise NotPermitted(
                            "not_your_player", f"this token does not hold the player {player!r}"
                        )
                # The running table first (issue 30 item 4): an engine that cannot be reached
                # leaves nothing recorded, and the retry settles the seat (idempotent) then.
                await self.conductor.settle_seat(state, registered)
                try:
                    return await self.repo.append(state, events)
                except VersionConflict:
                    await pause_before_retry(attempt)
        raise TournamentRefused("busy", "the tournament kept changing; retry")

    async def start(self, tournament_id: str, organiser_token: str) -> TournamentState:
        """Close registration and pair round 1 (see Conductor.start). Raises NotPermitted
        ``not_the_organiser`` unless ``organiser_token`` is the tournament's."""
        await self.check_organiser(tournament_id, organiser_token)
        return await self.conductor.start(tournament_id)

    async def get(self, tournament_id: str) -> TournamentState:
        """The tournament folded from its log. Raises TournamentNotFound."""
        return await self.repo.load(tournament_id)

    async def page(
        self, after: tuple[int, str] | None, limit: int
    ) -> list[tuple[int, TournamentState]]:
        """(created ms, state) of up to ``limit`` tournaments after the cursor ``after``
        (created ms, id), oldest first."""
        page = await self.repo.list(after, limit)
        return [(ms, await self.repo.load(tid)) for ms, tid in page]

    async def export(self, tournament_id: str) -> str:
        """Standings and pairings as canonical JSON, computed from the log alone."""
        return canonical_json(export_json(await self.repo.load(tournament_id)))

    async def verify(self, tournament_id: str) -> dict[str, Any]:
        """Chain and pairing checks: ``{chain_ok, events_checked, first_bad_version,
        pairings_ok, rounds_checked, problem}``."""
        sid = stream_id(tournament_id)
        stored = await self.repo.events(tournament_id)
        if not stored:
            await self.repo.load(tournament_id)  # raises TournamentNotFound
        chain = verify_chain(stored, await self.repo.store.head(sid))
        pairings = replay_pairings(stored)
        problem = chain.reason or pairings.problem
        return {
            "chain_ok": chain.ok,
            "events_checked": chain.checked,
            "first_bad_version": chain.first_bad_version,
            "pairings_ok": pairings.ok,
            "rounds_checked": pairings.rounds_checked,
            "problem": problem,
        }

    async def leaderboard(self, ruleset: str, limit: int) -> list[tuple[str, Rating]]:
        """Ratings of ``ruleset``'s tournament players (by tournament name), best first.

        The book also rates player accounts (``player:<id>``, rated games outside
        tournaments): they are left out here, where a row names a tournament player;
        RatingService's leaderboard lists everyone with display names."""
        self._registry.get(ruleset)
        board = await self._ratings.leaderboard(ruleset, 0)
        named = [(p, r) for p, r in board if not p.startswith(ACCOUNT_PREFIX)]
        return named[:limit] if limit > 0 else named


def _strong(token: str) -> str:
    """``token`` if a client may choose it (services.engine.domain.game_seats), else
    InvalidTournament ``seat_token_strength``."""
    try:
        return check_client_token(token)
    except ValueError as exc:
        raise InvalidTournament(
            "seat_token_strength",
            "a token must be 22 to 256 printable ASCII characters without spaces "
            "(at least 128 random bits, e.g. secrets.token_urlsafe(16))",
        ) from exc


def export_json(state: TournamentState) -> dict[str, Any]:
    """The exported document: config, standings (tie-break columns by name; an
    elimination's rows also ``round_reached``, ``eliminated_in_round``,
    ``place_in_round``), rounds with tables, game ids and places, and the log head it
    was computed at."""
    withdrawn = {e.player for e in state.entrants if e.withdrawn}
    elimination = state.config.format is Format.ELIMINATION
    return {
        "tournament_id": state.tournament_id,
        "config": state.config.to_json(),
        "status": state.status,
        "standings": [
            {
                "rank": row.rank,
                "player": row.player,
                "points": row.points,
                "tiebreaks": dict(row.tiebreaks),
                "rounds_played": row.rounds_played,
                "byes": row.byes,
                "withdrawn": row.player in withdrawn,
            }
            | (
                {
                    "round_reached": row.round_reached,
                    "eliminated_in_round": row.eliminated_in_round,
                    "place_in_round": row.place_in_round,
                }
                if elimination
                else {}
            )
            for row in state.standings()
        ],
        "rounds": [
            {
                "round": r.number,
                "byes": list(r.pairing.byes),
                "tables": [
                    {
                        "table": t.number,
                        "players": list(t.players),
                        "game_id": r.game_ids.get(t.number, ""),
                        "places": list(r.results[t.number].places) if t.number in r.results else [],
                    }
                    for t in r.pairing.tables
                ],
            }
            for r in state.rounds
        ],
        "seed_commitment": state.seed_commitment,
        "revealed_seed": state.revealed_seed or "",
        "log_head": {"version": state.version, "hash": state.head_hash},
    }
