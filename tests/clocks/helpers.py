"""Shared pieces of the clock tests: a settable clock and a Nim with a bot of its own."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from services.bot.policy import RandomPolicy
from services.engine.domain.game_declaration import Capability
from services.engine.domain.ruleset import BotPolicy
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.seat_clocks import epoch_ms
from tests.nim import NIM, NimRuleset
from tests.plugin import registry_with_nim

START = datetime(2026, 1, 1, tzinfo=UTC)
START_MS = epoch_ms(START)


class FakeClock:
    """The engine's injected clock, moved by hand (no real waiting in these tests)."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, ms: int) -> None:
        """Move time forward by ``ms`` milliseconds."""
        self.now += timedelta(milliseconds=ms)

    def at(self, ms_after_start: int) -> None:
        """Set the time to ``ms_after_start`` ms after START."""
        self.now = START + timedelta(milliseconds=ms_after_start)


class BotNimRuleset(NimRuleset):
    """Nim with a bot of its own, so BOT_TAKEOVER is allowed."""

    name = "botnim"
    declaration = replace(
        NIM,
        name="botnim",
        ruleset="tests.clocks.helpers:BotNimRuleset",
        capabilities=NIM.capabilities | {Capability.BOT_POLICY},
    )

    def bot_policy(self) -> BotPolicy:
        return RandomPolicy()


def clock_registry() -> RulesetRegistry:
    """The default registry plus Nim (no bot) and botnim (a bot)."""
    registry = registry_with_nim()
    registry.register("botnim", BotNimRuleset)
    return registry
