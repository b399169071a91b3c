"""The credential bot seats act under: only the bot worker holds it.

The gateway refuses every client command for a bot seat, and the engine checks this
credential on every command for one, so neither a client nor anything else that reaches
the engine's port can move a bot or pre-empt a bot's command id. A split deployment sets
the same secret in ``TEOTI_BOT_SECRET`` for the engine and the bot worker (a Kubernetes
Secret, docs/operations.md "Bot credential"); the bot worker sends it in the
``x-teoti-bot-key`` metadata of its EngineService calls. An engine started without it
makes up a random one, so only a bot worker in its own process (``teoti serve``) can play.

A split process (``teoti engine``, ``teoti bot``) refuses to start without the secret,
or with the public placeholder of deploy/k8s (:meth:`BotCredential.for_split_process`,
issue 30 item 5): it used to start with a warning, and no bot ever moved.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping

BOT_SECRET_ENV = "TEOTI_BOT_SECRET"
BOT_KEY_METADATA = "x-teoti-bot-key"
MIN_SECRET_CHARS = 16
PLACEHOLDER_MARK = "change-me"
"""Secrets starting with this are the public placeholders of deploy/k8s (e.g.
``change-me-dev-only-bot-credential``): anyone can read them, so no split process
accepts one."""


class BotSecretError(ValueError):
    """``TEOTI_BOT_SECRET`` is unset, too short or a public placeholder (the message
    says which and what to do; it never holds the secret)."""


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

    @classmethod
    def for_split_process(cls, environ: Mapping[str, str] | None = None) -> BotCredential:
        """The credential in ``TEOTI_BOT_SECRET`` for a process that runs the engine or
        the bot worker alone, which must share it with the other. Raises BotSecretError
        when it is unset, shorter than MIN_SECRET_CHARS or a placeholder."""
        value = (os.environ if environ is None else environ).get(BOT_SECRET_ENV, "")
        hint = (
            "set the same long random secret for the engine and the bot worker, e.g. "
            "`openssl rand -hex 32` (docs/operations.md, Bot credential)"
        )
        if not value:
            raise BotSecretError(f"{BOT_SECRET_ENV} is not set: {hint}")
        if value.startswith(PLACEHOLDER_MARK):
            raise BotSecretError(f"{BOT_SECRET_ENV} is the public placeholder: {hint}")
        if len(value) < MIN_SECRET_CHARS:
            raise BotSecretError(
                f"{BOT_SECRET_ENV} must be at least {MIN_SECRET_CHARS} characters: {hint}"
            )
        return cls(value)

    @property
    def secret(self) -> str:
        """The secret, for the bot worker's calls only."""
        return self._secret

    def accepts(self, key: str) -> bool:
        """True if ``key`` is this credential (constant-time compare)."""
        return bool(key) and secrets.compare_digest(key.encode(), self._secret.encode())
