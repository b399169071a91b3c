"""The zstd dictionaries of ``z3`` archives: one per ruleset, shipped with the package.

A dictionary is the file ``data/archive_dicts/<ruleset>-<id>.zdict`` beside this module,
trained by ``python -m benchmarks.archive_benchmark --train`` on the bodies of games
played by seeded random legal moves. ``<id>`` is the zstd dictionary id, written in the
dictionary and in every frame compressed with it, so a blob names the dictionary it
needs: a ruleset's newest dictionary (highest id) compresses new archives, and every
dictionary ever shipped stays, so older blobs keep reading. Ids are unique across
rulesets (a new dictionary takes the highest id shipped plus one). A ruleset without a
dictionary (or a log naming none) is compressed without one (frame dictionary id 0).

Measured (benchmarks/archive_benchmark.py, docs/operations.md "Retention"): a
dictionary makes a finished game's blob 11% to 22% smaller for a 16 KiB file per ruleset.
"""

from __future__ import annotations

import re
import threading
from functools import cache
from pathlib import Path
from typing import Any

import zstandard

FOLDER = Path(__file__).with_name("data") / "archive_dicts"
"""Where the shipped dictionaries are."""
_NAME = re.compile(r"(?P<ruleset>[a-z0-9_]+)-(?P<id>[1-9][0-9]*)\.zdict")
MAX_BODY = 64 * 1024 * 1024
"""Largest body a frame may claim to hold (bytes): a damaged size field is refused
instead of allocating it."""


@cache
def shipped() -> dict[int, tuple[str, Path]]:
    """Dictionary id -> (ruleset, file) of every shipped dictionary."""
    found: dict[int, tuple[str, Path]] = {}
    for path in sorted(FOLDER.glob("*.zdict")):
        match = _NAME.fullmatch(path.name)
        if match:
            found[int(match["id"])] = (match["ruleset"], path)
    return found


@cache
def _dictionary_bytes(dict_id: int) -> bytes:
    entry = shipped().get(dict_id)
    if entry is None:
        raise ValueError(f"archive needs zstd dictionary {dict_id}, which is not shipped")
    content = entry[1].read_bytes()
    found = zstandard.ZstdCompressionDict(content).dict_id()
    if found != dict_id:
        raise ValueError(f"{entry[1].name} holds dictionary {found}, not {dict_id}")
    return content


def dictionary(dict_id: int) -> zstandard.ZstdCompressionDict:
    """The shipped dictionary ``dict_id`` (a new object: each thread's compressors get
    their own). Raises ValueError if none is shipped, or if the file's own id is another
    (a renamed file)."""
    return zstandard.ZstdCompressionDict(_dictionary_bytes(dict_id))


def newest_for(ruleset: str) -> int:
    """The id of ``ruleset``'s newest dictionary; 0 if it has none."""
    ids = [dict_id for dict_id, (name, _) in shipped().items() if name == ruleset]
    return max(ids, default=0)


_PER_THREAD = threading.local()
"""Each thread's compressors and decompressors: zstandard's are not safe to share between
threads (a process may read games from more than one event loop thread)."""


def compressor(ruleset: str, level: int) -> zstandard.ZstdCompressor:
    """A level ``level`` compressor with ``ruleset``'s newest dictionary (if any), of this
    thread; its frames carry their content size and dictionary id."""
    made: dict[tuple[str, int], zstandard.ZstdCompressor] = _per_thread("compressors")
    if (ruleset, level) not in made:
        dict_id = newest_for(ruleset)
        data = dictionary(dict_id) if dict_id else None
        made[(ruleset, level)] = zstandard.ZstdCompressor(
            level=level, dict_data=data, write_content_size=True, write_dict_id=True
        )
    return made[(ruleset, level)]


def _decompressor(dict_id: int) -> zstandard.ZstdDecompressor:
    made: dict[int, zstandard.ZstdDecompressor] = _per_thread("decompressors")
    if dict_id not in made:
        made[dict_id] = zstandard.ZstdDecompressor(
            dict_data=dictionary(dict_id) if dict_id else None
        )
    return made[dict_id]


def _per_thread(name: str) -> Any:
    if not hasattr(_PER_THREAD, name):
        setattr(_PER_THREAD, name, {})
    return getattr(_PER_THREAD, name)


def decompress(frame: bytes) -> bytes:
    """The content of one zstd frame, with the dictionary its header names.

    Raises ValueError for data that is not one whole frame, names a dictionary not
    shipped, or claims more than MAX_BODY bytes.
    """
    try:
        params = zstandard.get_frame_parameters(frame)
        if params.content_size > MAX_BODY:  # unknown sizes are written by no encoder here
            raise ValueError(f"frame claims {params.content_size} bytes")
        return _decompressor(params.dict_id).decompress(frame)
    except zstandard.ZstdError as exc:
        raise ValueError(f"archive frame is damaged: {exc}") from exc
