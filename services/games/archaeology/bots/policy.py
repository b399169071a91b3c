"""A heuristic Archaeology bot: collect sets, sell them whole, spend maps, dodge sandstorms.

It reads only what its seat may know (its hand, public piles, the sale tables) and picks
one of the legal actions it is given, so it can never cheat or act illegally:

- sell every kind it holds, whole, each turn (see SET_GOAL), best points first;
- explore whenever it can (maps are worth more in rooms than at the museum); at the mine,
  go on while the revealed value leaves room for the dearest card; at the sphinx, name
  the two kinds it holds most of (ties: the dearer); at the tomb, take the dearest;
- rob the seat with the most cards; shelter from a sandstorm losing two or more cards;
  lose the cards that matter least to its sets;
- never trade (a trade is value-neutral at best) and end its turn when nothing is left.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.engine.domain.ruleset import JsonDict
from services.games.archaeology.rules import cards as c
from services.games.archaeology.rules.components import Components, components
from services.games.archaeology.rules.state import GameState, MinePending, SandstormPending

LOW_DIG_SITE = 6
"""Cards left in the dig site below which the bot sells whatever it can."""
SET_GOAL = 1
"""Largest set the bot waits for. Measured against random seats (150 seeded games of 2-5
seats): waiting for sets of 2, 3 or 4 won 41-44% of games, selling at once 61%: with
thieves and sandstorms taking cards, a card in hand is worth less than a card sold."""
CROWDED_HAND = 7
"""A hand this big sells what it can: a sandstorm would take half of it."""


class ArchaeologyBot:
    """The heuristic policy (see the module docstring); deterministic given its rng."""

    name = "archaeology-heuristic"

    def __init__(self, comp: Components | None = None) -> None:
        self.comp = comp or components()

    def choose(
        self,
        ruleset: Any,
        state: GameState,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """One element of ``legal_actions`` (never empty) for ``seat``."""
        by_type: dict[str, list[JsonDict]] = {}
        for action in legal_actions:
            by_type.setdefault(str(action["type"]), []).append(action)
        for pick in (
            self._forced,
            self._sandstorm,
            self._mine,
            self._sell,
            self._explore,
            self._finish,
        ):
            chosen = pick(state, seat, by_type)
            if chosen is not None:
                return chosen
        return legal_actions[rng.randrange(len(legal_actions))]

    def _set_goal(self, kind: int) -> int:
        """Cards of a kind worth waiting for before selling (longer sets risk sandstorms
        and thieves)."""
        return min(len(self.comp.sale[kind]), SET_GOAL)

    def _worth(self, kind: int) -> float:
        """Points per card of the kind's best set: how much one card is worth keeping."""
        table = self.comp.sale[kind]
        return table[-1] / len(table)

    def _forced(
        self, state: GameState, seat: int, by_type: dict[str, list[JsonDict]]
    ) -> JsonDict | None:
        if "dig" in by_type:
            return by_type["dig"][0]
        if "rob" in by_type:
            return max(by_type["rob"], key=lambda a: c.size(state.seats[a["victim"]].hand))
        if "take" in by_type:  # the tomb: the dearest pair
            return max(
                by_type["take"],
                key=lambda a: sum(
                    self._worth(self.comp.kind_index(k)) * n for k, n in a["cards"].items()
                ),
            )
        if "no_peek" in by_type:
            return by_type["no_peek"][0]
        if "cancel_trade" in by_type:
            return by_type["cancel_trade"][0]
        return None

    def _sandstorm(
        self, state: GameState, seat: int, by_type: dict[str, list[JsonDict]]
    ) -> JsonDict | None:
        storm = state.pending
        if not isinstance(storm, SandstormPending):
            return None
        if "tent" in by_type:
            return {"type": "tent", "use": storm.losses[seat] >= 2}
        hand = state.seats[seat].hand
        # Lose the card whose kind is furthest from a set worth having.
        return min(
            by_type["lose"],
            key=lambda a: (
                self._worth(k := self.comp.kind_index(a["kind"]))
                * min(hand[k], len(self.comp.sale[k])),
                hand[k],
            ),
        )

    def _mine(
        self, state: GameState, seat: int, by_type: dict[str, list[JsonDict]]
    ) -> JsonDict | None:
        mine = state.pending
        if not isinstance(mine, MinePending):
            return None
        ruin = self.comp.ruins[state.options.ruin]
        limit = ruin.params.get("bust_over_trade_total", 5)
        go = c.value(mine.revealed, self.comp.trade) + max(self.comp.trade) <= limit
        return {"type": "mine", "go": go}

    def _sell(
        self, state: GameState, seat: int, by_type: dict[str, list[JsonDict]]
    ) -> JsonDict | None:
        sales = by_type.get("sell", [])
        if not sales:
            return None
        hand = state.seats[seat].hand
        late = state.compulsory or state.dig_site_size <= LOW_DIG_SITE

        def whole(action: JsonDict) -> bool:
            kind = self.comp.kind_index(action["kind"])
            return int(action["count"]) == min(hand[kind], len(self.comp.sale[kind]))

        big_hand = c.size(hand) >= CROWDED_HAND
        full = [
            a
            for a in sales
            if whole(a)
            and (late or big_hand or a["count"] >= self._set_goal(self.comp.kind_index(a["kind"])))
        ]
        if not full:
            return None
        return max(
            full,
            key=lambda a: (
                self.comp.sale[self.comp.kind_index(a["kind"])][a["count"] - 1],
                a["count"],
            ),
        )

    def _explore(
        self, state: GameState, seat: int, by_type: dict[str, list[JsonDict]]
    ) -> JsonDict | None:
        explores = by_type.get("explore", [])
        if not explores:
            return None
        hand = state.seats[seat].hand

        def appeal(action: JsonDict) -> tuple[float, ...]:
            named = action.get("named")
            if named:
                return tuple(
                    sorted(
                        (
                            hand[self.comp.kind_index(k)]
                            + self._worth(self.comp.kind_index(k)) / 10
                            for k in named
                        ),
                        reverse=True,
                    )
                )
            return (float(c.size(state.rooms[action["room"]])),)

        return max(explores, key=appeal)

    def _finish(
        self, state: GameState, seat: int, by_type: dict[str, list[JsonDict]]
    ) -> JsonDict | None:
        if "end_turn" in by_type:
            return by_type["end_turn"][0]
        sales = by_type.get("sell", [])
        if sales:  # compulsory selling: the best single sale
            hand = state.seats[seat].hand
            return max(
                sales,
                key=lambda a: (
                    a["count"] == hand[self.comp.kind_index(a["kind"])],
                    self.comp.sale[self.comp.kind_index(a["kind"])][a["count"] - 1],
                ),
            )
        return None
