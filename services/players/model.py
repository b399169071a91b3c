"""Player records: the public profile and a credential's public description."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Player:
    """A player account (public: anyone may look it up).

    Attributes:
        player_id: opaque random id (20 hex digits), what a seat names.
        name: the display form, as first registered (trimmed).
        name_key: the name's identity (services.players.names.name_key).
        bot: a bot account (as Lichess's bot accounts: its moves are a program's).
        created_at: ISO 8601 UTC time of registration.
    """

    player_id: str
    name: str
    name_key: str
    bot: bool
    created_at: str


@dataclass(frozen=True, slots=True)
class CredentialInfo:
    """One of a player's credentials, never its secret.

    Attributes:
        credential_id: id within the player (12 hex digits), what revoke names.
        label: what the player called it ("phone", "bot"; may be "").
        created_at: ISO 8601 UTC time it was made.
    """

    credential_id: str
    label: str
    created_at: str
