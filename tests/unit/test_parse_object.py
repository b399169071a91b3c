"""services.engine.transport.proto_convert.parse_object: the JSON object of a request field, or
INVALID_ARGUMENT naming the field; what it refuses is what no store or reply could
carry (issue 16 made its common case cheaper: these pin what it must still refuse)."""

from __future__ import annotations

import pytest

from services.engine.domain.errors import InvalidArgument
from services.engine.transport.proto_convert import parse_object


def test_an_object_is_parsed_and_blank_text_is_empty() -> None:
    assert parse_object('{"take": 2, "pile": [1, 2.5, null, true], "n": "é"}', "a") == {
        "take": 2,
        "pile": [1, 2.5, None, True],
        "n": "é",
    }
    assert parse_object("  ", "a") == {}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"x": "\\ud800"}', "not valid JSON"),  # an escaped lone surrogate
        ('{"x": "\ud800"}', "not valid JSON"),  # a raw one (a web frame can carry it)
        ('{"x": "é\\udfff"}', "not valid JSON"),
        ('{"x": ' + "9" * 5000 + "}", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"x": 1', "not valid JSON"),
        ('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ],
)
def test_what_no_store_could_carry_is_refused(text: str, says: str) -> None:
    with pytest.raises(InvalidArgument, match=says) as refused:
        parse_object(text, "action_json")
    assert "action_json" in str(refused.value)


def test_a_valid_surrogate_pair_is_one_character() -> None:
    assert parse_object('{"x": "\\ud83d\\ude00"}', "a") == {"x": "\U0001f600"}
