"""The credential bot seats act under: only the bot worker holds it.

The gateway refuses every client command for a bot seat, and the engine checks this
credential on every command for one, so neither a client nor anything else that reaches
the engine's port can move a bot or pre-empt a bot's command id. A split deployment sets
the same secret in ``TEOTI_BOT_SECRET`` for the engine and the bot worker (a Kubernetes
Secret, docs/operations.md "Bot credential"); the bot worker sends it in the
``x-teoti-bot-key`` metadata of its EngineService calls. An engine started without it
makes up a random one, so only a bot worker in its own process can play.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping

BOT_SECRET_ENV = "TEOTI_BOT_SECRET"
BOT_KEY_METADATA = "x-teoti-bot-key"
MIN_SECRET_CHARS = 16


class BotCredential:
    """A shared secret (never logged, never stored in Redis or events).

    Raises ValueError for a secret shorter than MIN_SECRET_CHARS characters.
    """

    def __init__(self, secret: str) -> None:
        if len(secret) < MIN_SECRET_CHARS:
            raise ValueError(f"{BOT_SECRET_ENV} must be at least {MIN_SECRET_CHARS} characters")
        self._secret = secret

    def __repr__(self) -> str:
        return "BotCredential(***)"

    @classmethod
    def generate(cls) -> BotCredential:
        """A random credential (256 bits), for one process's engine and bot worker."""
        return cls(secrets.token_urlsafe(32))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> BotCredential | None:
        """The credential in ``TEOTI_BOT_SECRET``, or None if unset."""
        value = (os.environ if environ is None else environ).get(BOT_SECRET_ENV, "")
        return cls(value) if value else None

    @property
    def secret(self) -> str:
        """The secret, for the bot worker's calls only."""
        return self._secret

    def accepts(self, key: str) -> bool:
        """True if ``key`` is this credential (constant-time compare)."""
        return bool(key) and secrets.compare_digest(key.encode(), self._secret.encode())
