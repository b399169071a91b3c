"""The hash chain names the first edited, removed or reordered event."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, cast

from hypothesis import given
from hypothesis import strategies as st

from services.engine.domain.chain import (
    GENESIS_HASH,
    chain_hash,
    chained,
    content_text,
    event_content,
    hash_of,
    verify_chain,
)
from services.engine.domain.records import EventMetadata, StoredEvent, canonical_json
from services.engine.domain.ruleset import DomainEvent

META = EventMetadata("cmd", 0, "2024-01-01T00:00:00+00:00")


def log(n: int) -> list[StoredEvent]:
    events: list[StoredEvent] = []
    previous = GENESIS_HASH
    for version in range(1, n + 1):
        event = StoredEvent(version, "Thing", 1, {"n": version, "é": "ü"}, META)
        previous = hash_of(previous, event)
        events.append(dataclasses.replace(event, hash=previous))
    return events


def test_hash_is_sha256_of_previous_and_canonical_content() -> None:
    first = log(1)[0]
    content = {
        "version": 1,
        "type": "Thing",
        "schema_version": 1,
        "payload": {"n": 1, "é": "ü"},
        "metadata": {"command_id": "cmd", "seat": 0, "recorded_at": META.recorded_at},
    }
    text = canonical_json(content)
    assert " " not in text and text.index('"metadata"') < text.index('"payload"')
    expected = hashlib.sha256(GENESIS_HASH.encode() + text.encode("utf-8")).hexdigest()
    assert first.hash == expected == chain_hash(GENESIS_HASH, content)


def test_intact_log_verifies() -> None:
    events = log(5)
    report = verify_chain(events, (5, events[-1].hash))
    assert report.ok and report.first_bad_version == 0 and report.checked == 5


def test_every_field_is_covered() -> None:
    changes = [
        {"type": "Other"},
        {"schema_version": 2},
        {"payload": {"n": 3, "é": "u"}},
        {"metadata": EventMetadata("cmd", 1, META.recorded_at)},
        {"metadata": EventMetadata("other", 0, META.recorded_at)},
        {"metadata": EventMetadata("cmd", 0, "2024-01-02T00:00:00+00:00")},
    ]
    for change in changes:
        events = log(5)
        events[2] = dataclasses.replace(events[2], **change)  # type: ignore[arg-type]
        report = verify_chain(events)
        assert not report.ok and report.first_bad_version == 3, change


def test_edit_with_a_recomputed_hash_breaks_the_next_link() -> None:
    events = log(5)
    forged = dataclasses.replace(events[2], payload={"n": 99})
    events[2] = dataclasses.replace(forged, hash=hash_of(events[1].hash, forged))
    assert verify_chain(events).first_bad_version == 4


def test_removed_and_reordered_events_are_named() -> None:
    events = log(5)
    assert verify_chain(events[:2] + events[3:]).first_bad_version == 3
    swapped = [events[0], events[2], events[1], *events[3:]]
    assert verify_chain(swapped).first_bad_version == 2
    renumbered = [dataclasses.replace(e, version=i + 1) for i, e in enumerate(swapped)]
    assert verify_chain(renumbered).first_bad_version == 2
    # Events missing at the end are only visible against the recorded head.
    assert verify_chain(events[:3]).ok
    assert verify_chain(events[:3], (5, events[-1].hash)).first_bad_version == 4


def test_canonical_json_is_json_dumps_with_its_options() -> None:
    values: list[object] = [
        {"b": 1, "a": [1.5, None, True], "é": "ü\u2028", "n": 10**30},
        {10: "x", 2: "y"},  # int keys sort as ints before they become strings
        [float("nan"), float("inf"), -0.0, 1e16],
        "plain",
    ]
    for value in values:
        assert canonical_json(value) == json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )


def test_chained_records_hash_as_a_read_back_log_does() -> None:
    events = [
        DomainEvent("Thing", {"n": 1, "é": "ü"}),
        # Int keys: the stored text sorts them as ints, the read-back payload as strings.
        DomainEvent("Keyed", cast(dict[str, Any], {10: "x", 2: "y"}), 2),
    ]
    records = chained(4, events, META, "a" * 64)
    previous = "a" * 64
    for (payload, record), event in zip(records, events, strict=True):
        assert payload == canonical_json(dict(event.payload))
        assert record.payload == json.loads(payload)
        assert record.hash == hash_of(previous, record)
        previous = record.hash
    assert [r.version for _, r in records] == [5, 6]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(
    version=st.integers(min_value=0),
    type_=st.text(),
    schema_version=st.integers(),
    payload=st.dictionaries(st.text(), _json_values, max_size=4),
    command_id=st.text(),
    seat=st.integers(),
    recorded_at=st.text(),
)
def test_content_text_is_the_canonical_json_of_the_content(
    version: int,
    type_: str,
    schema_version: int,
    payload: dict[str, Any],
    command_id: str,
    seat: int,
    recorded_at: str,
) -> None:
    # The envelope written out field by field must be the very bytes the hash covered
    # when it was the canonical JSON of a nested object (every stored hash depends on it).
    metadata = EventMetadata(command_id, seat, recorded_at)
    content = event_content(version, type_, schema_version, payload, metadata)
    text = content_text(version, type_, schema_version, canonical_json(payload), metadata)
    assert text == canonical_json(content)
    event = StoredEvent(version, type_, schema_version, payload, metadata)
    assert hash_of("b" * 64, event) == chain_hash("b" * 64, content)


def test_content_text_of_fields_that_are_not_plain_str_or_int() -> None:
    # A bool seat or a str subclass goes through the encoder as inside an object.
    class Text(str):
        pass

    metadata = EventMetadata(Text("c"), cast(int, True), "t")
    content = event_content(3, Text("T"), 1, {"k": [1]}, metadata)
    assert content_text(3, Text("T"), 1, '{"k":[1]}', metadata) == canonical_json(content)


_keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
_any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(_keys, inner, max_size=3)
    ),
    max_leaves=10,
)


@given(_any_json)
def test_canonical_json_is_json_dumps_whatever_the_value(value: Any) -> None:
    # canonical_json drives the C encoder itself (issue 35): it must stay byte for byte
    # what json.dumps gives, and fail where json.dumps fails, with the same error.
    def dumps() -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    try:
        expected: str | type[Exception] = dumps()
    except (TypeError, ValueError) as error:
        expected = type(error)
    try:
        actual: str | type[Exception] = canonical_json(value)
    except (TypeError, ValueError) as error:
        actual = type(error)
    assert actual == expected


def test_canonical_json_refuses_a_circular_value_as_json_dumps_does() -> None:
    looped: list[Any] = []
    looped.append(looped)
    for _ in range(2):  # and nothing of the first refusal is left for the next call
        try:
            canonical_json(looped)
        except ValueError as error:
            assert "Circular reference" in str(error)
        else:
            raise AssertionError("a circular value was encoded")
    assert canonical_json([1, [2]]) == "[1,[2]]"
