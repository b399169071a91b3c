"""The tournament aggregate: a pure fold of its log, and the decisions on it.

``fold`` turns stored events into a :class:`TournamentState`; the ``decide_*`` functions
check a command against a state and return the events to append (or raise). No I/O, no
clock, no randomness: time and the seed come in as arguments, so the pairing of every
round can be re-derived from the log once the seed is revealed (:func:`replay_pairings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from services.engine.domain.chain import GENESIS_HASH
from services.engine.domain.fairness import commit
from services.engine.domain.records import StoredEvent
from services.engine.domain.ruleset import DomainEvent
from services.players.names import name_key
from services.tournament import events as ev
from services.tournament.config import TournamentConfig, parse_instant
from services.tournament.elimination_standings import elimination_standings
from services.tournament.errors import TournamentRefused
from services.tournament.model import (
    Format,
    Pairing,
    PairingError,
    RoundRecord,
    StandingRow,
    Table,
    TableResult,
)
from services.tournament.pairing import pair_round
from services.tournament.standings import compute_standings

REGISTERING = "registering"
RUNNING = "running"
FINISHED = "finished"


@dataclass(frozen=True)
class Entrant:
    """A registered player: ``kind`` human or bot; ``withdrawn`` once PlayerWithdrew;
    ``player_id`` the player account that entered ("" for a token registration)."""

    player: str
    kind: str
    withdrawn: bool = False
    player_id: str = ""


@dataclass(frozen=True)
class RoundState:
    """One paired round: its pairing, the game of each table, the finished tables."""

    pairing: Pairing
    game_ids: Mapping[int, str]
    results: Mapping[int, TableResult] = field(default_factory=dict)
    finished: bool = False

    @property
    def number(self) -> int:
        """1-based round number."""
        return self.pairing.round

    def complete(self) -> bool:
        """True once every table has a result."""
        return all(t.number in self.results for t in self.pairing.tables)

    def table_of(self, game_id: str) -> Table | None:
        """The table playing ``game_id`` in this round, if any."""
        for table in self.pairing.tables:
            if self.game_ids.get(table.number) == game_id:
                return table
        return None

    def record(self) -> RoundRecord:
        """The round as pairing and standings take it (results in table order)."""
        return RoundRecord(self.pairing, tuple(self.results[n] for n in sorted(self.results)))


@dataclass(frozen=True)
class TournamentState:
    """A tournament folded from its log up to ``version`` (head hash ``head_hash``)."""

    tournament_id: str
    config: TournamentConfig
    seed_commitment: str
    created_at: str
    entrants: tuple[Entrant, ...] = ()
    status: str = REGISTERING
    rounds: tuple[RoundState, ...] = ()
    ranking: tuple[str, ...] = ()
    revealed_seed: str | None = None
    version: int = 0
    head_hash: str = GENESIS_HASH

    def entrant(self, player: str) -> Entrant | None:
        """The registration of ``player``, if any."""
        return next((e for e in self.entrants if e.player == player), None)

    def named(self, player: str) -> str | None:
        """The registered name ``player`` identifies (services.players.names): the
        exact name if registered (a log from before identities were normalised may hold
        two names of one identity), else the first of the same identity; None if none."""
        if self.entrant(player) is not None:
            return player
        key = name_key(player)
        return next((e.player for e in self.entrants if name_key(e.player) == key), None)

    def players(self) -> list[str]:
        """Every registered player, in registration order (withdrawn ones included)."""
        return [e.player for e in self.entrants]

    def active(self) -> list[str]:
        """Players still in (not withdrawn), in registration order: who is paired next."""
        return [e.player for e in self.entrants if not e.withdrawn]

    def history(self) -> list[RoundRecord]:
        """Every paired round with its results so far."""
        return [r.record() for r in self.rounds]

    @property
    def current(self) -> RoundState | None:
        """The last paired round, if any."""
        return self.rounds[-1] if self.rounds else None

    def standings(self) -> list[StandingRow]:
        """Standings over every round so far: points and tie-breaks
        (services.tournament.standings), or for an elimination tournament how far each
        player went (services.tournament.elimination_standings)."""
        config = self.config
        if config.format is Format.ELIMINATION:
            return elimination_standings(
                self.players(),
                self.active(),
                self.history(),
                config.table_size,
                config.scoring(),
                config.advance or None,
            )
        return compute_standings(self.players(), self.history(), config.scoring())

    def round_of_game(self, game_id: str) -> tuple[RoundState, Table] | None:
        """The round and table playing ``game_id``, if it is one of this tournament's."""
        for round_ in reversed(self.rounds):
            table = round_.table_of(game_id)
            if table is not None:
                return round_, table
        return None


