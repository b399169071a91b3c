"""The archive format of a finished game's log: its stream entries, compressed.

When the retention policy (:mod:`services.engine.retention`) archives a finished game,
the store replaces the game's events stream (and its command ids, secret seed and
snapshot) with one string key ``...:game:<id>:archive`` (see
:mod:`services.engine.store.keys`) holding this blob. The entries are kept exactly as
the stream held them (entry id and every field, the payload as its stored canonical
JSON), so a read of the archive returns the very records, hashes included, that a read
of the stream returned: the chain, ``VerifyGame`` and ``teoti replay --verify`` check an
archived game like a live one.

Blob: ``"z1:" + base64(zlib(level 9, JSON [[entry_id, {field: value}], ...]))``. Base64
because the store's client decodes replies as text; the ``z1:`` tag names the format so
a later one can be told apart. Measured, base64 included: 2.2x smaller than the stream's
field bytes for a 21-event Nim log, 3.0x for 577 events of Teotihuacan.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from typing import Any

FORMAT_TAG = "z1:"

Entry = tuple[str, dict[str, str]]
"""One stream entry: (entry id ``<version>-1``, its fields)."""


def encode_entries(entries: Sequence[Entry]) -> str:
    """The archive blob of ``entries`` (in log order)."""
    raw = json.dumps([[entry_id, fields] for entry_id, fields in entries], separators=(",", ":"))
    return FORMAT_TAG + base64.b64encode(zlib.compress(raw.encode(), 9)).decode("ascii")


def decode_entries(blob: str) -> list[Entry]:
    """The entries of an archive blob. Raises ValueError if it is not one."""
    if not blob.startswith(FORMAT_TAG):
        raise ValueError("not an archive blob (unknown format tag)")
    try:
        raw: Any = json.loads(zlib.decompress(base64.b64decode(blob[len(FORMAT_TAG) :])))
    except (zlib.error, ValueError) as exc:
        raise ValueError(f"archive blob is damaged: {exc}") from exc
    if not isinstance(raw, list):
        raise ValueError("archive blob holds no list of entries")
    return [
        (str(entry_id), {str(key): str(value) for key, value in fields.items()})
        for entry_id, fields in raw
    ]
