"""Game options of Teotihuacan (RULES.md §7, §8) as a validated, frozen model."""

from __future__ import annotations

from typing import Literal

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
    Raises pydantic.ValidationError outside these ranges.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    power_gold_deposits: int = Field(default=0, ge=-1, le=1)
    power_nobles: int = Field(default=0, ge=-1, le=1)
    power_construction: int = Field(default=0, ge=-1, le=1)
    resources: int = Field(default=0, ge=-1, le=1)
    cocoa_vp: int = Field(default=0, ge=-2, le=2)
    worship_steps: int = Field(default=0, ge=-1, le=1)
    temple_bonus_vp: Literal[-10, -5, 0, 5, 10] = 0
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
    Raises pydantic.ValidationError on unknown keys or wrong types.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_game: bool = True
    draft_starting_tiles: bool = False
    dark_eclipse: bool = False
    advanced_worship: bool = False
    solo: bool = False
    teotibot: TeotibotOptions = TeotibotOptions()


def explain_options_error(error: ValidationError) -> str:
    """One readable line per problem of a rejected options object, naming the known options
    for a misspelt one (e.g. ``unknown option 'nope' (known: advanced_worship, ...)``)."""
    problems = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"])
        if problem["type"] == "extra_forbidden":
            model: type[BaseModel] = (
                TeotibotOptions if where.startswith("teotibot.") else GameOptions
            )
            known = ", ".join(sorted(model.model_fields))
            problems.append(f"unknown option {where!r} (known: {known})")
        else:
            problems.append(f"option {where!r}: {problem['msg']}")
    return "; ".join(problems)
