"""The ``z3`` archive body: a finished game's log without what can be recomputed.

The stream keeps, per event, its entry id, type, schema version, payload, command id, seat,
recorded time and chained hash, and the command-id hash keeps each command's key, version
range and request hash. Of these an audit needs the payloads, the metadata and the
command-id answers; the entry ids follow from the versions and every per-event hash
follows from the payloads and metadata (:mod:`services.engine.domain.chain`), so only the
head hash is kept, and :func:`decode_body` recomputes the chain and refuses a body whose
payloads do not end at that head.

The body (compressed by :mod:`services.engine.adapters.archive`) is
``u32 big-endian n`` + ``n`` bytes of JSON + a binary tail. The JSON::

    {"head": [version, hash],
     "types": [type, ...],                      # the distinct event types
     "events": [[type index, schema_version, payload text], ...],
     "groups": [[events, seat, id, at], ...],   # consecutive events of one command
     "commands": [[scope, first, span, digest], ...],
     "other_commands": {field: record}}

A group is a run of events sharing (command id, seat, recorded time): one command's
events. ``id`` is the command id, or null when it is 32 lowercase hex digits stored as 16
bytes in the tail. ``at`` is the recorded time: an int of microseconds since the group
before (since the Unix epoch for the first) when the ISO text is exactly what
``datetime.isoformat`` writes back, else the text itself. A command is stored as the
scope of its field (``seat:3``) and its range ``first``..``first + span``, its id being
the command id of event ``first`` (the command's own events carry it); ``digest`` is 1 when
it has a request hash (64 lowercase hex digits, stored as 32 bytes in the tail), 0 for a
record kept without one. Any command field not of that shape is kept verbatim in
``other_commands``. The tail holds the group ids in group order, then the digests in
command order.

Why this shape (benchmarks/archive_benchmark.py): per-event hashes are random hex, the
largest part of a ``z2`` blob, and random 32-hex command ids and request hashes do not
compress as text (4 bits per character at best), so the ids and digests kept go to the
tail as bytes and the hashes are not kept at all.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from services.engine.domain.chain import GENESIS_HASH, next_hash
from services.engine.domain.records import EventMetadata
from services.engine.domain.store_errors import ArchiveMismatch

Entry = tuple[str, dict[str, str]]
"""One stream entry: (entry id ``<version>-1``, its fields)."""

ENTRY_FIELDS = frozenset(
    ("type", "schema_version", "payload", "command_id", "seat", "recorded_at", "hash")
)
"""The fields of a stream entry this body rebuilds (an entry with others is not stored)."""
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class CompactLog:
    """What a ``z3`` body holds, rebuilt: the stream's entries (hashes recomputed and
    checked against the head) and the command-id hash."""

    entries: list[Entry]
    commands: dict[str, str]
    head: tuple[int, str]


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and set(text) <= _HEX


def _micros(text: str) -> int | None:
    """Microseconds since the epoch of an ISO time that ``isoformat`` writes back exactly."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None or moment.isoformat() != text or moment.utcoffset():
        return None
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _iso(micros: int) -> str:
    seconds, rest = divmod(micros, 1_000_000)
    return datetime.fromtimestamp(seconds, UTC).replace(microsecond=rest).isoformat()


def encode_body(entries: Sequence[Entry], commands: Mapping[str, str]) -> bytes:
    """The ``z3`` body of a log (its stream entries in order) and its command-id hash.

    Raises ValueError for a log this body cannot hold exactly: an entry id other than
    ``<version>-1`` for versions 1..N, fields other than :data:`ENTRY_FIELDS`, or no
    events (the caller then keeps an older format).
    """
    if not entries:
        raise ValueError("no events to archive")
    types: dict[str, int] = {}
    events: list[list[Any]] = []
    groups: list[list[Any]] = []
    ids: list[bytes] = []
    first_of_group: dict[int, str] = {}
    last_meta: tuple[str, str, str] | None = None
    last_micros = 0
    for index, (entry_id, fields) in enumerate(entries):
        if entry_id != f"{index + 1}-1" or set(fields) != ENTRY_FIELDS:
            raise ValueError(f"entry {entry_id} is not a plain event of version {index + 1}")
        type_index = types.setdefault(fields["type"], len(types))
        events.append([type_index, int(fields["schema_version"]), fields["payload"]])
        meta = (fields["command_id"], fields["seat"], fields["recorded_at"])
        if meta == last_meta:
            groups[-1][0] += 1
            continue
        last_meta = meta
        command_id, seat, recorded_at = meta
        first_of_group[index + 1] = command_id
        micros = _micros(recorded_at)
        at: int | str = recorded_at if micros is None else micros - last_micros
        last_micros = last_micros if micros is None else micros
        stored_id: str | None = command_id
        if _is_hex(command_id, 32):
            ids.append(bytes.fromhex(command_id))
            stored_id = None
        groups.append([1, int(seat), stored_id, at])
    command_rows, digests, others = _commands(commands, entries)
    document = {
        "head": [len(entries), entries[-1][1]["hash"]],
        "types": list(types),
        "events": events,
        "groups": groups,
        "commands": command_rows,
        "other_commands": others,
    }
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    return struct.pack(">I", len(text)) + text + b"".join(ids) + b"".join(digests)


