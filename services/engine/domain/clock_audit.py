"""Recompute a clocked game's clocks from its public log (part of :func:`audit_log`).

Every ``ClocksUpdated`` must be exactly what the clock rules
(:mod:`services.engine.domain.timing.seat_clocks`) give from the log before it: the clocks and
seats to act folded so far, the append's ``recorded_at``, the seat whose command it was
(its metadata ``seat``; -1: none), and the seats that reclaimed or timed out in the same
append. Every ``SeatTimedOut`` must name the seat's recorded deadline, and be recorded
at or after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from services.engine.domain.game import fold
from services.engine.domain.game_seats import SeatKind
from services.engine.domain.records import StoredEvent, canonical_json
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.seat_clocks import (
    CLOCK_STARTED,
    CLOCKS_UPDATED,
    SEAT_RECLAIMED,
    SEAT_TIMED_OUT,
    epoch_ms,
)


def check_clocks(
    game_id: str, events: Sequence[StoredEvent], registry: RulesetRegistry
) -> list[tuple[int, str]]:
    """(version, problem) for each clock event the public log does not account for;
    empty for a game without clocks. The log must fold (see ``audit_log``)."""
    if not any(e.type == CLOCK_STARTED for e in events):
        return []
    problems: list[tuple[int, str]] = []
    snapshot = fold(game_id, events[:2], registry)
    reclaimed: set[int] = set()
    timed_out: set[int] = set()
    for event in events[2:]:
        clock = snapshot.clock
        at_ms = epoch_ms(datetime.fromisoformat(event.metadata.recorded_at))
        if event.type == SEAT_TIMED_OUT and clock is not None:
            seat = int(event.payload["seat"])
            timed_out.add(seat)
            deadline = clock.clocks[seat].deadline_ms
            if deadline != event.payload["deadline_ms"] or deadline is None or at_ms < deadline:
                problems.append((event.version, f"seat {seat} timed out before its deadline"))
        elif event.type == SEAT_RECLAIMED:
            reclaimed.add(int(event.payload["seat"]))
        elif event.type == CLOCKS_UPDATED and clock is not None:
            taken = clock.bot_controlled()
            human = [
                s.kind is SeatKind.HUMAN and i not in taken for i, s in enumerate(snapshot.seats)
            ]
            actor = event.metadata.seat if event.metadata.seat >= 0 else None
            expected = clock.updated(
                at_ms,
                () if snapshot.is_terminal() else snapshot.seats_to_act(),
                human,
                actor,
                reclaimed=actor in reclaimed,
                timed_out=frozenset(timed_out),
            )
            if canonical_json(expected.payload) != canonical_json(dict(event.payload)):
                problems.append(
                    (event.version, "ClocksUpdated differs from the clocks the log gives")
                )
            reclaimed.clear()
            timed_out.clear()
        snapshot = snapshot.evolve([event])
    return problems
