"""Game options of Teotihuacan (RULES.md §7) as a validated, frozen model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GameOptions(BaseModel):
    """Options chosen at game creation.

    Attributes:
        first_game: printed boards and predetermined seats (RULES.md §1.2.3); when False,
            the standard setup with starting tiles (§1.1, §1.2.4).
        draft_starting_tiles: standard setup, starting tiles drafted in snake order (§1.2.5).
        dark_eclipse: scoring as soon as the light marker reaches the dark one (§7).
        advanced_worship: displacing gains 1 cocoa; own workers may be displaced (§7).
    Raises pydantic.ValidationError on unknown keys or wrong types.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_game: bool = True
    draft_starting_tiles: bool = False
    dark_eclipse: bool = False
    advanced_worship: bool = False
