"""Schema-shape guard, shown on a Teotihuacan log: a changed WorkerMoved payload without a
schema_version bump is caught (the guard itself: tests/unit/test_event_schemas.py)."""

from __future__ import annotations

from tests.event_schemas import check, keyed_payloads, load_registry
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log


def test_a_changed_payload_without_a_version_bump_is_caught() -> None:
    registered = load_registry()
    path = next(p for p in LOGS if p.name.startswith("first_game_4_bots"))
    events = load_log(path)
    ruleset = expected_of(path)["ruleset"]
    key, payload = next((k, p) for k, p in keyed_payloads(ruleset, events) if k[1] == "WorkerMoved")
    renamed = {("seat_index" if k == "seat" else k): v for k, v in payload.items()}
    retyped = {**payload, "seat": str(payload["seat"])}
    added = {**payload, "extra": 1}
    for changed in (renamed, retyped, added):
        problems = check([(key, changed)], registered)
        assert [p.key for p in problems] == [key]
    bumped = (key[0], key[1], key[2] + 1)
    assert "no schema registered" in check([(bumped, payload)], registered)[0].reason
    assert check([(key, payload)], registered) == []