class CorruptTournamentLog(RuntimeError):
    """A stored tournament log cannot be folded (no TournamentCreated first, unknown type)."""


def _apply(state: TournamentState | None, event: DomainEvent) -> TournamentState:
    """Fold one event (pure). Raises CorruptTournamentLog."""
    payload = event.payload
    if state is None:
        if event.type != ev.TOURNAMENT_CREATED:
            raise CorruptTournamentLog(f"a tournament log starts with {ev.TOURNAMENT_CREATED}")
        return TournamentState(
            str(payload["tournament_id"]),
            TournamentConfig.from_json(payload["config"]),
            str(payload["seed_commitment"]),
            str(payload.get("created_at", "")),
        )
    if event.type == ev.PLAYER_REGISTERED:
        entrant = Entrant(
            str(payload["player"]),
            str(payload["kind"]),
            player_id=str(payload.get("player_id", "")),
        )
        return replace(state, entrants=(*state.entrants, entrant))
    if event.type == ev.PLAYER_WITHDREW:
        player = str(payload["player"])
        return replace(
            state,
            entrants=tuple(
                replace(e, withdrawn=True) if e.player == player else e for e in state.entrants
            ),
        )
    if event.type == ev.TOURNAMENT_STARTED:
        return replace(state, status=RUNNING)
    if event.type == ev.ROUND_PAIRED:
        tables = tuple(
            Table(int(t["table"]), tuple(str(p) for p in t["players"])) for t in payload["tables"]
        )
        pairing = Pairing(int(payload["round"]), tables, tuple(str(p) for p in payload["byes"]))
        games = {int(t["table"]): str(t["game_id"]) for t in payload["tables"]}
        return replace(state, rounds=(*state.rounds, RoundState(pairing, games)))
    if event.type == ev.TABLE_FINISHED:
        number = int(payload["round"])
        result = TableResult(
            int(payload["table"]),
            tuple(int(p) for p in payload["places"]),
            tuple(str(p) for p in payload.get("forfeited", ())),
        )
        return _with_round(
            state, number, lambda r: replace(r, results={**r.results, result.table: result})
        )
    if event.type == ev.ROUND_FINISHED:
        return _with_round(state, int(payload["round"]), lambda r: replace(r, finished=True))
    if event.type == ev.TOURNAMENT_FINISHED:
        return replace(state, status=FINISHED, ranking=tuple(str(p) for p in payload["ranking"]))
    if event.type == ev.SEED_REVEALED:
        return replace(state, revealed_seed=str(payload["seed"]))
    raise CorruptTournamentLog(f"unknown tournament event type {event.type!r}")


def _with_round(state: TournamentState, number: int, change: Any) -> TournamentState:
    rounds = tuple(change(r) if r.number == number else r for r in state.rounds)
    return replace(state, rounds=rounds)


def fold(events: Iterable[StoredEvent], state: TournamentState | None = None) -> TournamentState:
    """``state`` (None: nothing) with ``events`` folded in, version and head hash kept.

    Raises CorruptTournamentLog for an empty log or an event it does not know.
    """
    for stored in events:
        state = _apply(state, stored.to_domain())
        state = replace(state, version=stored.version, head_hash=stored.hash)
    if state is None:
        raise CorruptTournamentLog("empty tournament log")
    return state


# --- decisions -------------------------------------------------------------------------


def _before(first: str, second: str) -> bool:
    """Whether the time ``first`` is before ``second``, as instants (offsets applied).
    A bound an older version recorded unparsed (not a zoned ISO 8601 time) keeps that
    version's text comparison."""
    try:
        return parse_instant(first) < parse_instant(second)
    except ValueError:
        return first < second


def decide_register(
    state: TournamentState, player: str, kind: str, now_iso: str, player_id: str = ""
) -> list[DomainEvent]:
    """PlayerRegistered, if ``player`` may still enter at ``now_iso`` (ISO 8601 UTC).

    Raises TournamentRefused: ``tournament_started`` (running or finished),
    ``registration_not_open`` / ``registration_closed`` (outside the window),
    ``tournament_full`` (max_players reached), ``already_registered`` (a player of the
    same identity, services.players.names: ``"Ann"`` is ``"ann"``).
    """
    if state.status != REGISTERING:
        raise TournamentRefused("tournament_started", "the tournament has started: no new players")
    opens, closes = state.config.registration_opens_at, state.config.registration_closes_at
    if opens and _before(now_iso, opens):
        raise TournamentRefused("registration_not_open", f"registration opens at {opens}")
    if closes and _before(closes, now_iso):
        raise TournamentRefused("registration_closed", f"registration closed at {closes}")
    registered = state.named(player)
    if registered is not None:  # one player per identity: "Ann" is "ann" (issue 30)
        raise TournamentRefused(
            "already_registered", f"{player!r} is already registered (as {registered!r})"
        )
    cap = state.config.max_players
    if cap and len(state.entrants) >= cap:
        raise TournamentRefused("tournament_full", f"the tournament is full ({cap} players)")
    if player_id and any(e.player_id == player_id for e in state.entrants):
        raise TournamentRefused("already_registered", "your player account is already registered")
    return [ev.player_registered(player, kind, player_id)]


