"""A tiny Nim ruleset that exercises the generic infrastructure (not Teotihuacan).

Seats take 1..max_take stones in turn; whoever takes the last stone wins. The starting
pile is drawn from the setup rng and recorded in ``PileSet`` so folding never draws.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from services.engine.ruleset import (
    DomainEvent,
    GameResult,
    InvalidOptions,
    JsonDict,
    RuleViolation,
    SetupRequest,
)


@dataclass(frozen=True)
class NimState:
    seats: int
    pile: int
    max_take: int
    turn: int = 0
    taken: tuple[int, ...] = ()
    winner: int | None = None


class NimRuleset:
    name = "nim"

    def setup(self, request: SetupRequest, rng: random.Random) -> list[DomainEvent]:
        if not 2 <= request.seat_count <= 4:
            raise InvalidOptions("seats", "nim needs 2 to 4 seats")
        max_take = request.options.get("max_take", 3)
        if not isinstance(max_take, int) or max_take < 1:
            raise InvalidOptions("max_take", "max_take must be a positive integer")
        pile = rng.randint(10, 20)
        return [
            DomainEvent(
                "PileSet", {"seats": request.seat_count, "pile": pile, "max_take": max_take}
            )
        ]

    def evolve(self, state: NimState | None, event: DomainEvent) -> NimState:
        p = event.payload
        if event.type == "PileSet":
            return NimState(p["seats"], p["pile"], p["max_take"], taken=(0,) * p["seats"])
        assert state is not None
        if event.type == "StonesTaken":
            taken = list(state.taken)
            taken[p["seat"]] += p["count"]
            return replace(
                state,
                pile=state.pile - p["count"],
                taken=tuple(taken),
                turn=(p["seat"] + 1) % state.seats,
            )
        if event.type == "GameWon":
            return replace(state, winner=p["seat"])
        raise ValueError(f"unknown event {event.type}")

    def upcast(self, event: DomainEvent) -> DomainEvent:
        return event

    def seats_to_act(self, state: NimState) -> tuple[int, ...]:
        return () if state.winner is not None else (state.turn,)

    def legal_actions(self, state: NimState, seat: int) -> Sequence[JsonDict]:
        if seat not in self.seats_to_act(state):
            return []
        return [{"take": n} for n in range(1, min(state.max_take, state.pile) + 1)]

    def decide(
        self, state: NimState, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> list[DomainEvent]:
        count = action.get("take")
        if not isinstance(count, int) or not 1 <= count <= min(state.max_take, state.pile):
            raise RuleViolation(
                "nim.take_range", f"take 1..{min(state.max_take, state.pile)} stones"
            )
        events = [DomainEvent("StonesTaken", {"seat": seat, "count": count})]
        if count == state.pile:
            events.append(DomainEvent("GameWon", {"seat": seat}))
        return events

    def is_terminal(self, state: NimState) -> bool:
        return state.winner is not None

    def scores(self, state: NimState) -> tuple[int, ...]:
        return tuple(1 if s == state.winner else 0 for s in range(state.seats))

    def result(self, state: NimState) -> GameResult | None:
        if state.winner is None:
            return None
        others = tuple(s for s in range(state.seats) if s != state.winner)
        return GameResult(self.scores(state), (state.winner, *others))

    def view(self, state: NimState, seat: int | None) -> JsonDict:
        return {
            "pile": state.pile,
            "turn": state.turn,
            "taken": list(state.taken),
            "winner": state.winner,
            "max_take": state.max_take,
        }

    def describe_action(self, action: Mapping[str, Any]) -> str:
        return f"take {action.get('take')}"

    def describe_event(self, event: DomainEvent) -> str:
        if event.type == "PileSet":
            return f"pile of {event.payload['pile']} stones"
        if event.type == "StonesTaken":
            return f"seat {event.payload['seat']} takes {event.payload['count']}"
        return f"seat {event.payload['seat']} wins"

    def is_milestone(self, event: DomainEvent) -> bool:
        return event.type in {"PileSet", "GameWon"}

    # Optional snapshot methods (services.engine.ruleset.SnapshottingRuleset).
    def snapshot(self, state: NimState) -> JsonDict:
        return {**asdict(state), "taken": list(state.taken)}

    def restore(self, data: JsonDict) -> NimState:
        return NimState(**{**data, "taken": tuple(data["taken"])})

    def redact_event(self, event: DomainEvent, seat: int | None) -> DomainEvent:
        return event  # Nim has no hidden information
