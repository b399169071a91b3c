"""Seats of a game: who plays each, and the hash of the token that may act for it."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from services.engine.errors import InvalidArgument


class SeatKind(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"
    BOT = "bot"


def new_token() -> str:
    """A fresh seat token (256 random bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What the log keeps of a seat token: SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat.

    Attributes:
        kind: human or bot.
        name: display name ("" for a human seat still open for JoinGame).
        token_hash: SHA-256 hex of the token that may act for a human seat; "" for bots
            and for open seats.
    """

    kind: SeatKind
    name: str
    token_hash: str = ""

    @property
    def is_open(self) -> bool:
        """A human seat nobody has claimed yet."""
        return self.kind is SeatKind.HUMAN and not self.token_hash

    def accepts(self, token: str) -> bool:
        """True if ``token`` may act for this seat (constant-time compare)."""
        return bool(self.token_hash) and secrets.compare_digest(hash_token(token), self.token_hash)

    def to_json(self) -> dict[str, str]:
        """``{"kind": "human"|"bot", "name": ..., "token_hash": ...}``."""
        return {"kind": self.kind.value, "name": self.name, "token_hash": self.token_hash}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatSpec:
        """Inverse of :meth:`to_json`. Raises InvalidArgument."""
        try:
            return cls(SeatKind(data["kind"]), str(data["name"]), str(data.get("token_hash", "")))
        except (KeyError, ValueError) as exc:
            raise InvalidArgument(f"bad seat {dict(data)!r}") from exc
