"""Archaeology's game options (RULES.md A2.4, A7, E17), validated strictly.

Wrong types are refused, never coerced (``{"sand_hell": "yes"}`` is an error), and unknown
options are refused with the known ones named.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from services.engine.domain.ruleset import InvalidOptions

from .components import Components


class ArchaeologyOptions(BaseModel):
    """Options chosen at game creation.

    Attributes:
        ruin: the ruin tile (A6): ``pyramid``, ``temple``, ``tomb``, ``mine``, ``sphinx`` or
            ``buried_ruins``; None draws one at random (A2.4).
        long_expedition: 2-3 seats only: the broken tablets and pendants stay and one more
            thief is dug (A7).
        sand_hell: every sandstorm is in the dig site and each tent may be used twice (A7).
        lucky_beginner: the seat with the lowest starting trade value starts (A7, E7).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    ruin: str | None = None
    long_expedition: bool = False
    sand_hell: bool = False
    lucky_beginner: bool = False


def parse_options(raw: dict[str, object], seat_count: int, comp: Components) -> ArchaeologyOptions:
    """Validate ``raw`` options for ``seat_count`` seats.

    Raises InvalidOptions (rule ``game_options``) naming the option and the problem: an
    unknown option or ruin, a wrong type, `long_expedition` outside 2-3 seats, or a seat
    count outside the components' range.
    """
    if not comp.min_seats <= seat_count <= comp.max_seats:
        raise InvalidOptions(
            "seat_count",
            f"RULES.md A1: Archaeology seats {comp.min_seats} to {comp.max_seats} players,"
            f" not {seat_count}",
        )
    try:
        options = ArchaeologyOptions.model_validate(raw)
    except ValidationError as error:
        raise InvalidOptions("game_options", f"RULES.md A7: {_explain(error)}") from error
    if options.ruin is not None and options.ruin not in comp.ruins:
        known = ", ".join(comp.ruins)
        raise InvalidOptions(
            "game_options",
            f"RULES.md A6: option 'ruin': unknown ruin {options.ruin!r} (known: {known})",
        )
    if options.long_expedition and seat_count not in comp.long_expedition_seats:
        seats = " or ".join(str(n) for n in comp.long_expedition_seats)
        raise InvalidOptions(
            "game_options",
            f"RULES.md A7: option 'long_expedition' is for {seats} seats, not {seat_count}",
        )
    return options


def _explain(error: ValidationError) -> str:
    problems = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "options"
        if problem["type"] == "extra_forbidden":
            known = ", ".join(sorted(ArchaeologyOptions.model_fields))
            problems.append(f"unknown option {where!r} (known: {known})")
        elif problem["type"] == "model_type":
            problems.append("options must be a JSON object")
        else:
            problems.append(f"option {where!r}: {problem['msg']}")
    return "; ".join(problems)
