"""Rewards shared by pyramid tiles and decorations (RULES.md §3.4, §3.5).

A matched icon that is coloured on the new tile gives one step on that colour's temple.
Several such steps resolve one at a time, each fully (its reward, a discovery-tile claim)
before the next; when they are on different temples the seat chooses the order
(rulebook, Common Question 3). The Pyramid track step is a task too, so Construction can
take it after the temple steps, as in the rulebook's Construction example 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import Context
from .flow import Action, no_choice, task_rules
from .state import GameState
from .tasks import Task, register_task
from .temples import advance_temple, can_advance
from .tracks import advance_pyramid_track


@dataclass(frozen=True, slots=True)
class MatchedIconSteps(Task):
    """Temple steps still owed for matched coloured icons (one temple per step)."""

    temples: tuple[str, ...]


register_task(MatchedIconSteps, "matched_icon_steps")


def _order_options(state: GameState, task: MatchedIconSteps) -> list[Action] | None:
    choices = sorted({t for t in task.temples if can_advance(state, task.seat, t)})
    if len(choices) <= 1:
        return None  # one temple (or none that can advance): no choice of order
    return [{"type": "advance_temple", "temple": t} for t in choices]


@task_rules(
    MatchedIconSteps,
    options=_order_options,
    decision="which matched icon's temple step to resolve first",
    rule="RULES.md §3.4",
)
def resolve_matched_icon_steps(ctx: Context, task: MatchedIconSteps, action: Action | None) -> None:
    """Take one step (the chosen temple, else the first owed), then the rest."""
    temples = list(task.temples)
    temple = str(action["temple"]) if action else temples[0]
    temples.remove(temple)
    follow_ups = advance_temple(ctx, task.seat, temple)
    rest = [MatchedIconSteps(seat=task.seat, temples=tuple(temples))] if temples else []
    ctx.push(*follow_ups, *rest)


def matched_icon_steps(seat: int, temples: tuple[str, ...]) -> list[Task]:
    """The task granting ``temples`` steps (none if nothing matched in colour)."""
    return [MatchedIconSteps(seat=seat, temples=temples)] if temples else []


@dataclass(frozen=True, slots=True)
class PyramidTrackStep(Task):
    """Advance once on the Pyramid track (max 10, D4)."""


register_task(PyramidTrackStep, "pyramid_track_step")


@task_rules(
    PyramidTrackStep,
    options=no_choice,
    decision="the Pyramid track",
    rule="RULES.md §3.5",
)
def resolve_pyramid_track_step(ctx: Context, task: PyramidTrackStep, action: Action | None) -> None:
    """One Pyramid track step."""
    advance_pyramid_track(ctx, task.seat)
