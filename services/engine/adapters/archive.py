"""The archive format of a finished game's log: its stream entries and command ids, compressed.

When the retention policy (:mod:`services.engine.adapters.retention`) archives a finished game,
the store replaces the game's events stream, command ids, secret seed, snapshot and
(when the log alone rebuilds them) sealed secrets with one string key
``...:game:<id>:archive`` (see :mod:`services.engine.adapters.keys`) holding this blob. The
entries are kept exactly as the stream held them (entry id and every field, the payload
as its stored canonical JSON), so a read of the archive returns the very records, hashes
included, that a read of the stream returned: the chain, ``VerifyGame`` and ``teoti
replay --verify`` check an archived game like a live one.

Formats, told apart by their tag:

- ``z3:`` (written since issue 34): ``b"z3:" + zstd frame`` of the body of
  :mod:`services.engine.adapters.archive_compact`: payloads, metadata, the head and the
  command ids, without the per-event hashes (recomputed on read and checked against the
  head: a body that does not end at its head is refused, ArchiveMismatch). Raw bytes, no
  base64 (Redis strings are binary-safe; the store reads the key undecoded). The frame is
  compressed at level 19 with the dictionary of the game's ruleset when one is shipped
  (:mod:`services.engine.adapters.archive_dicts`); the frame header names the
  dictionary's id, so a blob keeps reading after newer dictionaries ship.
- ``z2:`` (written from issue 30 to 34): ``"z2:" + base64(zlib(level 9, JSON {"entries":
  [[entry_id, {field: value}], ...], "commands": {field: record}}))``. ``commands`` is the
  game's command-id hash as it stood (``<scope>|<id>`` -> ``"<first>-<last>:<sha256>"``,
  :mod:`services.engine.domain.commands`), so a command retried after archiving still gets its
  original reply (docs/operations.md, "Command ids").
- ``z1:``: ``"z1:" + base64(zlib(level 9, JSON [[entry_id, {field: value}], ...]))``,
  the entries alone (still read; its games' command ids were dropped when archived).

``z1`` and ``z2`` are base64 text, from when the store's client read the key decoded as
text. Measured, base64 included:
2.2x smaller than the stream's field bytes for a 21-event Nim log, 3.0x for 577 events of
the first game (``z1``). The command ids make a ``z2`` blob 17% to 32% (by game)
larger with random client ids. ``z3`` of a finished game of either shipped game is 4.4x
to 7.7x smaller than its ``z2`` (15.6 to 16.8 KB at 4 or 5 seats; figures per game in
docs/operations.md "Retention", from benchmarks/archive_benchmark.py).

The sealed secrets (values, nonces and entitled seats of every commitment) are not in
the blob: a finished game has opened every commitment in its log (``SecretsRevealed``,
RULES D7), so :func:`revealed_secrets` rebuilds them from the entries, exactly as the
``:sealed`` hash held them (the archive step checks that before deleting the hash).
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.engine.adapters import archive_dicts
from services.engine.adapters.archive_compact import Entry, decode_body, encode_body
from services.engine.domain.records import SecretValue
from services.engine.domain.ruleset import SEALED_KEY
from services.engine.domain.store_errors import ArchiveMismatch

COMPACT_TAG = b"z3:"
"""Tag of the format written now (payloads, metadata, head and command ids; zstd)."""
FORMAT_TAG = "z2:"
"""Tag of the second format (entries and command ids, zlib and base64), still read."""
LEVEL = 19
"""zstd level of a ``z3`` frame: archiving is a batch job, reading costs the same at any
level, and 19 is about 10% smaller than the default 3 on these logs."""
ENTRIES_ONLY_TAG = "z1:"
"""Tag of the first format (entries alone), still read."""
SECRETS_REVEALED = "SecretsRevealed"
"""The engine event opening commitments (services.engine.domain.engine_events; named here so the
store needs no engine module)."""


@dataclass(frozen=True)
class Archive:
    """What an archive blob holds."""

    entries: list[Entry]
    """The stream's entries, in log order."""
    commands: dict[str, str] = field(default_factory=dict)
    """The command-id hash (field -> stored record text); empty in a ``z1`` blob."""
    head: tuple[int, str] | None = None
    """The (version, hash) a ``z3`` blob recorded and its payloads were checked against
    (None for the older formats, which keep every hash)."""


__all__ = [
    "COMPACT_TAG",
    "FORMAT_TAG",
    "Archive",
    "ArchiveMismatch",
    "Entry",
    "decode_archive",
    "decode_entries",
    "encode_archive",
    "encode_checked",
    "encode_entries",
    "encode_z2",
    "revealed_secrets",
]


def _pack(tag: str, data: Any) -> str:
    raw = json.dumps(data, separators=(",", ":"))
    return tag + base64.b64encode(zlib.compress(raw.encode(), 9)).decode("ascii")


def encode_archive(entries: Sequence[Entry], commands: Mapping[str, str]) -> bytes:
    """The ``z3`` archive blob of ``entries`` (in log order) and the command ids,
    compressed with the dictionary of the log's ruleset if one is shipped.

    Raises ValueError for a log ``z3`` cannot hold exactly (see
    :func:`~services.engine.adapters.archive_compact.encode_body`); the caller then writes
    :func:`encode_z2`.
    """
    body = encode_body(entries, commands)
    compressor = archive_dicts.compressor(_ruleset_of(entries), LEVEL)
    return COMPACT_TAG + compressor.compress(body)


