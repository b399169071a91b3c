"""Injected sources of time, seeds and ids (so tests and replays are deterministic)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Returns the current time, timezone-aware."""

SeedSource = Callable[[], str]
"""Returns the seed of a new game (later: a commitment, revealed at the end)."""

IdSource = Callable[[], str]
"""Returns a fresh game id."""


def system_clock() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)


def random_seed() -> str:
    """128 random bits as hex."""
    return secrets.token_hex(16)


def random_game_id() -> str:
    """A random UUID as 32 hex digits."""
    return uuid.uuid4().hex


def fixed_seed(seed: str) -> SeedSource:
    """A seed source always returning ``seed`` (demo --seed, tests)."""
    return lambda: seed


def iso(moment: datetime) -> str:
    """ISO 8601 text of an aware datetime, in UTC."""
    return moment.astimezone(UTC).isoformat()
