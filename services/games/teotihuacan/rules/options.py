"""Game options of Teotihuacan (RULES.md §7, §8) as a validated, frozen model.

Validation is strict (issue 13, item 7): a value of the wrong JSON type is refused, never
coerced (``{"first_game": "no"}`` or ``{"first_game": 1}`` would otherwise read as a
boolean), and an unknown option is refused as well.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class TeotibotOptions(BaseModel):
    """Teotibot's difficulty knobs (RULES.md §8, last paragraph); every default is the book.

    Attributes:
        power_gold_deposits, power_nobles, power_construction: power change (-1..+1) of
            the bot's unlocked starting worker on that board ("±1 power on up to 3 bot
            workers").
        resources: change (-1..+1) of each of its starting wood, stone and gold.
        cocoa_vp: change (-2..+2) of the VP it scores per 10 cocoa (3 by the book).
        worship_steps: change (-1..+1) of the temple steps of its Worship tile.
        temple_bonus_vp: change (±5, ±10) of the VP per temple bonus it qualifies for (15).
        technology_vp: change (-2..+2) of its final VP per technology (2).
    Raises pydantic.ValidationError outside these ranges or for a value that is not a
    JSON integer (strict: no ``"1"``, ``1.0`` or ``true``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    power_gold_deposits: int = Field(default=0, ge=-1, le=1)
    power_nobles: int = Field(default=0, ge=-1, le=1)
    power_construction: int = Field(default=0, ge=-1, le=1)
    resources: int = Field(default=0, ge=-1, le=1)
    cocoa_vp: int = Field(default=0, ge=-2, le=2)
    worship_steps: int = Field(default=0, ge=-1, le=1)
    # A strict int, not Literal[-10, -5, 0, 5, 10]: a Literal would let 5.0 through.
    temple_bonus_vp: int = Field(default=0, ge=-10, le=10, multiple_of=5)
    technology_vp: int = Field(default=0, ge=-2, le=2)


class GameOptions(BaseModel):
    """Options chosen at game creation.

    Attributes:
        first_game: printed boards and predetermined seats (RULES.md §1.2.3); when False,
            the standard setup with starting tiles (§1.1, §1.2.4).
        draft_starting_tiles: standard setup, starting tiles drafted in snake order (§1.2.5).
        dark_eclipse: scoring as soon as the light marker reaches the dark one (§7).
        advanced_worship: displacing gains 1 cocoa; own workers may be displaced (§7).
        solo: the solo mode (§8): two seats, seat 0 the human (first seat), seat 1 Teotibot.
        teotibot: Teotibot's difficulty knobs (only read when ``solo``).
    Raises pydantic.ValidationError on unknown keys or wrong types (strict: a flag must be
    a JSON boolean, ``teotibot`` a JSON object).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    first_game: bool = True
    draft_starting_tiles: bool = False
    dark_eclipse: bool = False
    advanced_worship: bool = False
    solo: bool = False
    teotibot: TeotibotOptions = TeotibotOptions()


_EXPECTED_BY_ERROR = {
    "bool_type": "a boolean (true or false)",
    "int_type": "an integer",
    "model_type": "a JSON object",
    "dict_type": "a JSON object",
}
"""What a strict type error's option expects, in words (pydantic error type → text)."""


def _json_kind(value: object) -> str:
    """The JSON type of a decoded JSON value, as a reader of the request would call it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def _shown(value: object) -> str:
    """``value`` as JSON when it is JSON (options arrive as decoded JSON), else its repr."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def explain_options_error(error: ValidationError) -> str:
    """One readable line per problem of a rejected options object, naming the option and
    what it expects (e.g. ``option 'first_game' must be a boolean (true or false), not the
    string "no"``) or, for a misspelt one, the known options
    (``unknown option 'nope' (known: advanced_worship, ...)``)."""
    problems = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"])
        expected = _EXPECTED_BY_ERROR.get(problem["type"])
        if problem["type"] == "extra_forbidden":
            model: type[BaseModel] = (
                TeotibotOptions if where.startswith("teotibot.") else GameOptions
            )
            known = ", ".join(sorted(model.model_fields))
            problems.append(f"unknown option {where!r} (known: {known})")
        elif expected is not None:
            given = problem["input"]
            problems.append(
                f"option {where!r} must be {expected}, not the {_json_kind(given)} {_shown(given)}"
            )
        else:
            problems.append(f"option {where!r}: {problem['msg']}")
    return "; ".join(problems)
