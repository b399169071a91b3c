"""Engine-level game facts: seats, the GameCreated event, and folding a log into state.

A game's log is ``GameCreated`` (written by the engine) followed by the ruleset's own
events. The ruleset state starts at ``evolve(None, first_ruleset_event)``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from services.engine.errors import CorruptLog, GameNotFound, InvalidArgument
from services.engine.ruleset import DomainEvent, Ruleset
from services.engine.rulesets import RulesetRegistry
from services.engine.store.records import StoredEvent

GAME_CREATED = "GameCreated"
"""Type of every game's first event: {ruleset, seats: [{kind, name}], options, seed}."""


class SeatKind(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"
    BOT = "bot"


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat as chosen at creation."""

    kind: SeatKind
    name: str

    def to_json(self) -> dict[str, str]:
        """``{"kind": "human"|"bot", "name": ...}``."""
        return {"kind": self.kind.value, "name": self.name}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatSpec:
        """Inverse of :meth:`to_json`. Raises InvalidArgument."""
        try:
            return cls(SeatKind(data["kind"]), str(data["name"]))
        except (KeyError, ValueError) as exc:
            raise InvalidArgument(f"bad seat {dict(data)!r}") from exc


def rng_for(seed: str, version: int) -> random.Random:
    """The rng a ruleset gets when deciding at ``version`` (0: setup)."""
    return random.Random(f"{seed}:{version}")


def game_created(
    ruleset: str, seats: Sequence[SeatSpec], options: Mapping[str, Any], seed: str
) -> DomainEvent:
    """The engine's first event of a game."""
    return DomainEvent(
        GAME_CREATED,
        {
            "ruleset": ruleset,
            "seats": [seat.to_json() for seat in seats],
            "options": dict(options),
            "seed": seed,
        },
    )


@dataclass(frozen=True)
class GameSnapshot:
    """A game's state folded from its log up to ``version``.

    Attributes:
        game_id / ruleset_name / ruleset: which game, played with which rules.
        seats / options / seed: as recorded in GameCreated.
        version: version of the last folded event.
        state: the ruleset's state (opaque to the engine).
        events: the folded log (kept for watchers and replay).
    """

    game_id: str
    ruleset_name: str
    ruleset: Ruleset[Any]
    seats: tuple[SeatSpec, ...]
    options: Mapping[str, Any]
    seed: str
    version: int
    state: Any
    events: tuple[StoredEvent, ...] = field(default=(), repr=False)

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
        """This snapshot with ``events`` (which must continue the log) folded in."""
        state = self.state
        version = self.version
        for event in events:
            if event.version != version + 1:
                raise CorruptLog(f"game {self.game_id}: version {event.version} after {version}")
            state = self.ruleset.evolve(state, self.ruleset.upcast(event.to_domain()))
            version = event.version
        return GameSnapshot(
            self.game_id,
            self.ruleset_name,
            self.ruleset,
            self.seats,
            self.options,
            self.seed,
            version,
            state,
            self.events + tuple(events),
        )


def fold(game_id: str, events: Sequence[StoredEvent], registry: RulesetRegistry) -> GameSnapshot:
    """Rebuild a game from its whole log.

    Raises GameNotFound for an empty log, CorruptLog if it does not start with
    GameCreated plus at least one ruleset event or has version gaps, UnknownRuleset if
    the recorded ruleset is not registered.
    """
    if not events:
        raise GameNotFound(game_id)
    first = events[0]
    if first.type != GAME_CREATED or first.version != 1:
        raise CorruptLog(f"game {game_id}: log starts with {first.type} v{first.version}")
    if len(events) < 2:
        raise CorruptLog(f"game {game_id}: no ruleset setup event")
    payload = first.payload
    ruleset_name = str(payload["ruleset"])
    ruleset = registry.get(ruleset_name)
    seats = tuple(SeatSpec.from_json(seat) for seat in payload["seats"])
    setup = events[1]
    if setup.version != 2:
        raise CorruptLog(f"game {game_id}: version {setup.version} after 1")
    start = GameSnapshot(
        game_id,
        ruleset_name,
        ruleset,
        seats,
        dict(payload.get("options", {})),
        str(payload["seed"]),
        2,
        ruleset.evolve(None, ruleset.upcast(setup.to_domain())),
        (first, setup),
    )
    return start.evolve(events[2:])
