"""Folding a game's log into a :class:`GameSnapshot`.

A game's log is ``GameCreated`` (written by the engine) followed by the ruleset's own
events, with the engine's ``SeatJoined`` and ``SeedRevealed`` among them (see
:mod:`services.engine.domain.engine_events`). The ruleset state starts at
``evolve(None, first_ruleset_event)``. Folding checks the hash chain as it goes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from services.engine.domain import engine_events
from services.engine.domain.chain import GENESIS_HASH, hash_of
from services.engine.domain.commitments import committed_parts
from services.engine.domain.engine_events import (
    ENGINE_EVENTS,
    GAME_CREATED,
    SEAT_JOINED,
    SECRETS_REVEALED,
    SEED_REVEALED,
    game_created,
)
from services.engine.domain.errors import CorruptLog, GameNotFound
from services.engine.domain.fairness import rng_for
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.leaving import HANDOVER_EVENTS, LEAVING_EVENTS, NO_LEAVERS, SeatControl
from services.engine.domain.records import NO_PRIVATE, PrivateRecords, StoredEvent
from services.engine.domain.ruleset import SEALED_KEY, DomainEvent, GameResult, Ruleset, Sealed
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.seat_clocks import CLOCK_EVENTS, ClockState, fold_clock

__all__ = [
    "GAME_CREATED",
    "GameSnapshot",
    "SeatKind",
    "SeatSpec",
    "fold",
    "game_created",
    "rng_for",
]


_FOLD: Any = object()
"""GameSnapshot.evolve's ``decided`` when none is given: fold the ruleset's events."""


@dataclass(frozen=True)
class GameSnapshot:
    """A game's state folded from its log up to ``version``.

    Attributes:
        game_id / ruleset_name / ruleset: which game, played with which rules.
        seats / options / seed_commitment: as recorded in GameCreated (seats updated by
            SeatJoined).
        version: version of the last folded event.
        state: the ruleset's state (opaque to the engine).
        head_hash: hash of the last folded event (what the next append chains onto).
        revealed_seed: the seed once public (SeedRevealed, or a v1 GameCreated), else None.
        private: the service-only records folded in (secrets, token bindings); empty for
            a fold of the public log alone.
        commitments: every secret id committed so far -> the version committing it.
        revealed: secret ids opened by SecretsRevealed so far.
        clock: the seats' clocks (None: a game without a time control).
        control: who plays each seat (taken over, forfeited, resigned) and whether a
            resignation ended the game (services.engine.domain.leaving).
        rated: the game counts for its players' ratings (GameCreated v5 ``rated``;
            services.engine.domain.rated).
    """

    game_id: str
    ruleset_name: str
    ruleset: Ruleset[Any]
    seats: tuple[SeatSpec, ...]
    options: Mapping[str, Any]
    seed_commitment: str
    version: int
    state: Any
    head_hash: str = GENESIS_HASH
    revealed_seed: str | None = None
    private: PrivateRecords = NO_PRIVATE
    commitments: Mapping[str, int] = field(default_factory=dict)
    revealed: frozenset[str] = frozenset()
    clock: ClockState | None = None
    control: SeatControl = NO_LEAVERS
    rated: bool = False

    def updated(self, **changes: Any) -> GameSnapshot:
        """``dataclasses.replace(self, **changes)`` at a sixth of its cost (about 0.5 us
        against 3 us; two per move, issue 16): the fields are copied as they are, and
        this class has no ``__post_init__`` for ``replace`` to run. Raises TypeError for
        a name that is not a field, as ``replace`` does."""
        unknown = changes.keys() - _FIELD_NAMES
        if unknown:
            raise TypeError(f"GameSnapshot has no fields {sorted(unknown)}")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def unrevealed(self) -> tuple[str, ...]:
        """Secret ids committed and not yet opened, in commitment order."""
        return tuple(k for k in self.commitments if k not in self.revealed)

    def seats_to_act(self) -> tuple[int, ...]:
        """Seats the ruleset waits for (none once a resignation ended the game)."""
        if self.control.ended:
            return ()
        return tuple(self.ruleset.seats_to_act(self.state))

    def is_terminal(self) -> bool:
        """True once the game has ended (by its rules, or by a resignation)."""
        return self.control.ended or bool(self.ruleset.is_terminal(self.state))

    def bot_seats_to_act(
        self, state: Any | None = None, control: SeatControl | None = None
    ) -> tuple[int, ...]:
        """Seats a bot must play in ``state`` (default: this snapshot's state): bot seats,
        and human seats a bot plays (taken over, forfeited) by ``control`` (default: this
        snapshot's); none once a resignation ended the game."""
        current = self.state if state is None else state
        seats = self.control if control is None else control
        if seats.ended:
            return ()
        taken = seats.bot_controlled()
        return tuple(
            s
            for s in self.ruleset.seats_to_act(current)
            if self.seats[s].kind is SeatKind.BOT or s in taken
        )

    def played_by_bot(self, seat: int) -> bool:
        """True if a bot plays ``seat`` now (a bot seat, or taken over, or forfeited)."""
        if self.seats[seat].kind is SeatKind.BOT:
            return True
        return seat in self.control.bot_controlled()

    def result(self) -> GameResult | None:
        """The result of a finished game, None while it runs. Generic for every ruleset:
        scores stay the ruleset's; forfeited seats (on time, withdrawn, resigned) rank
        last, the first to leave lowest. A game a resignation ended has no result from
        its rules: the seats still in rank by their current scores (highest first, ties
        by seat order), above the seats out."""
        result = self.ruleset.result(self.state)
        lost = self.control.forfeited
        if result is None:
            if not self.control.ended:
                return None
            scores = tuple(int(s) for s in self.ruleset.scores(self.state))
            standing = sorted(
                (s for s in range(len(self.seats)) if s not in lost),
                key=lambda s: (-scores[s] if s < len(scores) else 0, s),
            )
            return GameResult(scores, (*standing, *reversed(lost)))
        if not lost:
            return result
        ranking = [s for s in result.ranking if s not in lost] + list(reversed(lost))
        return GameResult(result.scores, tuple(ranking))

    def evolve(
        self,
        events: Sequence[StoredEvent],
        private: PrivateRecords | None = None,
        hashed_here: bool = False,
        decided: Any = _FOLD,
    ) -> GameSnapshot:
        """This snapshot with ``events`` (which must continue the log) folded in.

        ``private`` adds service-only records (secrets the events commit to, token
        bindings) to those already known; without them the ruleset folds the public
        payloads alone. ``hashed_here``: the events' hashes were computed in this
        process onto this snapshot's head (``store.chain.chained``, an append's own
        records), so hashing them again could only agree; their versions are still
        checked. ``decided``: the ruleset's state after ``events`` as the command that
        wrote them computed it (``decide_and_fold``), taken as the new state instead of
        folding the ruleset's events a second time (issue 35); the engine's own events
        among them (clocks, seats leaving, reveals) are folded as always, and the
        commitments recorded. Only an append's own records with the state its decision
        reached may be given so (services.engine.domain.snapshots checks a sample of
        them against the fold). Raises CorruptLog on a version gap or an event that does
        not chain onto the one before.
        """
        if private is None or not (private.secrets or private.token_hashes):
            # This snapshot's seats are bound to its own records already (every snapshot
            # is: fold, evolve and a stored snapshot's seats all carry them), so only new
            # records can bind more. A move adds none (its records are empty but for
            # secrets it commits): skipping saves ~2 us an evolve.
            known = self.private
            seats = self.seats
        else:
            known = self.private.merged(private)
            seats = _bound(self.seats, known)
        state = self.state
        version = self.version
        head = self.head_hash
        revealed_seed = self.revealed_seed
        # Copied when an event adds to them (rarely: a commitment, a reveal), not per call.
        commitments: Mapping[str, int] = self.commitments
        revealed: frozenset[str] = self.revealed
        clock = self.clock
        control = self.control
        fold_rules = decided is _FOLD
        for event in events:
            if event.version != version + 1:
                raise CorruptLog(f"game {self.game_id}: version {event.version} after {version}")
            if not hashed_here and hash_of(head, event) != event.hash:
                raise CorruptLog(f"game {self.game_id}: version {event.version} breaks the chain")
            if not fold_rules and event.type not in ENGINE_EVENTS:
                # The ruleset's event, whose effect ``decided`` holds already.
                if SEALED_KEY in event.payload:
                    commitments = _committed(commitments, event.payload, event.version)
                version = event.version
                head = event.hash
                continue
            raw = event.to_domain()
            domain = engine_events.upcast(raw)
            if domain.type == SEAT_JOINED:
                seats = _joined(seats, domain.payload, known, raw)
            elif domain.type == SEED_REVEALED:
                revealed_seed = str(domain.payload["seed"])
            elif domain.type == SECRETS_REVEALED:
                revealed = revealed.union(str(s["id"]) for s in domain.payload["secrets"])
            elif domain.type in CLOCK_EVENTS or domain.type in LEAVING_EVENTS:
                try:
                    control = control.apply(domain)
                    # A handover in a game without clocks (a resignation, a claim) is
                    # the seat's alone: only clocked games fold it into their clocks.
                    if domain.type in CLOCK_EVENTS and (
                        clock is not None or domain.type not in HANDOVER_EVENTS
                    ):
                        clock = fold_clock(clock, domain, len(seats))
                except (KeyError, ValueError, TypeError, IndexError) as exc:
                    raise CorruptLog(
                        f"game {self.game_id}: version {event.version}: {exc!r}"
                    ) from exc
            else:
                if SEALED_KEY in domain.payload:
                    commitments = _committed(commitments, domain.payload, event.version)
                    domain = unsealed(domain, known)
                state = self.ruleset.evolve(state, self.ruleset.upcast(domain))
            version = event.version
            head = event.hash
        if not fold_rules:
            state = decided
        return self.updated(
            seats=seats,
            version=version,
            state=state,
            head_hash=head,
            revealed_seed=revealed_seed,
            private=known,
            commitments=commitments,
            revealed=revealed,
            clock=clock,
            control=control,
        )


_FIELD_NAMES = frozenset(f.name for f in fields(GameSnapshot))


def _committed(
    commitments: Mapping[str, int], payload: Mapping[str, Any], version: int
) -> Mapping[str, int]:
    """``commitments`` (secret id -> version that committed to it) with the secrets
    ``payload`` commits to at ``version`` added (a copy: snapshots share the mapping)."""
    added = dict(commitments)
    for secret_id in committed_parts(payload):
        added.setdefault(secret_id, version)
    return added


def unsealed(event: DomainEvent, private: PrivateRecords) -> DomainEvent:
    """``event`` with the values of its committed secrets that ``private`` holds."""
    ids = committed_parts(event.payload)
    if not ids:
        return event
    known = {
        secret_id: Sealed(private.secrets[secret_id].value, private.secrets[secret_id].seats)
        for secret_id in ids
        if secret_id in private.secrets
    }
    return DomainEvent(event.type, event.payload, event.schema_version, known, event.reveals)


def _bound(seats: tuple[SeatSpec, ...], private: PrivateRecords) -> tuple[SeatSpec, ...]:
    """``seats`` with the token hashes the service-only bindings hold."""
    if not private.token_hashes:
        return seats
    return tuple(
        replace(seat, token_hash=private.token_hashes[index])
        if index in private.token_hashes and not seat.token_hash
        else seat
        for index, seat in enumerate(seats)
    )


def _joined(
    seats: tuple[SeatSpec, ...],
    payload: Mapping[str, Any],
    private: PrivateRecords,
    raw: DomainEvent,
) -> tuple[SeatSpec, ...]:
    index = int(payload["seat"])
    token_hash = engine_events.legacy_token_hashes(raw).get(index) or private.token_hashes.get(
        index, ""
    )
    player = str(payload.get("player", "") or "")
    updated = SeatSpec(seats[index].kind, str(payload["name"]), token_hash, True, player)
    return (*seats[:index], updated, *seats[index + 1 :])


def fold(
    game_id: str,
    events: Sequence[StoredEvent],
    registry: RulesetRegistry,
    private: PrivateRecords = NO_PRIVATE,
) -> GameSnapshot:
    """Rebuild a game from its whole log (with the service-only ``private`` records, if
    the caller may read them; a public fold gets none).

    Raises GameNotFound for an empty log, CorruptLog if it does not start with
    GameCreated plus at least one ruleset event, has version gaps or a broken hash chain,
    UnknownRuleset if the recorded ruleset is not registered.
    """
    if not events:
        raise GameNotFound(game_id)
    first, *rest = events
    if first.type != GAME_CREATED or first.version != 1:
        raise CorruptLog(f"game {game_id}: log starts with {first.type} v{first.version}")
    if not rest:
        raise CorruptLog(f"game {game_id}: no ruleset setup event")
    if hash_of(GENESIS_HASH, first) != first.hash:
        raise CorruptLog(f"game {game_id}: version 1 breaks the chain")
    created = engine_events.upcast(first.to_domain())
    legacy = engine_events.legacy_token_hashes(first.to_domain())
    if legacy:
        private = PrivateRecords(private.secrets, {**legacy, **private.token_hashes})
    payload = created.payload
    ruleset = registry.get(str(payload["ruleset"]))
    setup = rest[0]
    if setup.version != 2:
        raise CorruptLog(f"game {game_id}: version {setup.version} after 1")
    if hash_of(first.hash, setup) != setup.hash:
        raise CorruptLog(f"game {game_id}: version 2 breaks the chain")
    opening = setup.to_domain()
    start = GameSnapshot(
        game_id,
        str(payload["ruleset"]),
        ruleset,
        _bound(tuple(SeatSpec.from_json(seat) for seat in payload["seats"]), private),
        dict(payload.get("options", {})),
        str(payload["seed_commitment"]),
        2,
        ruleset.evolve(None, ruleset.upcast(unsealed(opening, private))),
        setup.hash,
        engine_events.legacy_seed(first.to_domain()),
        private,
        {secret_id: 2 for secret_id in committed_parts(opening.payload)},
        rated=bool(payload.get("rated", False)),
    )
    return start.evolve(rest[1:])
