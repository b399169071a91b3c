"""A Teotihuacan command whose type is not text is refused as a rule (command ids and
malformed commands for any ruleset: tests/unit/test_command_ids.py)."""

from __future__ import annotations

import pytest

from services.engine.domain.errors import RuleViolation
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_seats import hash_token
from tests.unit.test_command_ids import make_engine


async def test_an_action_whose_type_is_not_text_is_a_rule_refusal() -> None:
    """Fuzz finding (issue 12): Teotihuacan answered INTERNAL to ``{"type": []}``."""
    from services.engine.domain.rulesets import default_registry

    engine = make_engine(default_registry())
    seats = [SeatSpec(SeatKind.HUMAN, n, hash_token(n)) for n in ("ann", "bob")]
    game = (await engine.create_game("teotihuacan", seats, {})).game_id
    to_act = (await engine.load(game)).seats_to_act()[0]
    for action in ({"type": []}, {"type": {"a": 1}}, {"type": None}, {}):
        with pytest.raises(RuleViolation) as info:
            await engine.submit_action(game, to_act, action)
        assert info.value.rule in {"malformed_action", "wrong_decision"}, action
