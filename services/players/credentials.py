"""Player credentials: the secret's form, its hash, and the check of a client-chosen one.

A credential is ``tpc_`` followed by URL-safe base64 text: server-made ones carry 256
random bits (``secrets.token_urlsafe(32)``, 43 characters). The prefix lets a gateway
tell a player credential from a seat token. Only the SHA-256 hex of the whole credential
is stored (enough for a random 256-bit secret: nothing to guess offline); the secret is
shown once, in the reply of the call that made it.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from services.players.errors import InvalidPlayer

PREFIX = "tpc_"
"""Every player credential starts so (and no seat token the server makes does)."""
MIN_SECRET_CHARS = 43
"""Characters after the prefix: 43 of the URL-safe alphabet hold 258 bits."""
MAX_CREDENTIAL_LENGTH = 256
STRENGTH_RULE = "player_credential_strength"
_CLIENT_CHOSEN = re.compile(
    rf"{PREFIX}[A-Za-z0-9_-]{{{MIN_SECRET_CHARS},{MAX_CREDENTIAL_LENGTH - len(PREFIX)}}}"
)


def new_credential() -> str:
    """A fresh player credential: PREFIX + 256 random bits as URL-safe text."""
    return PREFIX + secrets.token_urlsafe(32)


def credential_hash(credential: str) -> str:
    """What is stored of a credential: SHA-256 hex of its UTF-8 bytes."""
    return hashlib.sha256(credential.encode("utf-8")).hexdigest()


def is_player_credential(text: str) -> bool:
    """True if ``text`` has a player credential's prefix (it may still be unknown)."""
    return text.startswith(PREFIX)


def check_client_credential(credential: str) -> str:
    """``credential`` if a client may choose it: PREFIX then MIN_SECRET_CHARS or more of
    the URL-safe base64 alphabet (at most MAX_CREDENTIAL_LENGTH in all): as strong as a
    server-made one if drawn at random. Raises InvalidPlayer ``player_credential_strength``."""
    if not _CLIENT_CHOSEN.fullmatch(credential):
        raise InvalidPlayer(
            STRENGTH_RULE,
            f"a client-chosen player credential is {PREFIX!r} then {MIN_SECRET_CHARS} to "
            f"{MAX_CREDENTIAL_LENGTH - len(PREFIX)} URL-safe base64 characters "
            f"(256 random bits: {PREFIX!r} + secrets.token_urlsafe(32)); leave it empty to "
            "get one",
        )
    return credential
