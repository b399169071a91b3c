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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.engine.ruleset import DomainEvent
from services.engine.store.records import EventMetadata, StoredEvent, canonical_json

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
    digest = hashlib.sha256(previous.encode("ascii"))
    digest.update(canonical_json(content).encode("utf-8"))
    return digest.hexdigest()


def hash_of(previous: str, event: StoredEvent) -> str:
    """The hash ``event`` must carry if it follows an event hashed ``previous``."""
    return chain_hash(
        previous,
        event_content(
            event.version, event.type, event.schema_version, event.payload, event.metadata
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
        previous = chain_hash(
            previous, event_content(version, event.type, event.schema_version, decoded, metadata)
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
