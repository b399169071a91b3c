"""The working context of one decision: emit events, schedule tasks, draw randomness.

Every change goes through :meth:`Context.emit`, which records the event *and* folds it
with :func:`evolve`, so the events a decision returns rebuild exactly the state the
rules saw while deciding. Random outcomes come only from the ``rng`` passed in by the
caller and end up inside event payloads (RULES.md D7).
"""

from __future__ import annotations

import random
from typing import Any

from services.engine.domain.rules_support.public_events import public_event
from services.engine.domain.ruleset import DomainEvent

from .evolve import fold, fold_built
from .frozen import with_agenda
from .state import GameState
from .tasks import Task, task_to_dict


class Context:
    """Mutable scratchpad over an immutable state.

    Attributes:
        state: the state after every event emitted so far.
        agenda: pending tasks, last = next to resolve (the state's agenda is written back
            with one ``AgendaUpdated`` event when the decision is complete).
        events: events emitted so far, in order.
        rng: the only source of randomness.
    """

    def __init__(self, state: GameState, rng: random.Random) -> None:
        self.state = state
        self.agenda: list[Task] = list(state.agenda)
        self.events: list[DomainEvent] = []
        self.rng = rng

    def emit(self, event_type: str, **payload: Any) -> None:
        """Record one event and fold it into :attr:`state`."""
        event = public_event(event_type, payload)
        self.state = fold_built(self.state, event, event_type, payload)
        self.events.append(event)

    def record(self, event: DomainEvent) -> None:
        """Record one prepared event (e.g. with sealed parts) and fold it into :attr:`state`."""
        self.state = fold(self.state, event)
        self.events.append(event)

    def write_agenda(self) -> None:
        """Emit ``AgendaUpdated`` with the pending tasks (the end of a decision)."""
        tasks = tuple(self.agenda)
        self.events.append(
            public_event("AgendaUpdated", {"agenda": [task_to_dict(t) for t in tasks]})
        )
        # Folding AgendaUpdated parses its payload back into these very tasks: we hold
        # them already, so skip that round trip (the property test checks the fold agrees).
        self.state = with_agenda(self.state, tasks)

    def push(self, *tasks: Task) -> None:
        """Schedule tasks on top of the agenda; the first one given resolves first."""
        # A reversed copy of the tuple, not ``reversed(tasks)``: compiled, that looks the
        # builtin up and extends the list from an iterator (asking its length hint through
        # a method call), several times the cost of the push itself.
        self.agenda.extend(tasks[::-1])

    def change_goods(self, seat: int, reason: str, **delta: int) -> None:
        """Emit ``GoodsChanged`` for the non-zero entries of ``delta`` (cocoa, wood, ..., vp)."""
        changes = {good: amount for good, amount in delta.items() if amount}
        if changes:
            self.emit("GoodsChanged", seat=seat, delta=changes, reason=reason)
