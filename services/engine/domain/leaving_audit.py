"""Re-check a game's resignations and claims from its public log (part of
:func:`~services.engine.domain.audit.audit_log`).

Each ``SeatResigned`` must be what ``leaving_plan.resignation_plan`` gives on the game
folded so far (the seat could resign; the outcome is the game's rule, or the platform
default; the handover event follows). Each ``SeatClaimedForBot`` must name, as
``idle_since_ms``, the ``recorded_at`` of the event before it, and be what
``leaving_plan.claim_plan`` gives at its own ``recorded_at`` with the absence it
records: the seat's clock had run out, or it was to act for that long with no event.
Both are recorded by no seat (metadata seat -1).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from services.engine.domain.errors import InvalidArgument, RuleViolation
from services.engine.domain.game import fold
from services.engine.domain.leaving import SEAT_CLAIMED_FOR_BOT, SEAT_RESIGNED
from services.engine.domain.leaving_plan import claim_plan, resignation_plan
from services.engine.domain.records import SYSTEM_SEAT, StoredEvent, canonical_json
from services.engine.domain.ruleset import DomainEvent, bot_policy_of
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.seat_clocks import epoch_ms


def _ms(event: StoredEvent) -> int:
    return epoch_ms(datetime.fromisoformat(event.metadata.recorded_at))


def _same(planned: Sequence[DomainEvent], logged: Sequence[StoredEvent]) -> bool:
    if len(logged) < len(planned):
        return False
    return all(
        p.type == e.type and canonical_json(dict(p.payload)) == canonical_json(dict(e.payload))
        for p, e in zip(planned, logged, strict=False)
    )


def check_leaving(
    game_id: str, events: Sequence[StoredEvent], registry: RulesetRegistry
) -> list[tuple[int, str]]:
    """(version, problem) for each resignation or claim the public log does not account
    for; empty for a game without any. The log must fold (see ``audit_log``)."""
    leaving = [i for i, e in enumerate(events) if e.type in (SEAT_RESIGNED, SEAT_CLAIMED_FOR_BOT)]
    if not leaving:
        return []
    problems: list[tuple[int, str]] = []
    snapshot = fold(game_id, events[:2], registry)
    index = 2
    for at in leaving:
        snapshot = snapshot.evolve(events[index:at])
        index = at
        event = events[at]
        payload = event.payload
        seat = int(payload.get("seat", -1))
        if event.metadata.seat != SYSTEM_SEAT:
            problems.append(
                (event.version, f"{event.type} recorded as seat {event.metadata.seat}'s")
            )
        try:
            if event.type == SEAT_RESIGNED:
                _, plan = resignation_plan(snapshot, seat, _ms(event))
            else:
                idle_since = int(payload["idle_since_ms"])
                if at > 0 and idle_since != _ms(events[at - 1]):
                    problems.append((event.version, "idle_since_ms is not the event before's time"))
                plan = claim_plan(
                    snapshot,
                    seat,
                    int(payload["claimed_by"]),
                    _ms(event),
                    idle_since,
                    int(payload["absence_ms"]),
                    bot_policy_of(snapshot.ruleset) is not None,
                )
        except (RuleViolation, InvalidArgument) as refused:
            problems.append((event.version, f"{event.type} of seat {seat} not allowed: {refused}"))
            continue
        if not _same(plan.before, events[at : at + len(plan.before)]):
            problems.append(
                (event.version, f"{event.type} of seat {seat} differs from what the rules give")
            )
    return problems