def decide_withdraw(state: TournamentState, player: str) -> list[DomainEvent]:
    """PlayerWithdrew of the player ``player`` names, in any spelling of the name (the
    event records the registered name; the player is paired no more). Raises
    TournamentRefused ``not_registered``, ``already_withdrawn``, ``tournament_finished``."""
    named = state.named(player)
    entrant = state.entrant(named) if named is not None else None
    if entrant is None:
        raise TournamentRefused("not_registered", f"{player!r} is not registered")
    player = entrant.player
    if entrant.withdrawn:
        raise TournamentRefused("already_withdrawn", f"{player!r} has already withdrawn")
    if state.status == FINISHED:
        raise TournamentRefused("tournament_finished", "the tournament is over")
    return [ev.player_withdrew(player, "requested")]


def decide_start(state: TournamentState) -> list[DomainEvent]:
    """TournamentStarted. Raises TournamentRefused ``tournament_started`` (not
    registering), ``not_enough_players`` (fewer active players than one smallest table)."""
    if state.status != REGISTERING:
        raise TournamentRefused("tournament_started", "the tournament has already started")
    if len(state.active()) < state.config.min_seats:
        raise TournamentRefused(
            "not_enough_players",
            f"{len(state.active())} players cannot fill a {state.config.min_seats}-seat table",
        )
    return [ev.tournament_started(state.active())]


def next_pairing(state: TournamentState, seed: str, strict: bool = False) -> Pairing | None:
    """The pairing of the next round (deterministic from the log and ``seed``), or None
    when the tournament is over: every round played, or no table can be formed.

    ``strict`` (round 1): raise TournamentRefused with the pairing's reason instead of
    returning None, so a tournament never starts without a round.
    """
    if len(state.rounds) >= state.config.rounds:
        return None
    config = state.config
    advance = config.advance or None if config.format is Format.ELIMINATION else None
    try:
        pairing = pair_round(
            config.format,
            state.active(),
            state.history(),
            config.table_size,
            config.scoring(),
            seed,
            advance=advance,
        )
    except PairingError as exc:
        if strict:
            raise TournamentRefused(exc.reason, exc.message) from exc
        return None
    if strict and not pairing.tables:
        raise TournamentRefused("pairing_impossible", "round 1 would have no table")
    return pairing if pairing.tables else None


def finishing_events(state: TournamentState, seed: str) -> list[DomainEvent]:
    """TournamentFinished (final ranking) and SeedRevealed."""
    ranking = [row.player for row in state.standings()]
    return [ev.tournament_finished(ranking), ev.seed_revealed(seed)]


def preview(state: TournamentState, events: Sequence[DomainEvent]) -> TournamentState:
    """``state`` with ``events`` folded (not stored: version and hash unchanged)."""
    for event in events:
        state = _apply(state, event)
    return state


@dataclass(frozen=True)
class PairingCheck:
    """Outcome of :func:`replay_pairings`: ``ok``, how many rounds matched, first problem."""

    ok: bool
    rounds_checked: int
    problem: str = ""


def replay_pairings(events: Sequence[StoredEvent]) -> PairingCheck:
    """Re-derive every RoundPaired from the log before it and the revealed seed.

    Needs SeedRevealed in ``events`` (else reports not ok: the seed is still secret) and
    checks it opens the commitment. Never raises for a bad log: it reports.
    """
    seed = next((str(e.payload["seed"]) for e in events if e.type == ev.SEED_REVEALED), None)
    if seed is None:
        return PairingCheck(False, 0, "the seed is not revealed yet (the tournament is running)")
    state: TournamentState | None = None
    checked = 0
    try:
        for stored in events:
            if stored.type == ev.ROUND_PAIRED and state is not None:
                expected = next_pairing(state, seed)
                got = _apply(state, stored.to_domain()).rounds[-1].pairing
                if expected != got:
                    return PairingCheck(
                        False, checked, f"round {got.round} does not match the seeded pairing"
                    )
                checked += 1
            state = _apply(state, stored.to_domain())
    except (CorruptTournamentLog, KeyError, ValueError, TypeError) as exc:
        return PairingCheck(False, checked, f"log does not fold: {exc}")
    if state is None or commit(seed) != state.seed_commitment:
        return PairingCheck(False, checked, "the revealed seed does not open the commitment")
    return PairingCheck(True, checked)
