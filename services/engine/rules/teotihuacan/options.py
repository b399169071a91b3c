"""Game options of Teotihuacan (RULES.md §7) as a validated, frozen model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GameOptions(BaseModel):
    """Options chosen at game creation.

    Attributes:
        first_game: printed boards and predetermined seats (RULES.md §1.2.3).
        dark_eclipse: scoring as soon as the light marker reaches the dark one (§7).
        advanced_worship: displacing gains 1 cocoa; own workers may be displaced (§7).
    Raises pydantic.ValidationError on unknown keys or wrong types.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_game: bool = True
    dark_eclipse: bool = False
    advanced_worship: bool = False