_RECORD = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)(?::([0-9a-f]{64}))?")
"""A command record this body stores as a row: ``<first>-<last>[:<sha256 hex>]``."""


def _commands(
    commands: Mapping[str, str], entries: Sequence[Entry]
) -> tuple[list[list[int | str]], list[bytes], dict[str, str]]:
    """(rows, tail digests, fields kept verbatim) of the command-id hash; see the module."""
    parsed: list[tuple[int, int, str, str]] = []
    others: dict[str, str] = {}
    for field, record in commands.items():
        scope, bar, command_id = field.partition("|")
        match = _RECORD.fullmatch(record)
        first, last = (int(match[1]), int(match[2])) if match else (0, 0)
        if (
            match
            and bar
            and first <= last <= len(entries)
            and entries[first - 1][1]["command_id"] == command_id
        ):
            parsed.append((first, last, scope, match[3] or ""))
        else:
            others[field] = record
    rows: list[list[int | str]] = []
    digests: list[bytes] = []
    for first, last, scope, digest in sorted(parsed):
        rows.append([scope, first, last - first, 1 if digest else 0])
        if digest:
            digests.append(bytes.fromhex(digest))
    return rows, digests, others


def decode_body(body: bytes) -> CompactLog:
    """The log a ``z3`` body holds, every hash recomputed from the payloads and metadata.

    Raises ArchiveMismatch when the recomputed chain does not end at the stored head (a
    payload or its metadata changed), ValueError for a body that is not one.
    """
    try:
        (size,) = struct.unpack_from(">I", body)
        document: Any = json.loads(body[4 : 4 + size])
        tail = memoryview(body)[4 + size :]
        head_version, head_hash = int(document["head"][0]), str(document["head"][1])
        types = [str(t) for t in document["types"]]
        events = document["events"]
        groups = document["groups"]
        rows = document["commands"]
        others = {str(k): str(v) for k, v in document["other_commands"].items()}
    except (struct.error, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"z3 archive body is damaged: {exc!r}") from exc
    wanted = 16 * sum(1 for g in groups if g[2] is None) + 32 * sum(1 for r in rows if r[3] == 1)
    if len(tail) != wanted or len(events) != head_version:
        raise ValueError(
            f"z3 archive body is damaged: {len(events)} events for a head at {head_version}, "
            f"{len(tail)} tail bytes for {wanted}"
        )
    entries, offset = _entries(types, events, groups, tail)
    if entries[-1][1]["hash"] != head_hash:
        raise ArchiveMismatch(
            f"z3 archive does not verify: its payloads chain to "
            f"{entries[-1][1]['hash'][:16]}... at version {head_version}, "
            f"but its recorded head is {head_hash[:16]}... (tampered or damaged)"
        )
    commands = dict(others)
    for scope, first, span, digest in rows:
        text = f"{first}-{first + span}"
        if digest == 1:
            text += ":" + tail[offset : offset + 32].hex()
            offset += 32
        commands[f"{scope}|{entries[first - 1][1]['command_id']}"] = text
    return CompactLog(entries, commands, (head_version, head_hash))


def _entries(
    types: list[str], events: list[Any], groups: list[Any], tail: memoryview
) -> tuple[list[Entry], int]:
    """The stream entries (hashes recomputed) and the tail offset after the group ids."""
    entries: list[Entry] = []
    previous = GENESIS_HASH
    offset = 0
    micros = 0
    version = 0
    for count, seat, stored_id, at in groups:
        if stored_id is None:
            command_id = tail[offset : offset + 16].hex()
            offset += 16
        else:
            command_id = str(stored_id)
        if isinstance(at, int):
            micros += at
            recorded_at = _iso(micros)
        else:
            recorded_at = str(at)
        metadata = EventMetadata(command_id, int(seat), recorded_at)
        seat_text = str(seat)
        for _ in range(count):
            type_index, schema_version, payload = events[version]
            version += 1
            type_ = types[type_index]
            previous = next_hash(previous, version, type_, schema_version, payload, metadata)
            entries.append(
                (
                    f"{version}-1",
                    {
                        "type": type_,
                        "schema_version": str(schema_version),
                        "payload": payload,
                        "command_id": command_id,
                        "seat": seat_text,
                        "recorded_at": recorded_at,
                        "hash": previous,
                    },
                )
            )
    if version != len(events):
        raise ValueError(f"z3 archive body is damaged: groups cover {version} of {len(events)}")
    return entries, offset
