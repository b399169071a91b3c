"""A tiny Nim ruleset that exercises the generic infrastructure (no shipped game).

Seats take 1..max_take stones in turn; whoever takes the last stone wins. The starting
pile is drawn from the setup rng and recorded in ``PileSet`` so folding never draws.

With option ``"lucky": true`` it also has hidden information, to test the generic
commitments: ``PileSet`` deals each seat a secret lucky number 1..3 (sealed
``lucky:<seat>``, seen by that seat), and the ``StonesTaken`` that brings the pile to
REVEAL_AT or below reveals them all (the engine reveals any left at the end).

Events (test ruleset, docs/events.md): ``PileSet`` v2 ``{seats, pile, max_take}`` (+
the engine's ``sealed`` commitments to ``lucky:<seat>`` with ``lucky``; v1 never had
them, upcast unchanged), ``StonesTaken`` v2 ``{seat, count, reveals_lucky?}`` (v1 never
had ``reveals_lucky``, upcast unchanged), ``GameWon`` v1 ``{seat}``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from services.engine.domain.game_declaration import Capability, GameDeclaration
from services.engine.domain.ruleset import (
    DomainEvent,
    GameResult,
    InvalidOptions,
    JsonDict,
    RuleViolation,
    Sealed,
    SetupRequest,
)

NIM = GameDeclaration(
    name="nim",
    title="Nim (test ruleset)",
    ruleset="tests.nim:NimRuleset",
    min_seats=2,
    max_seats=4,
    capabilities=frozenset({Capability.SNAPSHOTS}),  # no apply, no bot of its own
)


@dataclass(frozen=True)
class NimState:
    seats: int
    pile: int
    max_take: int
    turn: int = 0
    taken: tuple[int, ...] = ()
    winner: int | None = None
    lucky: tuple[int | None, ...] = ()
    lucky_revealed: bool = False


REVEAL_AT = 5


def lucky_id(seat: int) -> str:
    """Secret id of ``seat``'s lucky number."""
    return f"lucky:{seat}"


class NimRuleset:
    name = "nim"
    declaration = NIM

    def setup(self, request: SetupRequest, rng: random.Random) -> list[DomainEvent]:
        if not 2 <= request.seat_count <= 4:
            raise InvalidOptions("seats", "nim needs 2 to 4 seats")
        max_take = request.options.get("max_take", 3)
        if not isinstance(max_take, int) or max_take < 1:
            raise InvalidOptions("max_take", "max_take must be a positive integer")
        pile = rng.randint(10, 20)
        sealed = (
            {lucky_id(s): Sealed(rng.randint(1, 3), (s,)) for s in range(request.seat_count)}
            if request.options.get("lucky")
            else {}
        )
        return [
            DomainEvent(
                "PileSet",
                {"seats": request.seat_count, "pile": pile, "max_take": max_take},
                2,
                sealed,
            )
        ]

    def evolve(self, state: NimState | None, event: DomainEvent) -> NimState:
        p = event.payload
        if event.type == "PileSet":
            lucky = tuple(
                event.sealed[lucky_id(s)].value if lucky_id(s) in event.sealed else None
                for s in range(p["seats"])
            )
            return NimState(
                p["seats"],
                p["pile"],
                p["max_take"],
                taken=(0,) * p["seats"],
                lucky=lucky if event.sealed_ids() else (),
            )
        assert state is not None
        if event.type == "StonesTaken":
            taken = list(state.taken)
            taken[p["seat"]] += p["count"]
            return replace(
                state,
                pile=state.pile - p["count"],
                taken=tuple(taken),
                turn=(p["seat"] + 1) % state.seats,
                lucky_revealed=state.lucky_revealed or bool(p.get("reveals_lucky")),
            )
        if event.type == "GameWon":
            return replace(state, winner=p["seat"])
        raise ValueError(f"unknown event {event.type}")

    def upcast(self, event: DomainEvent) -> DomainEvent:
        if event.type in ("PileSet", "StonesTaken") and event.schema_version == 1:
            return DomainEvent(event.type, event.payload, 2)  # v2 only added optional keys
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
        reveal = bool(state.lucky) and not state.lucky_revealed and state.pile - count <= REVEAL_AT
        payload: JsonDict = {"seat": seat, "count": count}
        if reveal:
            payload["reveals_lucky"] = True
        events = [
            DomainEvent(
                "StonesTaken",
                payload,
                2,
                reveals=tuple(lucky_id(s) for s in range(state.seats)) if reveal else (),
            )
        ]
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
            **(
                {"your_lucky": state.lucky[seat]}
                if seat is not None and state.lucky and 0 <= seat < state.seats
                else {}
            ),
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

    # Optional snapshot methods (services.engine.domain.ruleset.SnapshottingRuleset).
    def snapshot(self, state: NimState) -> JsonDict:
        return {**asdict(state), "taken": list(state.taken), "lucky": list(state.lucky)}

    def restore(self, data: JsonDict) -> NimState:
        return NimState(**{**data, "taken": tuple(data["taken"]), "lucky": tuple(data["lucky"])})
