"""Temple steps and their rewards (RULES.md §4, components ``temples``)."""

from __future__ import annotations

from .components import RESOURCES, TEMPLE_BONUS_STEP, TEMPLE_TOP_STEP, TEMPLES, components
from .context import Context
from .flow import Action, task_rules
from .state import GameState
from .tasks import ResourceChoice, Task, TempleSteps


def can_advance(state: GameState, seat: int, temple: str) -> bool:
    """RULES.md §4: a seat can't pass the top step, nor reach a top step someone holds."""
    step = state.players[seat].temple(temple)
    if step >= TEMPLE_TOP_STEP:
        return False
    if step == TEMPLE_BONUS_STEP:
        return not any(
            other.temple(temple) == TEMPLE_TOP_STEP
            for index, other in enumerate(state.players)
            if index != seat
        )
    return True


def advanceable_temples(state: GameState, seat: int) -> list[str]:
    """Temples ``seat`` can advance on, in blue, red, green order."""
    return [temple for temple in TEMPLES if can_advance(state, seat, temple)]


def advance_temple(ctx: Context, seat: int, temple: str) -> list[Task]:
    """Advance ``seat`` once on ``temple`` and grant the printed reward of the step reached.

    Returns the follow-up tasks (a resource choice on the blue temple) for the caller to
    schedule before anything else, so each step resolves fully before the next (§3.4).
    Does nothing if the seat can't advance there.
    """
    if not can_advance(ctx.state, seat, temple):
        return []
    step = ctx.state.players[seat].temple(temple) + 1
    ctx.emit("TempleAdvanced", seat=seat, temple=temple, step=step)
    reward = components().temple_step_reward(temple, step)
    if not reward:
        return []
    follow_ups: list[Task] = []
    ctx.change_goods(
        seat, f"temple_{temple}_{step}", cocoa=reward.get("cocoa", 0), vp=reward.get("vp", 0)
    )
    if reward.get("resource_any"):
        follow_ups.append(ResourceChoice(seat=seat, count=reward["resource_any"]))
    return follow_ups


def _temple_options(state: GameState, task: TempleSteps) -> list[Action] | None:
    if task.temple:
        return None
    return [{"type": "advance_temple", "temple": t} for t in advanceable_temples(state, task.seat)]


@task_rules(
    TempleSteps,
    options=_temple_options,
    decision="a temple to advance on",
    rule="RULES.md §4",
)
def resolve_temple_steps(ctx: Context, task: TempleSteps, action: Action | None) -> None:
    """Advance once (on the fixed temple, or the chosen one), then schedule the rest."""
    temple = task.temple or str(action["temple"] if action else "")
    follow_ups = advance_temple(ctx, task.seat, temple)
    rest = [TempleSteps(seat=task.seat, temple=task.temple, count=task.count - 1)]
    ctx.push(*follow_ups, *(rest if task.count > 1 else []))


def _resource_options(state: GameState, task: ResourceChoice) -> list[Action]:
    return [{"type": "take_resource", "resource": r} for r in RESOURCES]


@task_rules(
    ResourceChoice,
    options=_resource_options,
    decision="a resource to take (wood, stone or gold)",
    rule="RULES.md §4",
)
def resolve_resource_choice(ctx: Context, task: ResourceChoice, action: Action | None) -> None:
    """Take one resource of the seat's choice; the rest of the count follows."""
    assert action is not None
    ctx.change_goods(task.seat, "temple_blue", **{str(action["resource"]): 1})
    if task.count > 1:
        ctx.push(ResourceChoice(seat=task.seat, count=task.count - 1))
