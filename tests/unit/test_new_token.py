"""Server-made tokens are safe to paste after a CLI flag and keep their entropy."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from services.engine.domain.game_seats import new_token


def test_a_token_drawn_with_a_leading_dash_is_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    draws: Iterator[str] = iter(["-Abc", "--x", "Zq-_9"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes: next(draws))
    assert new_token() == "Zq-_9"


def test_tokens_are_long_random_and_never_start_with_a_dash() -> None:
    tokens = {new_token() for _ in range(2_000)}
    assert len(tokens) == 2_000
    assert all(len(t) == 43 and not t.startswith("-") for t in tokens)
