"""A finished (or running) game's log folded locally, one state per version.

``teoti replay GAME_ID --step`` walks it forwards and backwards without asking the server
again: the client holds the rules package, so it folds the events itself (as
``services.engine.domain.game.fold`` does) and projects each state with ``view(state, None)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from services.client import GameView, SeatInfo
from services.engine.domain.game import GameSnapshot, fold
from services.engine.domain.records import StoredEvent
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import RulesetRegistry


@dataclass(frozen=True, slots=True)
class Step:
    """The game right after event ``version``."""

    version: int
    view: GameView


class Timeline:
    """Every version of one game, from its log.

    Raises whatever ``fold`` raises (CorruptLog, UnknownRuleset) for a log that does not
    fold; versions 1-2 (creation and setup) are one step.
    """

    def __init__(self, game_id: str, events: Sequence[StoredEvent], registry: RulesetRegistry):
        self.game_id = game_id
        self.events = list(events)
        self.registry = registry
        first = fold(game_id, self.events[:2], registry)
        self._snapshots: list[GameSnapshot] = [first]
        snapshot = first
        for event in self.events[2:]:
            snapshot = snapshot.evolve([event])
            self._snapshots.append(snapshot)

    @property
    def ruleset_name(self) -> str:
        """Name of the game's ruleset."""
        return self._snapshots[0].ruleset_name

    def __len__(self) -> int:
        return len(self._snapshots)

    @property
    def first_version(self) -> int:
        """The earliest version shown (the set-up game)."""
        return self._snapshots[0].version

    @property
    def last_version(self) -> int:
        """The latest version in the log."""
        return self._snapshots[-1].version

    def step(self, version: int) -> Step:
        """The game right after ``version`` (clamped to the log)."""
        index = max(0, min(len(self._snapshots) - 1, version - self.first_version))
        snap = self._snapshots[index]
        return Step(snap.version, _view(snap))

    def event(self, version: int) -> StoredEvent | None:
        """The event recorded at ``version``."""
        return self.events[version - 1] if 1 <= version <= len(self.events) else None

    def next_milestone(
        self,
        version: int,
        forward: bool = True,
        is_milestone: Callable[[DomainEvent], bool] | None = None,
    ) -> int:
        """The version of the next (or previous) milestone: an event for which
        ``is_milestone`` (default: the ruleset's ``is_milestone``) is true."""
        check = is_milestone or self._snapshots[0].ruleset.is_milestone
        span = range(version + 1, self.last_version + 1) if forward else range(version - 1, 0, -1)
        for v in span:
            event = self.event(v)
            if event is not None and check(event.to_domain()):
                return v
        return self.last_version if forward else self.first_version


def _view(snap: GameSnapshot) -> GameView:
    ruleset: Any = snap.ruleset
    state = snap.state
    result = ruleset.result(state)
    return GameView(
        game_id=snap.game_id,
        ruleset=snap.ruleset_name,
        version=snap.version,
        state=dict(ruleset.view(state, None)),
        seats=tuple(SeatInfo(seat.kind.value, seat.name, seat.is_open) for seat in snap.seats),
        seats_to_act=tuple(ruleset.seats_to_act(state)),
        finished=bool(ruleset.is_terminal(state)),
        scores=tuple(ruleset.scores(state)),  # part of every ruleset's contract
        ranking=tuple(result.ranking) if result is not None else (),
        head_hash=snap.head_hash,
        seed_commitment=snap.seed_commitment,
        revealed_seed=snap.revealed_seed or "",
    )
