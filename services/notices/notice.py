"""What a player's stream tells them: one notice, its kinds and its public shape.

A notice is a small public record addressed to one player: ``{v, kind, at_ms, data}``
plus the id its inbox gave it (a Redis stream id, ``"<ms>-<n>"``, increasing in each
inbox; a client resumes after the last id it saw). ``data`` is a JSON object whose
fields depend on ``kind`` (docs/players.md lists them); version ``v`` is 1 for every kind.
A notice never holds a credential, a seat token or anything hidden in a game.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

NOTICE_VERSION = 1
"""The schema version of every notice kind (docs/players.md)."""
MAX_DATA_BYTES = 4096
"""The largest ``data`` a notice carries (JSON text, UTF-8 bytes)."""


class NoticeKind(StrEnum):
    """The kinds of notice (docs/players.md gives each one's ``data``)."""

    YOUR_TURN = "your_turn"
    GAME_STARTED = "game_started"
    GAME_FINISHED = "game_finished"
    TABLE_FILLED = "table_filled"
    MATCH_FOUND = "match_found"
    TOURNAMENT_PAIRING = "tournament_pairing"
    REMATCH_OFFERED = "rematch_offered"
    TABLE_FAILED = "table_failed"


class NoticeInvalid(ValueError):
    """A notice the inbox refuses to post (a bug of the poster: data too large)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice.

    Attributes:
        kind: what happened (:class:`NoticeKind`).
        data: its details (a JSON object; at most MAX_DATA_BYTES as JSON text).
        at_ms: when it was posted (ms since the epoch).
        notice_id: the inbox's id for it ("" before it is posted).
        v: the schema version (NOTICE_VERSION).
    """

    kind: NoticeKind
    data: Mapping[str, Any]
    at_ms: int
    notice_id: str = ""
    v: int = NOTICE_VERSION

    def data_json(self) -> str:
        """``data`` as canonical JSON text. Raises NoticeInvalid past MAX_DATA_BYTES."""
        text = json.dumps(dict(self.data), sort_keys=True, separators=(",", ":"))
        if len(text.encode("utf-8")) > MAX_DATA_BYTES:
            raise NoticeInvalid(f"{self.kind} data is over {MAX_DATA_BYTES} bytes")
        return text

    def to_fields(self) -> dict[str, str]:
        """The notice as an inbox stream entry's fields."""
        return {
            "v": str(self.v),
            "kind": self.kind.value,
            "at_ms": str(self.at_ms),
            "data": self.data_json(),
        }

    @classmethod
    def from_fields(cls, notice_id: str, fields: Mapping[str, str]) -> Notice:
        """Inverse of :meth:`to_fields` for the entry ``notice_id``. Raises ValueError
        (or KeyError) for an entry that is not a notice of a kind this version knows."""
        return cls(
            kind=NoticeKind(fields["kind"]),
            data=json.loads(fields["data"]),
            at_ms=int(fields["at_ms"]),
            notice_id=notice_id,
            v=int(fields.get("v", NOTICE_VERSION)),
        )

    def to_json(self) -> dict[str, Any]:
        """The public JSON object of the notice (the web face's and client's shape)."""
        return {
            "id": self.notice_id,
            "v": self.v,
            "kind": self.kind.value,
            "at_ms": self.at_ms,
            "data": dict(self.data),
        }


def notice_id_key(notice_id: str) -> tuple[int, int]:
    """A notice id as a sortable pair (ms, sequence); "" and "0" sort first. Raises
    ValueError for text that is not a stream id."""
    if notice_id in ("", "0"):
        return (0, 0)
    ms, _, seq = notice_id.partition("-")
    return (int(ms), int(seq or 0))
