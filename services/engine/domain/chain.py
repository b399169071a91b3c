"""The hash chain over a game's log: what each event's hash covers, and how to check it.

``hash(v) = SHA-256(hash(v-1) || canonical_json(content(v)))`` as lowercase hex, with
``hash(0) = GENESIS_HASH``. ``content(v)`` is ``{version, type, schema_version, payload,
metadata: {command_id, seat, recorded_at}}``; canonical JSON is sorted keys, no spaces,
UTF-8. Editing, removing or reordering any stored event changes some hash from that
version on, so :func:`verify_chain` names the first version that does not chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.engine.domain.records import EventMetadata, StoredEvent, canonical_json
from services.engine.domain.ruleset import DomainEvent

GENESIS_HASH = "0" * 64
"""The 'previous hash' of a game's first event."""


def event_content(
    version: int,
    type_: str,
    schema_version: int,
    payload: Mapping[str, Any],
    metadata: EventMetadata,
) -> dict[str, Any]:
    """The JSON object an event's hash covers."""
    return {
        "version": version,
        "type": type_,
        "schema_version": schema_version,
        "payload": payload,
        "metadata": {
            "command_id": metadata.command_id,
            "seat": metadata.seat,
            "recorded_at": metadata.recorded_at,
        },
    }


def chain_hash(previous: str, content: Mapping[str, Any]) -> str:
    """SHA-256 hex of ``previous`` (hex text) followed by the canonical JSON of ``content``."""
    return _digest(previous, canonical_json(content))


def _digest(previous: str, text: str) -> str:
    digest = hashlib.sha256(previous.encode("ascii"))
    digest.update(text.encode("utf-8"))
    return digest.hexdigest()


def _scalar(value: Any) -> str:
    """``canonical_json(value)`` for an envelope field: the encoder's own text for an
    exact str or int (what it writes for them inside an object), else the encoder."""
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is int:
        return int.__repr__(value)
    return canonical_json(value)


_encode_string: Callable[[str], str] = json.encoder.encode_basestring
"""The string encoder of a ``JSONEncoder(ensure_ascii=False)``, as canonical_json has."""


def content_text(
    version: int,
    type_: str,
    schema_version: int,
    payload_text: str,
    metadata: EventMetadata,
) -> str:
    """``canonical_json(event_content(...))`` for a payload whose canonical JSON is
    ``payload_text``, written out field by field (issue 16: the gateway checks the chain
    of every move the engine reports, the engine chains every event it appends, and
    sorting and encoding the envelope's two objects each time was most of a hash).

    The same bytes: canonical JSON of an object is its keys in sorted order (metadata,
    payload, schema_version, type, version; command_id, recorded_at, seat), each with
    its value's canonical JSON, and no spaces (tested against canonical_json)."""
    command_id, seat, recorded_at = metadata.command_id, metadata.seat, metadata.recorded_at
    if (
        type(version) is int
        and type(schema_version) is int
        and type(seat) is int
        and type(type_) is str
        and type(command_id) is str
        and type(recorded_at) is str
    ):
        # An exact int formats as the encoder writes it (its repr); strings go through
        # the encoder's own string function.
        return (
            f'{{"metadata":{{"command_id":{_encode_string(command_id)},'
            f'"recorded_at":{_encode_string(recorded_at)},"seat":{seat}}},'
            f'"payload":{payload_text},"schema_version":{schema_version},'
            f'"type":{_encode_string(type_)},"version":{version}}}'
        )
    return (
        '{"metadata":{"command_id":'
        + _scalar(command_id)
        + ',"recorded_at":'
        + _scalar(recorded_at)
        + ',"seat":'
        + _scalar(seat)
        + '},"payload":'
        + payload_text
        + ',"schema_version":'
        + _scalar(schema_version)
        + ',"type":'
        + _scalar(type_)
        + ',"version":'
        + _scalar(version)
        + "}"
    )


def next_hash(
    previous: str,
    version: int,
    type_: str,
    schema_version: int,
    payload_text: str,
    metadata: EventMetadata,
) -> str:
    """The hash of an event whose payload's canonical JSON is ``payload_text``, following
    an event hashed ``previous`` (what an archive rebuilds its dropped hashes with)."""
    return _digest(previous, content_text(version, type_, schema_version, payload_text, metadata))


def hash_of(previous: str, event: StoredEvent) -> str:
    """The hash ``event`` must carry if it follows an event hashed ``previous``."""
    return _digest(
        previous,
        content_text(
            event.version,
            event.type,
            event.schema_version,
            canonical_json(event.payload),
            event.metadata,
        ),
    )


def chained(
    expected_version: int,
    events: Sequence[DomainEvent],
    metadata: EventMetadata,
    prev_hash: str,
) -> list[tuple[str, StoredEvent]]:
    """Each of ``events`` as stored after ``prev_hash``: ``(canonical payload, record)``.

    The record's payload is the canonical text decoded again and it carries its chained
    hash, so it equals what reading the event back returns: folding it gives the same
    state as folding the stored log.
    """
    result = []
    previous = prev_hash
    for offset, event in enumerate(events):
        payload = canonical_json(dict(event.payload))
        version = expected_version + 1 + offset
        decoded = json.loads(payload)
        previous = _digest(
            previous,
            content_text(
                version, event.type, event.schema_version, canonical_json(decoded), metadata
            ),
        )
        record = StoredEvent(version, event.type, event.schema_version, decoded, metadata, previous)
        result.append((payload, record))
    return result


@dataclass(frozen=True, slots=True)
class ChainReport:
    """Outcome of :func:`verify_chain`.

    Attributes:
        ok: every event is present, in order, and hashes to what it carries.
        first_bad_version: first version that breaks the chain (0 if ok).
        reason: why it breaks ("" if ok).
        head_hash: hash of the last event that verified.
        checked: number of events that verified.
    """

    ok: bool
    first_bad_version: int
    reason: str
    head_hash: str
    checked: int


def verify_chain(
    events: Sequence[StoredEvent], expected_head: tuple[int, str] | None = None
) -> ChainReport:
    """Check that ``events`` are versions 1..N, each hashing onto the one before.

    ``expected_head`` (the ``(version, hash)`` the store recorded as the log's head, if
    known) also catches a log whose last events were removed. Never raises: it reports.
    """
    previous = GENESIS_HASH
    for index, event in enumerate(events):
        version = index + 1
        if event.version != version:
            return ChainReport(
                False,
                version,
                f"expected version {version}, found {event.version}",
                previous,
                index,
            )
        if hash_of(previous, event) != event.hash:
            return ChainReport(
                False,
                version,
                "hash does not match the content and previous hash",
                previous,
                index,
            )
        previous = event.hash
    if expected_head is not None:
        head_version, head_hash = expected_head
        if head_version > len(events):
            return ChainReport(
                False,
                len(events) + 1,
                f"events missing: the head is at {head_version}",
                previous,
                len(events),
            )
        if head_version != len(events) or head_hash != previous:
            return ChainReport(
                False,
                len(events),
                "the last event is not the recorded head",
                previous,
                len(events),
            )
    return ChainReport(True, 0, "", previous, len(events))
