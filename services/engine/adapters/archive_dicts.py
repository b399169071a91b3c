"""The zstd dictionaries of ``z3`` archives: each game ships its own.

A game's dictionaries are the files ``<id>.zdict`` in the package-data folder its
declaration names (``GameDeclaration.archive_dictionaries``, e.g. its folder's
``data/archive_dicts/``), trained by ``python -m benchmarks.archive_benchmark --train`` on
the bodies of games played by seeded random legal moves. ``<id>`` is the zstd dictionary
id, written in the dictionary and in every frame compressed with it, so a blob names the
dictionary it needs: a ruleset's newest dictionary (highest id) compresses new archives,
and every dictionary ever shipped stays, so older blobs keep reading. Ids are unique
across games (a new dictionary takes the highest id shipped plus one; two games shipping
one id is a packaging error, logged, and the first game by name keeps it). A ruleset
without a dictionary (or a log naming none) is compressed without one (frame dictionary
id 0).

Measured (benchmarks/archive_benchmark.py, docs/operations.md "Retention"): a
dictionary makes a finished game's blob 11% to 22% smaller for a 16 KiB file per ruleset.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
import zstandard

from services.engine.domain.game_declaration import GameDeclaration
from services.engine.domain.rulesets import installed_games

log = structlog.get_logger(__name__)

_NAME = re.compile(r"(?P<id>[1-9][0-9]*)\.zdict")
MAX_BODY = 64 * 1024 * 1024
"""Largest body a frame may claim to hold (bytes): a damaged size field is refused
instead of allocating it."""

_disabled = False
"""True once :func:`disable` ran: no dictionary is shipped (a benchmark's baseline)."""


def folder_of(game: GameDeclaration) -> Path | None:
    """Where ``game``'s dictionaries are on disk, or None if it declares no folder.
    Raises ModuleNotFoundError if the declared package is not installed."""
    if game.archive_dictionaries is None:
        return None
    package, _, inside = game.archive_dictionaries.partition(":")
    return Path(str(resources.files(package).joinpath(inside)))


def shipped_by(games: Iterable[GameDeclaration]) -> dict[int, tuple[str, Path]]:
    """Dictionary id -> (ruleset, file) of every dictionary ``games`` ship."""
    found: dict[int, tuple[str, Path]] = {}
    for game in sorted(games, key=lambda g: g.name):
        folder = folder_of(game)
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.iterdir(), key=lambda p: p.name):
            match = _NAME.fullmatch(path.name)
            if not match:
                continue
            dict_id = int(match["id"])
            if dict_id in found:
                log.error("archive_dictionary_id_shipped_twice", dict_id=dict_id, game=game.name)
                continue
            found[dict_id] = (game.name, path)
    return found


@cache
def shipped() -> dict[int, tuple[str, Path]]:
    """Dictionary id -> (ruleset, file) of every dictionary the installed games ship."""
    return {} if _disabled else shipped_by(installed_games())


def disable() -> None:
    """Ship no dictionary from now on in this process (``archive_benchmark --no-dict``
    measures without them; blobs it writes use dictionary id 0)."""
    global _disabled
    _disabled = True
    shipped.cache_clear()
    _dictionary_bytes.cache_clear()


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
