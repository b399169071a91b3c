"""Teotibot at eclipses and at the end (RULES.md §8 "Eclipse").

It scores the Avenue, Pyramid track and masks normally (the ordinary eclipse scoring) and
pays no salary. At the final eclipse it also scores 1 VP per remaining cocoa and resource,
2 VP per technology with its marker (± the knob) and 15 VP (± the knob) per temple bonus
it qualifies for, instead of the tile's effect. The human wins only with strictly more
VP: ties go to the bot.
"""

from __future__ import annotations

from ..components import RESOURCES
from ..context import Context
from ..state import GameState
from .seat import TEOTIBOT_SEAT, is_teotibot

TECHNOLOGY_VP = 2
TEMPLE_BONUS_VP = 15


def pays_salary(state: GameState, seat: int) -> bool:
    """False for Teotibot (§8)."""
    return not is_teotibot(state, seat)


def score_final_extras(ctx: Context) -> None:
    """Emit ``TeotibotFinalScored`` in a solo game (before the temple bonuses)."""
    state = ctx.state
    if not state.options.solo:
        return
    player = state.players[TEOTIBOT_SEAT]
    resources = sum(player.amount(r) for r in RESOURCES)
    per_technology = TECHNOLOGY_VP + state.options.teotibot.technology_vp
    technologies = len(player.technologies)
    vp = player.cocoa + resources + per_technology * technologies
    ctx.emit(
        "TeotibotFinalScored",
        seat=TEOTIBOT_SEAT,
        cocoa=player.cocoa,
        resources=resources,
        technologies=technologies,
        vp=vp,
    )


def temple_bonus_vp(state: GameState, seat: int) -> int | None:
    """Teotibot's VP per temple bonus (15 ± the knob); None for any other seat."""
    if not is_teotibot(state, seat):
        return None
    return TEMPLE_BONUS_VP + state.options.teotibot.temple_bonus_vp


def solo_ranking(state: GameState) -> list[int]:
    """Seats winner first: the human only with strictly more VP (ties: the bot)."""
    human = 1 - TEOTIBOT_SEAT
    if state.players[human].vp > state.players[TEOTIBOT_SEAT].vp:
        return [human, TEOTIBOT_SEAT]
    return [TEOTIBOT_SEAT, human]
