"""The audit re-checks resignations and claims from the public log alone (issue 32):
a log whose leaving events the rules do not give fails, even with its hash chain
recomputed (services.engine.domain.leaving_audit)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from services.engine.domain.audit import audit_log
from services.engine.domain.chain import GENESIS_HASH, hash_of
from services.engine.domain.records import StoredEvent
from tests.unit.test_fixture_logs import load_log, registry

NIM_LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "nim"


def rechained(events: list[StoredEvent]) -> list[StoredEvent]:
    """``events`` with every hash recomputed: only the rules can tell a forgery now."""
    out: list[StoredEvent] = []
    previous = GENESIS_HASH
    for event in events:
        chained = replace(event, hash="")
        chained = replace(chained, hash=hash_of(previous, chained))
        out.append(chained)
        previous = chained.hash
    return out


def forged(
    name: str, kind: str, change: Callable[[Mapping[str, Any]], dict[str, Any]]
) -> tuple[str, list[StoredEvent]]:
    events = load_log(NIM_LOGS / f"{name}.jsonl.gz")
    index = next(i for i, e in enumerate(events) if e.type == kind)
    events[index] = replace(events[index], payload=change(events[index].payload))
    return name, rechained(events)


def problems_of(name: str, events: list[StoredEvent]) -> tuple[str, ...]:
    game_id = f"fixture-{name}".replace("_", "-")
    return audit_log(game_id, events, registry()).problems


def test_the_untouched_logs_audit_clean() -> None:
    for name in ("nim_resign_2", "nim_leave_4"):
        events = rechained(load_log(NIM_LOGS / f"{name}.jsonl.gz"))
        assert problems_of(name, events) == ()


def test_a_resignation_with_another_outcome_is_caught() -> None:
    name, events = forged("nim_leave_4", "SeatResigned", lambda p: {**p, "outcome": "taken_over"})
    problems = problems_of(name, events)
    assert any("SeatResigned of seat 1 differs" in p for p in problems), problems


def test_a_claim_before_the_absence_ran_is_caught() -> None:
    name, events = forged(
        "nim_leave_4", "SeatClaimedForBot", lambda p: {**p, "absence_ms": 10 * 3_600_000}
    )
    problems = problems_of(name, events)
    assert any("not allowed" in p and "seat_not_absent" in p for p in problems), problems


def test_a_claim_with_a_made_up_idle_time_is_caught() -> None:
    name, events = forged("nim_leave_4", "SeatClaimedForBot", lambda p: {**p, "idle_since_ms": 0})
    problems = problems_of(name, events)
    assert any("idle_since_ms" in p for p in problems), problems
