"""Game options are validated strictly (RULES.md §7, §8; issue 13 item 7): a value of the
wrong JSON type is refused with a message naming the option and the type it expects; it is
never coerced (``"no"`` or ``1`` must not read as a boolean)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.engine.domain.ruleset import InvalidOptions, SetupRequest
from services.games.teotihuacan.rules.options import GameOptions, TeotibotOptions

from .builders import RULES

FLAGS = ("first_game", "draft_starting_tiles", "dark_eclipse", "advanced_worship", "solo")
KNOB_LIMITS = {  # RULES.md §8: "±1 power on up to 3 bot workers at start; ±1 of each
    # starting resource; VP per 10 cocoa ±1 or ±2; worship steps ±1; ... VP per technology ±1 or ±2"
    "power_gold_deposits": 1,
    "power_nobles": 1,
    "power_construction": 1,
    "resources": 1,
    "cocoa_vp": 2,
    "worship_steps": 1,
    "technology_vp": 2,
}

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)
json_values = st.one_of(
    json_scalars,
    st.lists(json_scalars, max_size=2),
    st.dictionaries(st.text(max_size=3), json_scalars, max_size=2),
)


def refusal(options: dict[str, Any]) -> InvalidOptions:
    """The refusal of setting up a 2-seat game with ``options``."""
    with pytest.raises(InvalidOptions) as refused:
        RULES.setup(SetupRequest(seat_count=2, options=options), random.Random(0))
    assert refused.value.rule == "game_options"
    return refused.value


@pytest.mark.parametrize("value", ["no", "false", 1, 0, 1.0, None, [], {}])
def test_a_flag_that_is_not_a_json_boolean_is_refused_naming_it(value: Any) -> None:
    message = refusal({"first_game": value}).message
    assert "'first_game'" in message and "boolean" in message and "RULES.md §7" in message


def test_the_issue_examples_no_longer_start_a_standard_game() -> None:
    assert 'not the string "no"' in refusal({"first_game": "no"}).message
    assert "not the number 1" in refusal({"first_game": 1}).message


@given(flag=st.sampled_from(FLAGS), value=json_values)
def test_flags_accept_exactly_the_json_booleans(flag: str, value: Any) -> None:
    if isinstance(value, bool):
        assert getattr(GameOptions.model_validate({flag: value}), flag) is value
    else:
        message = refusal({flag: value}).message
        assert f"option {flag!r} must be a boolean" in message


def test_every_knob_is_covered() -> None:
    assert set(TeotibotOptions.model_fields) == {*KNOB_LIMITS, "temple_bonus_vp"}


@given(knob=st.sampled_from(sorted(KNOB_LIMITS)), value=json_values)
def test_teotibot_knobs_accept_only_json_integers(knob: str, value: Any) -> None:
    options = {"solo": True, "teotibot": {knob: value}}
    limit = KNOB_LIMITS[knob]
    if isinstance(value, int) and not isinstance(value, bool) and -limit <= value <= limit:
        assert getattr(GameOptions.model_validate(options).teotibot, knob) == value
        return
    message = refusal(options).message
    assert f"option 'teotibot.{knob}'" in message
    if not isinstance(value, int) or isinstance(value, bool):
        assert "must be an integer" in message


def test_temple_bonus_knob_is_an_integer_step_of_five() -> None:
    # RULES.md §8: "temple bonus VP ±5 or ±10".
    for value in (-10, -5, 0, 5, 10):
        options = {"solo": True, "teotibot": {"temple_bonus_vp": value}}
        assert GameOptions.model_validate(options).teotibot.temple_bonus_vp == value
    for value in (True, "5", 5.0):
        message = refusal({"solo": True, "teotibot": {"temple_bonus_vp": value}}).message
        assert "'teotibot.temple_bonus_vp' must be an integer" in message
    for value in (7, 15, -15):
        message = refusal({"solo": True, "teotibot": {"temple_bonus_vp": value}}).message
        assert "'teotibot.temple_bonus_vp'" in message


def test_teotibot_must_be_an_object_and_unknown_options_are_named() -> None:
    assert "must be a JSON object, not the array" in refusal({"teotibot": [1]}).message
    message = refusal({"first_gmae": False}).message
    assert "unknown option 'first_gmae'" in message and "first_game" in message
    assert "unknown option 'teotibot.vp'" in refusal({"teotibot": {"vp": 1}}).message


def test_every_problem_is_reported_at_once() -> None:
    message = refusal({"first_game": "no", "solo": 1}).message
    assert "'first_game'" in message and "'solo'" in message


def test_stored_options_still_restore() -> None:
    # Snapshots and GameSetUp events hold model_dump() of the options: strict mode reads them.
    options = GameOptions.model_validate({"solo": True, "teotibot": {"cocoa_vp": -2}})
    assert GameOptions.model_validate(options.model_dump()) == options
