"""Seats of a game: who plays each, and the hash of the token that may act for it.

Token rule (``seat_token_strength``, docs/events.md): a server-made token carries 256
random bits; a client-chosen one must be MIN_TOKEN_LENGTH to MAX_TOKEN_LENGTH printable
ASCII characters without spaces (22 characters of the URL-safe base64 alphabet hold 132
bits, the size of ``secrets.token_urlsafe(16)``). The token's SHA-256 is kept only in
service-only storage (the game's ``tokens`` key), never in the event log.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from services.engine.domain.errors import InvalidArgument


class SeatKind(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"
    BOT = "bot"


MIN_TOKEN_LENGTH = 22
MAX_TOKEN_LENGTH = 256
TOKEN_RULE = "seat_token_strength"


class WeakSeatToken(InvalidArgument):
    """A client-chosen seat token below the strength rule (INVALID_ARGUMENT, reason
    ``seat_token_strength``)."""

    rule = TOKEN_RULE


def check_client_token(token: str) -> str:
    """``token`` if a client may choose it (see the module's rule), else InvalidArgument
    naming ``seat_token_strength``."""
    if not MIN_TOKEN_LENGTH <= len(token) <= MAX_TOKEN_LENGTH or not all(
        "!" <= ch <= "~" for ch in token
    ):
        raise WeakSeatToken(
            f"a client-chosen seat token must be {MIN_TOKEN_LENGTH} to "
            f"{MAX_TOKEN_LENGTH} printable ASCII characters without spaces (at least 128 "
            "bits if random, e.g. secrets.token_urlsafe(16)); leave it empty to get one"
        )
    return token


MAX_NAME_LENGTH = 60
NAME_RULE = "name_invalid"


class InvalidName(InvalidArgument):
    """A seat name with control characters or over MAX_NAME_LENGTH (INVALID_ARGUMENT,
    reason ``name_invalid``)."""

    rule = NAME_RULE


def check_seat_name(name: str) -> str:
    """``name`` if a seat may be given it: at most MAX_NAME_LENGTH printable characters
    (``str.isprintable``: no C0/C1 controls such as ESC or NUL, no line or paragraph
    separators), so a name can never drive a terminal. "" passes (an open seat; JoinGame
    refuses a blank name itself). Raises InvalidName. Checked on CreateGame and JoinGame
    only: seat names already in old logs still load (printers escape them)."""
    if len(name) > MAX_NAME_LENGTH or not name.isprintable():
        raise InvalidName(
            f"a seat name is at most {MAX_NAME_LENGTH} printable characters (no control characters)"
        )
    return name


def new_token() -> str:
    """A fresh seat or organiser token (256 random bits, URL-safe text).

    Never starts with "-": users paste tokens after CLI flags (``--organiser-token T``),
    where argparse would take a leading dash for another option. Redrawing costs one
    sixty-fourth of the draws and well under a bit of entropy."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def hash_token(token: str) -> str:
    """What the log keeps of a seat token: SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat.

    Attributes:
        kind: human or bot.
        name: display name ("" for a human seat still open for JoinGame).
        token_hash: SHA-256 hex of the token that may act for a human seat; "" for bots,
            open seats, and seats folded without the service-only token bindings.
        claimed: a human seat held by a token (public; set whenever ``token_hash`` is).
    """

    kind: SeatKind
    name: str
    token_hash: str = ""
    claimed: bool = False

    def __post_init__(self) -> None:
        if self.token_hash and not self.claimed:
            object.__setattr__(self, "claimed", True)

    @property
    def is_open(self) -> bool:
        """A human seat nobody has claimed yet."""
        return self.kind is SeatKind.HUMAN and not self.claimed

    def accepts(self, token: str) -> bool:
        """True if ``token`` may act for this seat (constant-time compare)."""
        return bool(self.token_hash) and secrets.compare_digest(hash_token(token), self.token_hash)

    def accepts_hash(self, token_hash: str) -> bool:
        """:meth:`accepts` for a token already hashed (``hash_token(token)``): a caller
        that needs the digest anyway computes it once (the gateway's rate-limit key)."""
        return bool(self.token_hash) and secrets.compare_digest(token_hash, self.token_hash)

    def to_json(self) -> dict[str, Any]:
        """Public form (GameCreated v3): ``{"kind": "human"|"bot", "name", "open": bool}``."""
        return {"kind": self.kind.value, "name": self.name, "open": self.is_open}

    def private_json(self) -> dict[str, Any]:
        """:meth:`to_json` plus ``token_hash`` (stored snapshots, service-only)."""
        return {**self.to_json(), "token_hash": self.token_hash}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatSpec:
        """Inverse of :meth:`to_json` / :meth:`private_json`; also reads the token hash of
        a GameCreated v2 seat (legacy logs). Raises InvalidArgument."""
        try:
            kind = SeatKind(data["kind"])
            token_hash = str(data.get("token_hash", ""))
            claimed = kind is SeatKind.HUMAN and (
                not data["open"] if "open" in data else bool(token_hash)
            )
            return cls(kind, str(data["name"]), token_hash, claimed)
        except (KeyError, ValueError) as exc:
            raise InvalidArgument(f"bad seat {dict(data)!r}") from exc
