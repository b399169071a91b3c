"""Seats of a game: who plays each, and the hash of the token that may act for it.

Token rule (``seat_token_strength``, docs/events.md): a server-made token carries 256
random bits; a client-chosen one must be MIN_TOKEN_LENGTH to MAX_TOKEN_LENGTH printable
ASCII characters without spaces (22 characters of the URL-safe base64 alphabet hold 132
bits, the size of ``secrets.token_urlsafe(16)``). The token's SHA-256 is kept only in
service-only storage (the game's ``tokens`` key), never in the event log.
"""

from __future__ import annotations

import hashlib
import re
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


PLAYER_ID_RULE = "player_id_invalid"
_PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class InvalidPlayerId(InvalidArgument):
    """A seat's player id that no player can have (INVALID_ARGUMENT, reason
    ``player_id_invalid``): 1 to 64 of ``A-Z a-z 0-9 _ -`` (services.players makes 20 hex
    digits)."""

    rule = PLAYER_ID_RULE


def check_player_id(player: str) -> str:
    """``player`` if a seat may name it ("" passes: a seat bound to nobody). Raises
    InvalidPlayerId."""
    if player and not _PLAYER_ID.fullmatch(player):
        raise InvalidPlayerId("a seat's player id is 1 to 64 characters of A-Z a-z 0-9 _ -")
    return player


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
        claimed: a human seat held by a token or a player (public; set whenever
            ``token_hash`` or ``player`` is).
        player: id of the player account sitting here (services.players; public, so an
            auditor recomputing ratings from public logs sees who sat where); "" for a
            seat bound to no player. A player's credential acts for the seat as its token
            does (the gateway checks it; the engine only ever sees the id).
    """

    kind: SeatKind
    name: str
    token_hash: str = ""
    claimed: bool = False
    player: str = ""

    def __post_init__(self) -> None:
        if (self.token_hash or self.player) and not self.claimed:
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

    def accepts_player(self, player: str) -> bool:
        """True if this seat is bound to the player ``player`` (a non-empty id)."""
        return bool(self.player) and bool(player) and secrets.compare_digest(player, self.player)

    def to_json(self) -> dict[str, Any]:
        """Public form (GameCreated v4): ``{"kind": "human"|"bot", "name", "open": bool,
        "player": id or ""}``."""
        return {
            "kind": self.kind.value,
            "name": self.name,
            "open": self.is_open,
            "player": self.player,
        }

    def private_json(self) -> dict[str, Any]:
        """:meth:`to_json` plus ``token_hash`` (stored snapshots, service-only)."""
        return {**self.to_json(), "token_hash": self.token_hash}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatSpec:
        """Inverse of :meth:`to_json` / :meth:`private_json`; also reads the token hash of
        a GameCreated v2 seat (legacy logs) and a seat without ``player`` (v3 and older:
        bound to nobody). Raises InvalidArgument."""
        try:
            kind = SeatKind(data["kind"])
            token_hash = str(data.get("token_hash", ""))
            player = str(data.get("player", "") or "")
            claimed = kind is SeatKind.HUMAN and (
                not data["open"] if "open" in data else bool(token_hash or player)
            )
            return cls(kind, str(data["name"]), token_hash, claimed, player)
        except (KeyError, ValueError) as exc:
            raise InvalidArgument(f"bad seat {dict(data)!r}") from exc
