"""Technologies: which seat owns which, and the column temple (RULES.md §1.1.3, §3.2)."""

from __future__ import annotations

from functools import cache

from .components import TEMPLES, components
from .state import GameState

ROW_LENGTH = 3


def technology_effect(technology_id: int) -> str:
    """Effect key of a technology (components ``technologies``)."""
    return _technology_effects()[technology_id]


@cache
def _technology_effects() -> tuple[str, ...]:
    """``effect`` of every technology, by id (asked many times a turn)."""
    return tuple(str(t["effect"]) for t in components().raw["technologies"])


def owns_technology(state: GameState, seat: int, effect: str) -> bool:
    """True if ``seat`` has a marker on the technology with ``effect`` acquired before this
    turn (RULES.md D10: a technology takes effect from its owner's next turn)."""
    player = state.players[seat]
    if not player.technologies:  # the usual case, asked at every move and main action
        return False
    effects = _technology_effects()
    return any(
        effects[state.technologies[slot]] == effect
        for slot in player.technologies
        if slot not in player.new_technologies
    )


def column_temple(slot: int) -> str:
    """Temple advanced by the technology in board slot ``slot`` (columns blue, red, green)."""
    return TEMPLES[slot % ROW_LENGTH]


CONSTRUCTION_DISCOUNT = 1


def construction_discount(state: GameState, seat: int) -> int:
    """Resources (stone or wood) saved per pyramid tile placed on Construction (8).

    RULES.md §3.5: technology #15 ("construction_extra_worker") makes each tile 1 resource
    cheaper; its extra worker is counted by ``main_action.workers_for_action``. Follows D10
    (no effect on the turn it is acquired). Returns 0 or 1.
    """
    owned = owns_technology(state, seat, "construction_extra_worker")
    return CONSTRUCTION_DISCOUNT if owned else 0
