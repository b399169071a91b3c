"""The bot worker's default plays Archaeology's own bot (any ruleset: tests/unit/bot/)."""

from __future__ import annotations

from services.bot.policy import RulesetPolicy
from services.games.archaeology.rules import ArchaeologyRuleset


def test_the_worker_default_plays_each_rulesets_own_bot() -> None:
    # Imported once the rules are: bots/policy.py imports the rules, whose ruleset.py
    # imports bots/policy.py back (importing the bot first fails on that cycle).
    from services.games.archaeology.bots.policy import ArchaeologyBot

    policy = RulesetPolicy()
    assert isinstance(policy.policy_for(ArchaeologyRuleset()), ArchaeologyBot)
