"""The decision context: events emitted by one action, each folded at once.

Deciding an action may need the state after its first events (a sandstorm's losses are
computed after the card is dug; the game's end after the last sale), so every emitted
event is folded immediately and later rules read ``play.state``.
"""

from __future__ import annotations

import random
from typing import Any

from services.engine.domain.rules_support.public_events import public_event
from services.engine.domain.ruleset import DomainEvent, RuleViolation, Sealed

from .components import Components
from .evolve import evolve
from .state import GameState


class Play:
    """Events of one decision, folded as they are emitted.

    Attributes:
        comp: the components in use.
        state: the state after every event emitted so far.
        events: the events emitted so far.
        rng: the engine's rng for this action (random outcomes go into the events).
    """

    def __init__(self, comp: Components, state: GameState, rng: random.Random) -> None:
        self.comp = comp
        self.state = state
        self.rng = rng
        self.events: list[DomainEvent] = []

    def emit(self, event_type: str, **payload: Any) -> None:
        """Append the event ``event_type`` with the public ``payload`` and fold it."""
        self.emit_event(public_event(event_type, payload))

    def emit_sealed(
        self, event_type: str, prefix: str, value: Any, seats: tuple[int, ...], **payload: Any
    ) -> None:
        """Append the event ``event_type`` with the public ``payload`` and one hidden
        ``value`` only ``seats`` may see (the log holds a commitment to it, A5); its
        secret id is ``<prefix>:<number of secrets so far>``, unique in the game."""
        secret = f"{prefix}:{self.state.secrets}"
        self.emit_event(DomainEvent(event_type, payload, sealed={secret: Sealed(value, seats)}))

    def emit_event(self, event: DomainEvent) -> None:
        """Append ``event`` and fold it."""
        self.state = evolve(self.comp, self.state, event)
        self.events.append(event)

    def kind_name(self, kind: int) -> str:
        """The id of treasure kind ``kind``."""
        return self.comp.kinds[kind]


def refuse(rule: str, message: str) -> RuleViolation:
    """A refusal naming the broken rule of RULES.md (``message`` starts with its section)."""
    return RuleViolation(rule, message)
