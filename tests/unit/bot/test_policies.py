"""The bot worker's default policy: a ruleset's own bot, else random play. (Each game's
own bots and that the default picks them: services/games/<name>/tests/.)"""

from __future__ import annotations

from dataclasses import replace

from services.bot.policy import RandomPolicy, RulesetPolicy
from tests.nim import NIM


def test_the_worker_default_plays_each_rulesets_own_bot() -> None:
    policy = RulesetPolicy()

    class Plain:  # a ruleset without a bot of its own (e.g. the test Nim)
        name = "plain"
        declaration = replace(NIM, name="plain")  # declares no bot of its own

    assert isinstance(policy.policy_for(Plain()), RandomPolicy)  # type: ignore[arg-type]
