"""The player credential of a call: ``authorization: Player <credential>``.

Seat tokens travel as ``authorization: Bearer <token>``; a player credential as
``authorization: Player <credential>`` (the scheme in any case, as RFC 7235 has it). gRPC
metadata and the web face's headers (services.web.context) read alike.
"""

from __future__ import annotations

from typing import Any

PLAYER_SCHEME = "player"


def player_credential(context: Any) -> str:
    """The call's ``authorization: Player`` credential ("" if none)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str):
            scheme, _, credential = value.strip().partition(" ")
            if scheme.lower() == PLAYER_SCHEME:
                return credential.strip()
    return ""
