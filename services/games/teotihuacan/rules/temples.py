"""Temple steps and their rewards (RULES.md §4, components ``temples``).

On a major step (``temples.*.major_steps``: blue 4, red 5, green 3 and 6) that still holds
discovery tiles, the seat chooses one of those tiles (paying its cost) or the printed
reward: the :class:`MajorStepChoice` task, with actions
``{"type": "claim_discovery", "tile": id}`` (only affordable tiles) and
``{"type": "take_reward"}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .components import RESOURCES, TEMPLE_BONUS_STEP, TEMPLE_TOP_STEP, TEMPLES, components
from .context import Context
from .discovery import can_pay, claim
from .flow import Action, task_rules
from .reads import temple_step
from .state import GameState
from .tasks import ResourceChoice, Task, TempleSteps, register_task, temple_steps_task


def can_advance(state: GameState, seat: int, temple: str) -> bool:
    """RULES.md §4: a seat can't pass the top step, nor reach a top step someone holds."""
    step = temple_step(state.players[seat], temple)
    if step >= TEMPLE_TOP_STEP:
        return False
    if step == TEMPLE_BONUS_STEP:
        return not any(
            temple_step(other, temple) == TEMPLE_TOP_STEP
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
    step = temple_step(ctx.state.players[seat], temple) + 1
    ctx.emit("TempleAdvanced", seat=seat, temple=temple, step=step)
    if major_step_tiles(ctx.state, temple, step):
        return [MajorStepChoice(seat=seat, temple=temple, step=step)]
    return grant_step_reward(ctx, seat, temple, step)


def major_step_tiles(state: GameState, temple: str, step: int) -> tuple[int, ...]:
    """Discovery tiles still on ``step`` of ``temple`` (empty unless a major step)."""
    if not state.temple_discoveries:
        return ()
    steps = state.temple_discoveries[TEMPLES.index(temple)]
    return steps[step] if step < len(steps) else ()


def grant_step_reward(ctx: Context, seat: int, temple: str, step: int) -> list[Task]:
    """The printed reward of ``step`` on ``temple``; returns follow-up tasks (resource choice)."""
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
    rest = [temple_steps_task(task.seat, task.temple, task.count - 1)] if task.count > 1 else []
    ctx.push(*follow_ups, *rest)


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


@dataclass(frozen=True, slots=True)
class MajorStepChoice(Task):
    """On major ``step`` of ``temple``: one of its discovery tiles or the printed reward (§4)."""

    temple: str
    step: int


register_task(MajorStepChoice, "major_step_choice")


def _major_step_options(state: GameState, task: MajorStepChoice) -> list[Action]:
    player = state.players[task.seat]
    tiles = sorted(set(major_step_tiles(state, task.temple, task.step)))
    claims: list[Action] = [
        {"type": "claim_discovery", "tile": t} for t in tiles if can_pay(player, t)
    ]
    return [*claims, {"type": "take_reward"}]


@task_rules(
    MajorStepChoice,
    options=_major_step_options,
    decision="a discovery tile of the major temple step (paying its cost) or its printed reward",
    rule="RULES.md §4",
)
def resolve_major_step(ctx: Context, task: MajorStepChoice, action: Action | None) -> None:
    """Claim the chosen tile, or take the printed reward of the step."""
    assert action is not None
    if action["type"] == "take_reward":
        ctx.push(*grant_step_reward(ctx, task.seat, task.temple, task.step))
        return
    source = {"kind": "temple", "temple": task.temple, "step": task.step}
    claim(ctx, task.seat, int(action["tile"]), source)
