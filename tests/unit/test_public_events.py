"""``public_events.public_event`` builds exactly what ``DomainEvent(type, payload)`` builds."""

from __future__ import annotations

from dataclasses import fields

from services.engine.domain.records import canonical_json
from services.engine.domain.rules_support import public_events
from services.engine.domain.rules_support.public_events import public_event
from services.engine.domain.ruleset import DomainEvent


def test_public_event_equals_the_dataclass_built_one() -> None:
    payload = {"seat": 2, "delta": {"cocoa": -3}, "reason": "unlock"}
    fast, slow = public_event("GoodsChanged", payload), DomainEvent("GoodsChanged", payload)
    assert type(fast) is DomainEvent
    assert fast == slow
    for field in fields(DomainEvent):
        assert getattr(fast, field.name) == getattr(slow, field.name), field.name
    assert fast.payload is payload  # the payload is taken as given, like the dataclass does
    assert fast.sealed_ids() == () and fast.reveals == () and fast.schema_version == 1
    assert canonical_json(fast.payload) == canonical_json(slow.payload)


def test_each_public_event_gets_its_own_sealed_mapping() -> None:
    first, second = public_event("A", {}), public_event("B", {})
    assert first.sealed == {} and first.sealed is not second.sealed


def test_each_build_writes_the_slots_its_own_way() -> None:
    # The equality tests above run in both builds (.ci/run), so each way of writing the
    # slots is held to the dataclass in the build that takes it.
    compiled = str(public_events.__file__).endswith(".so")
    assert public_events._COMPILED is compiled
