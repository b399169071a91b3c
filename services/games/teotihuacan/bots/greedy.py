"""A greedy one-ply policy for bot seats of multiplayer games.

For each candidate action (at most ``max_actions``, sampled when there are more) it asks
the ruleset for the state after the action (``ruleset.apply`` when available, else
``decide`` + ``evolve``) and scores the seat's position there: VP plus weighted cocoa,
resources, temple/Avenue/Pyramid track steps, technologies, masks and worker power. When
the state after waits on the same seat again with few choices (at most ``follow_up_cap``,
e.g. the board action after a move), it looks one decision further and takes the best
follow-up's score, so a move is valued by what can be done where it lands. The best
score wins; ties go to the first candidate. Lookahead draws come from a private rng
seeded from the request's rng, so the choice is reproducible for a redelivered request.
It reads the seat's own player record of the Teotihuacan state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.engine.domain.ruleset import JsonDict, Ruleset, RuleViolation, decide_and_fold
from services.games.teotihuacan.rules.state import GameState

DEFAULT_MAX_ACTIONS = 16
DEFAULT_FOLLOW_UP_CAP = 8
LOOKAHEAD_DEPTH = 2
WEIGHTS = {
    "vp": 1.0,
    "cocoa": 0.35,
    "resource": 0.8,
    "temple": 2.0,
    "avenue": 2.5,
    "pyramid": 1.5,
    "technology": 4.0,
    "mask": 3.0,
    "discovery": 1.5,
    "power": 0.6,
}


def position_value(state: GameState, seat: int) -> float:
    """Heuristic worth of ``seat``'s position in a Teotihuacan state."""
    player = state.players[seat]
    w = WEIGHTS
    value: float = (
        w["vp"] * player.vp
        + w["cocoa"] * min(player.cocoa, 12)
        + w["resource"] * (player.wood + player.stone + player.gold)
        + w["temple"] * sum(player.temples)
        + w["avenue"] * player.avenue
        + w["pyramid"] * player.pyramid
        + w["technology"] * len(player.technologies)
        + w["mask"] * len(player.masks)
        + w["discovery"] * (len(player.discoveries) + len(player.used_discoveries))
        + w["power"] * sum(worker.power for worker in player.workers_in_play())
    )
    return value


class GreedyPolicy:
    """One-ply lookahead on :func:`position_value` over at most ``max_actions`` actions."""

    name = "greedy"

    def __init__(
        self, max_actions: int = DEFAULT_MAX_ACTIONS, follow_up_cap: int = DEFAULT_FOLLOW_UP_CAP
    ) -> None:
        self.max_actions = max_actions
        self.follow_up_cap = follow_up_cap

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """See Policy.choose."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        candidates = list(legal_actions)
        if len(candidates) > self.max_actions:
            candidates = rng.sample(candidates, self.max_actions)
        lookahead = random.Random(rng.random())
        best, best_value = candidates[0], float("-inf")
        for action in candidates:
            value = self._value_of(ruleset, state, seat, action, lookahead, LOOKAHEAD_DEPTH)
            if value > best_value:
                best, best_value = action, value
        return best

    def _value_of(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        action: JsonDict,
        rng: random.Random,
        depth: int,
    ) -> float:
        try:
            after = _after(ruleset, state, seat, action, rng)
        except RuleViolation:
            return float("-inf")
        if depth <= 1 or ruleset.is_terminal(after) or ruleset.seats_to_act(after) != (seat,):
            return position_value(after, seat)
        follow_ups = list(ruleset.legal_actions(after, seat))
        if not follow_ups or len(follow_ups) > self.follow_up_cap:
            return position_value(after, seat)
        return max(self._value_of(ruleset, after, seat, nxt, rng, depth - 1) for nxt in follow_ups)


def _after(
    ruleset: Ruleset[Any], state: Any, seat: int, action: JsonDict, rng: random.Random
) -> Any:
    return decide_and_fold(ruleset, state, seat, action, rng)[1]
