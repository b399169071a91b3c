"""Folding a game's log into a :class:`GameSnapshot`.

A game's log is ``GameCreated`` (written by the engine) followed by the ruleset's own
events, with the engine's ``SeatJoined`` and ``SeedRevealed`` among them (see
:mod:`services.engine.engine_events`). The ruleset state starts at
``evolve(None, first_ruleset_event)``. Folding checks the hash chain as it goes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from services.engine import engine_events
from services.engine.engine_events import GAME_CREATED, SEAT_JOINED, SEED_REVEALED, game_created
from services.engine.errors import CorruptLog, GameNotFound
from services.engine.fairness import rng_for
from services.engine.game_seats import SeatKind, SeatSpec
from services.engine.ruleset import Ruleset
from services.engine.rulesets import RulesetRegistry
from services.engine.store.chain import GENESIS_HASH, hash_of
from services.engine.store.records import StoredEvent

__all__ = [
    "GAME_CREATED",
    "GameSnapshot",
    "SeatKind",
    "SeatSpec",
    "fold",
    "game_created",
    "rng_for",
]


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

    def seats_to_act(self) -> tuple[int, ...]:
        """Seats the ruleset waits for."""
        return tuple(self.ruleset.seats_to_act(self.state))

    def is_terminal(self) -> bool:
        """True once the game has ended."""
        return bool(self.ruleset.is_terminal(self.state))

    def bot_seats_to_act(self, state: Any | None = None) -> tuple[int, ...]:
        """Bot seats that must act in ``state`` (default: this snapshot's state)."""
        current = self.state if state is None else state
        return tuple(
            s for s in self.ruleset.seats_to_act(current) if self.seats[s].kind is SeatKind.BOT
        )

    def evolve(self, events: Sequence[StoredEvent]) -> GameSnapshot:
        """This snapshot with ``events`` (which must continue the log) folded in.

        Raises CorruptLog on a version gap or an event that does not chain onto the one
        before.
        """
        state = self.state
        version = self.version
        head = self.head_hash
        seats = self.seats
        revealed = self.revealed_seed
        for event in events:
            if event.version != version + 1:
                raise CorruptLog(f"game {self.game_id}: version {event.version} after {version}")
            if hash_of(head, event) != event.hash:
                raise CorruptLog(f"game {self.game_id}: version {event.version} breaks the chain")
            domain = engine_events.upcast(event.to_domain())
            if domain.type == SEAT_JOINED:
                seats = _joined(seats, domain.payload)
            elif domain.type == SEED_REVEALED:
                revealed = str(domain.payload["seed"])
            else:
                state = self.ruleset.evolve(state, self.ruleset.upcast(domain))
            version = event.version
            head = event.hash
        return replace(
            self, seats=seats, version=version, state=state, head_hash=head, revealed_seed=revealed
        )


def _joined(seats: tuple[SeatSpec, ...], payload: Mapping[str, Any]) -> tuple[SeatSpec, ...]:
    index = int(payload["seat"])
    updated = SeatSpec(seats[index].kind, str(payload["name"]), str(payload["token_hash"]))
    return (*seats[:index], updated, *seats[index + 1 :])


def fold(game_id: str, events: Sequence[StoredEvent], registry: RulesetRegistry) -> GameSnapshot:
    """Rebuild a game from its whole log.

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
    payload = created.payload
    ruleset = registry.get(str(payload["ruleset"]))
    setup = rest[0]
    if setup.version != 2:
        raise CorruptLog(f"game {game_id}: version {setup.version} after 1")
    if hash_of(first.hash, setup) != setup.hash:
        raise CorruptLog(f"game {game_id}: version 2 breaks the chain")
    start = GameSnapshot(
        game_id,
        str(payload["ruleset"]),
        ruleset,
        tuple(SeatSpec.from_json(seat) for seat in payload["seats"]),
        dict(payload.get("options", {})),
        str(payload["seed_commitment"]),
        2,
        ruleset.evolve(None, ruleset.upcast(setup.to_domain())),
        setup.hash,
        engine_events.legacy_seed(first.to_domain()),
    )
    return start.evolve(rest[1:])
