"""``ArchaeologyRuleset``: Archaeology (The New Expedition) behind the generic contract."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.domain.ruleset import (
    BotPolicy,
    DomainEvent,
    GameResult,
    JsonDict,
    SetupRequest,
)
from services.games.archaeology import GAME

from . import decide as rules
from .components import Components, components
from .describe import MILESTONES, describe_action, describe_event
from .evolve import evolve
from .options import parse_options
from .setup import set_up
from .state import GameState, state_from_dict, state_to_dict
from .turn import result_of
from .view import view


class ArchaeologyRuleset:
    """Archaeology for 2-5 seats (RULES.md of shared/rules/archaeology).

    Args:
        comp: the components to play with (default: the package's data file). Passing
            other numbers is how tests show that every number comes from data (E1).
    """

    name = "archaeology"
    declaration = GAME  # title, seats (those of the data file) and capabilities, as data

    def __init__(self, comp: Components | None = None) -> None:
        self.comp = comp or components()

    def setup(self, request: SetupRequest, rng: random.Random) -> list[DomainEvent]:
        """The opening event (A2). Raises InvalidOptions for bad options or seat count."""
        options = parse_options(dict(request.options), request.seat_count, self.comp)
        return set_up(self.comp, request.seat_count, options, rng)

    def evolve(self, state: GameState | None, event: DomainEvent) -> GameState:
        """Fold one event (see :mod:`.evolve`)."""
        return evolve(self.comp, state, event)

    def upcast(self, event: DomainEvent) -> DomainEvent:
        """Every event type is at schema version 1: nothing to convert."""
        return event

    def seats_to_act(self, state: GameState) -> tuple[int, ...]:
        """The seat the game waits for."""
        return rules.seats_to_act(state)

    def legal_actions(self, state: GameState, seat: int) -> Sequence[JsonDict]:
        """Every action ``seat`` may take now (see :mod:`.decide` for their shapes)."""
        return rules.legal_actions(self.comp, state, seat)

    def decide(
        self, state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> list[DomainEvent]:
        """Events of ``seat`` taking ``action``. Raises RuleViolation naming the rule."""
        return rules.decide(self.comp, state, seat, action, rng).events

    def apply(
        self, state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> tuple[list[DomainEvent], GameState]:
        """``decide`` and the state after its events (folded once, while deciding)."""
        play = rules.decide(self.comp, state, seat, action, rng)
        return play.events, play.state

    def is_terminal(self, state: GameState) -> bool:
        """True once the expedition has ended (A4)."""
        return state.ended

    def result(self, state: GameState) -> GameResult | None:
        """Scores and ranking once ended (A4, E16), else None."""
        return result_of(state) if state.ended else None

    def scores(self, state: GameState) -> tuple[int, ...]:
        """Museum points so far per seat."""
        return tuple(s.points for s in state.seats)

    def view(self, state: GameState, seat: int | None) -> JsonDict:
        """What ``seat`` (None: a watcher) may see (A5)."""
        return view(self.comp, state, seat)

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """One line naming the action in the game's words."""
        return describe_action(action)

    def describe_event(self, event: DomainEvent) -> str:
        """One line telling what the event means."""
        return describe_event(event)

    def is_milestone(self, event: DomainEvent) -> bool:
        """The setup, compulsory selling and the end."""
        return event.type in MILESTONES

    def bot_policy(self) -> BotPolicy:
        """The heuristic bot for bot seats (``services.games.archaeology.bots.policy``)."""
        # Imported on use: the bot imports these rules, and the engine never needs it (a
        # top-level import made importing the bot first a circular import).
        from services.games.archaeology.bots.policy import ArchaeologyBot

        return ArchaeologyBot(self.comp)

    def snapshot(self, state: GameState) -> JsonDict:
        """The whole state as JSON (optional snapshot method)."""
        return state_to_dict(state)

    def restore(self, data: JsonDict) -> GameState:
        """Inverse of :meth:`snapshot`."""
        return state_from_dict(data)
