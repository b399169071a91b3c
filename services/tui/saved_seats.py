"""The player's own seat tokens, kept so ``teoti play --resume GAME_ID`` can continue.

One JSON file (default ``.teoti/seats.json``) readable and writable by its owner only
(mode 0600): a seat token is the password of a seat. Shape::

    {"<game id>": {"seat": 0, "token": "...", "name": "Player",
                   "target": "127.0.0.1:50051" | "embedded", "data_dir": ".teoti/play"}}

``target`` is ``"embedded"`` for a game on ``teoti play``'s own server, whose Redis data
lives in ``data_dir``.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_SEATS_FILE = Path(".teoti/seats.json")
EMBEDDED = "embedded"
"""``target`` of a game played on ``teoti play``'s embedded server."""


@dataclass(frozen=True, slots=True)
class SavedSeat:
    """A seat the person holds in one game, and where that game lives."""

    game_id: str
    seat: int
    token: str
    name: str
    target: str
    data_dir: str = ""


def load(path: Path = DEFAULT_SEATS_FILE) -> dict[str, SavedSeat]:
    """Every saved seat by game id; an absent or unreadable file is empty."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    seats: dict[str, SavedSeat] = {}
    if isinstance(raw, dict):
        for game_id, entry in raw.items():
            with contextlib.suppress(TypeError, KeyError, ValueError):
                seats[game_id] = SavedSeat(
                    game_id,
                    int(entry["seat"]),
                    str(entry["token"]),
                    str(entry.get("name", "")),
                    str(entry["target"]),
                    str(entry.get("data_dir", "")),
                )
    return seats


def save(seat: SavedSeat, path: Path = DEFAULT_SEATS_FILE) -> None:
    """Add or replace ``seat``'s game in the file, written atomically with mode 0600."""
    seats = load(path)
    seats[seat.game_id] = seat
    body = {g: {k: v for k, v in asdict(s).items() if k != "game_id"} for g, s in seats.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    # Created 0600 from the start: the token is never readable by others, even briefly.
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(body, handle, indent=2, sort_keys=True)
    os.replace(partial, path)
    os.chmod(path, 0o600)