def encode_checked(entries: Sequence[Entry], commands: Mapping[str, str]) -> bytes | str:
    """The blob archiving writes, decoded back and compared before it is returned: ``z3``,
    or ``z2`` for a log ``z3`` cannot hold exactly (entries of another shape, a payload
    not stored as its canonical JSON), so no log is ever archived into something that
    reads back different. Raises ValueError if neither round-trips."""
    wanted = (list(entries), dict(commands))
    try:
        compact = encode_archive(entries, commands)
        decoded = decode_archive(compact)
        if (decoded.entries, decoded.commands) == wanted:
            return compact
    except ValueError:
        pass  # not a log z3 holds: z2 keeps every field as it is
    blob = encode_z2(entries, commands)
    decoded = decode_archive(blob)
    if (decoded.entries, decoded.commands) != wanted:
        raise ValueError("the archive blob does not round-trip")
    return blob


def _ruleset_of(entries: Sequence[Entry]) -> str:
    """The ruleset the log's first event (GameCreated) names, "" if none."""
    try:
        created: Any = json.loads(entries[0][1]["payload"])
        return str(created.get("ruleset", "")) if isinstance(created, dict) else ""
    except (IndexError, KeyError, ValueError):
        return ""


def encode_z2(entries: Sequence[Entry], commands: Mapping[str, str]) -> str:
    """The ``z2`` archive blob of ``entries`` (in log order) and the command ids."""
    return _pack(
        FORMAT_TAG,
        {
            "entries": [[entry_id, fields] for entry_id, fields in entries],
            "commands": dict(commands),
        },
    )


def encode_entries(entries: Sequence[Entry]) -> str:
    """The ``z1`` blob of ``entries`` alone (the first format; kept for tests of it)."""
    return _pack(ENTRIES_ONLY_TAG, [[entry_id, fields] for entry_id, fields in entries])


def decode_archive(blob: bytes | str) -> Archive:
    """What an archive blob (any format) holds.

    Raises ArchiveMismatch (a ValueError) for a ``z3`` blob whose payloads do not chain to
    its recorded head, ValueError for anything else that is not an archive blob.
    """
    raw_blob = blob if isinstance(blob, bytes) else blob.encode("latin-1", "replace")
    if raw_blob.startswith(COMPACT_TAG):
        body = archive_dicts.decompress(raw_blob[len(COMPACT_TAG) :])
        log = decode_body(body)
        return Archive(log.entries, log.commands, log.head)
    try:
        text = raw_blob.decode("ascii")
    except UnicodeDecodeError as exc:
        raise ValueError("not an archive blob (unknown format tag)") from exc
    return _decode_base64_blob(text)


def _decode_base64_blob(blob: str) -> Archive:
    tag = blob[: len(FORMAT_TAG)]
    if tag not in (FORMAT_TAG, ENTRIES_ONLY_TAG):
        raise ValueError("not an archive blob (unknown format tag)")
    try:
        raw: Any = json.loads(zlib.decompress(base64.b64decode(blob[len(tag) :])))
    except (zlib.error, ValueError) as exc:
        raise ValueError(f"archive blob is damaged: {exc}") from exc
    commands: Any = {}
    if tag == FORMAT_TAG:
        if not isinstance(raw, dict):
            raise ValueError("z2 archive blob holds no object")
        raw, commands = raw.get("entries"), raw.get("commands", {})
    if not isinstance(raw, list) or not isinstance(commands, dict):
        raise ValueError("archive blob holds no list of entries")
    entries = [
        (str(entry_id), {str(key): str(value) for key, value in fields.items()})
        for entry_id, fields in raw
    ]
    return Archive(entries, {str(k): str(v) for k, v in commands.items()})


def decode_entries(blob: bytes | str) -> list[Entry]:
    """The entries of an archive blob (any format). Raises ValueError if not one."""
    return decode_archive(blob).entries


def revealed_secrets(entries: Sequence[Entry]) -> dict[str, SecretValue]:
    """Every secret the log committed to and opened, as the ``:sealed`` hash keeps it.

    The entitled seats come from the committing event's ``sealed`` part, value and nonce
    from the ``SecretsRevealed`` event opening it; a secret committed but never opened is
    left out (a finished game has none). Raises ValueError for a payload that is not
    JSON or malformed parts.
    """
    seats: dict[str, tuple[int, ...]] = {}
    opened: dict[str, tuple[Any, str]] = {}
    for _entry_id, fields in entries:
        if SEALED_KEY not in fields["payload"] and fields["type"] != SECRETS_REVEALED:
            continue  # neither commits nor opens: skip the JSON parse
        try:
            payload = json.loads(fields["payload"])
            if fields["type"] == SECRETS_REVEALED:
                for secret in payload["secrets"]:
                    opened[str(secret["id"])] = (secret["value"], str(secret["nonce"]))
            parts = payload.get(SEALED_KEY)
            if isinstance(parts, dict):
                for secret_id, part in parts.items():
                    seats[str(secret_id)] = tuple(int(s) for s in part.get("seats", ()))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"entry {_entry_id}: {exc!r}") from exc
    return {
        secret_id: SecretValue(value, nonce, seats.get(secret_id, ()))
        for secret_id, (value, nonce) in opened.items()
        if secret_id in seats
    }
