"""``TeotihuacanRuleset``: the base game behind the generic :class:`Ruleset` contract."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from services.engine.domain.ruleset import (
    BotPolicy,
    DomainEvent,
    GameResult,
    InvalidOptions,
    JsonDict,
    RuleViolation,
    SetupRequest,
)
from services.games.teotihuacan import GAME

from . import action_words, describe, flow
from .evolve import evolve
from .options import GameOptions, explain_options_error
from .setup import set_up
from .solo.setup import set_up_solo
from .state import GameState, state_from_dict, state_to_dict
from .upcast import upcast


class TeotihuacanRuleset:
    """Teotihuacan: City of Gods, base game (RULES.md), for 2-4 seats."""

    name = "teotihuacan"
    declaration = GAME  # seats, solo mode (Teotibot) and capabilities, as data

    def setup(self, request: SetupRequest, rng: random.Random) -> list[DomainEvent]:
        """Opening events (RULES.md §1). Raises InvalidOptions for bad options or seat count."""
        try:
            options = GameOptions.model_validate(dict(request.options))
        except ValidationError as error:
            raise InvalidOptions(
                "game_options", f"RULES.md §7: {explain_options_error(error)}"
            ) from error
        if options.solo:  # RULES.md §8: seat 0 the human, seat 1 Teotibot
            return set_up_solo(request.seat_count, options, rng)
        return set_up(request.seat_count, options, rng)

    def evolve(self, state: GameState | None, event: DomainEvent) -> GameState:
        """Fold one event (see :mod:`.evolve`)."""
        return evolve(state, event)

    def upcast(self, event: DomainEvent) -> DomainEvent:
        """Bring an event of an older schema version to the current one (see
        :mod:`.upcast`; old logs' clear hidden values become plain sealed values)."""
        return upcast(event)

    def bot_policy(self) -> BotPolicy:
        """The bot for bot seats: Teotibot's turn in solo games, else greedy play."""
        from services.games.teotihuacan.bots import (
            TeotihuacanBot,  # imported on use: the engine never needs it
        )

        return TeotihuacanBot()

    def snapshot(self, state: GameState) -> JsonDict:
        """The whole state as JSON (optional snapshot method of the contract)."""
        return state_to_dict(state)

    def restore(self, data: JsonDict) -> GameState:
        """Inverse of :meth:`snapshot`."""
        return state_from_dict(data)

    def seats_to_act(self, state: GameState) -> tuple[int, ...]:
        """Seats of the pending decision (several while choosing starting tiles secretly)."""
        return flow.seats_to_act(state)

    def legal_actions(self, state: GameState, seat: int) -> Sequence[JsonDict]:
        """Every action ``seat`` may take now (RULES.md §2-6)."""
        return flow.legal_actions(state, seat)

    def decide(
        self, state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> list[DomainEvent]:
        """Events caused by the action. Raises RuleViolation naming the rule broken (§9)."""
        return self.apply(state, seat, action, rng)[0]

    def apply(
        self, state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> tuple[list[DomainEvent], GameState]:
        """``decide`` plus the state its events fold into, without folding them again."""
        # type() first: isinstance against the Mapping ABC is slow, and actions are dicts.
        if (type(action) is not dict and not isinstance(action, Mapping)) or "type" not in action:
            raise RuleViolation("malformed_action", "an action is a JSON object with a 'type'")
        return flow.apply(state, seat, action, rng)

    def is_terminal(self, state: GameState) -> bool:
        """True after the final eclipse (RULES.md §6.3)."""
        return state.phase == "ended"

    def result(self, state: GameState) -> GameResult | None:
        """Final VP and ranking (ties: cocoa, then turn order; RULES.md §6.3)."""
        if state.phase != "ended":
            return None
        return GameResult(scores=state.final_scores, ranking=state.ranking)

    def scores(self, state: GameState) -> tuple[int, ...]:
        """Current VP per seat."""
        return tuple(p.vp for p in state.players)

    def view(self, state: GameState, seat: int | None) -> JsonDict:
        """JSON projection for a seat or a watcher."""
        return describe.view(state, seat)

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """One line naming the action."""
        return describe.describe_action(action)

    def describe_action_at(self, state: GameState, seat: int, action: Mapping[str, Any]) -> str:
        """The action named with the boards and tiles it involves (the legal actions'
        descriptions a seat is sent: "Move worker 1 (power 2) from Forest to Alchemy")."""
        return action_words.describe_action_at(state, seat, action)

    def describe_event(self, event: DomainEvent) -> str:
        """One line telling what the event means."""
        return describe.describe_event(event)

    def is_milestone(self, event: DomainEvent) -> bool:
        """Eclipse triggers and scoring, and the game's end."""
        return describe.is_milestone(event)
