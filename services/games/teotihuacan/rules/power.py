"""Power-ups and ascension (RULES.md §5)."""

from __future__ import annotations

from .calendar import advance_calendar
from .components import MAX_POWER, PALACE
from .context import Context
from .flow import Action, no_choice, task_rules
from .reads import in_play, workers_in_play
from .state import GameState
from .tasks import (
    AscensionReward,
    CalendarAdvance,
    PowerUps,
    Task,
    power_ups_task,
    temple_steps_task,
)
from .temples import advanceable_temples
from .tracks import advance_avenue

FOURTH_WORKER_POWER = 3
FOURTH_WORKER_COCOA = 2


def eligible_workers(state: GameState, seat: int, board: int) -> list[int]:
    """Worker ids ``seat`` may power up: unlocked, in play, on ``board`` (0: any board)."""
    return [
        worker_id
        for worker_id, worker in enumerate(state.players[seat].workers)
        if in_play(worker) and not worker.locked and (board == 0 or worker.board == board)
    ]


def _power_up_options(state: GameState, task: PowerUps) -> list[Action]:
    return [
        {"type": "power_up", "worker": w} for w in eligible_workers(state, task.seat, task.board)
    ]


@task_rules(
    PowerUps,
    options=_power_up_options,
    decision="a worker to power up",
    rule="RULES.md §5",
)
def resolve_power_up(ctx: Context, task: PowerUps, action: Action | None) -> None:
    """Power up the chosen worker once; the remaining power-ups follow any ascension."""
    assert action is not None
    follow_ups = power_up(ctx, task.seat, int(action["worker"]))
    rest = [power_ups_task(task.seat, task.board, task.count - 1)] if task.count > 1 else []
    ctx.push(*follow_ups, *rest)


def power_up(ctx: Context, seat: int, worker_id: int) -> list[Task]:
    """+1 power, or ascension past 5 (RULES.md §5). Returns the ascension's follow-up tasks."""
    worker = ctx.state.players[seat].workers[worker_id]
    if worker.power < MAX_POWER:
        ctx.emit("WorkerPoweredUp", seat=seat, worker=worker_id, power=worker.power + 1)
        return []
    return ascend(ctx, seat, worker_id)


def ascend(ctx: Context, seat: int, worker_id: int) -> list[Task]:
    """RULES.md §5.1-5.4: Avenue +1, back to the Palace at power 1, a reward, the calendar."""
    first_this_turn = not ctx.state.players[seat].ascended_this_turn
    follow_ups: list[Task] = advance_avenue(ctx, seat)
    ctx.emit("WorkerAscended", seat=seat, worker=worker_id, board=PALACE)
    follow_ups.append(AscensionReward(seat=seat))
    if first_this_turn:
        follow_ups.append(CalendarAdvance(seat=seat))
    return follow_ups


def _ascension_options(state: GameState, task: AscensionReward) -> list[Action]:
    player = state.players[task.seat]
    rewards = ["vp_5", "cocoa_5"]
    if advanceable_temples(state, task.seat):
        rewards.append("temple_1")
        if player.cocoa >= 3:
            rewards.append("pay_3_cocoa_temple_2")
    if len(workers_in_play(player)) == 3:
        rewards.append("fourth_worker_and_2_cocoa")
    return [{"type": "ascension_reward", "reward": r} for r in rewards]


@task_rules(
    AscensionReward,
    options=_ascension_options,
    decision="an ascension reward",
    rule="RULES.md §5.3",
)
def resolve_ascension_reward(ctx: Context, task: AscensionReward, action: Action | None) -> None:
    """Grant the chosen ascension reward."""
    assert action is not None
    seat, reward = task.seat, action["reward"]
    if reward == "vp_5":
        ctx.change_goods(seat, "ascension", vp=5)
    elif reward == "cocoa_5":
        ctx.change_goods(seat, "ascension", cocoa=5)
    elif reward == "temple_1":
        ctx.push(temple_steps_task(seat, "", 1))
    elif reward == "pay_3_cocoa_temple_2":
        ctx.change_goods(seat, "ascension", cocoa=-3)
        ctx.push(temple_steps_task(seat, "", 2))
    elif reward == "fourth_worker_and_2_cocoa":
        worker_id = next(i for i, w in enumerate(ctx.state.players[seat].workers) if not w.in_play)
        ctx.emit("FourthWorkerJoined", seat=seat, worker=worker_id, power=FOURTH_WORKER_POWER)
        ctx.change_goods(seat, "ascension", cocoa=FOURTH_WORKER_COCOA)


@task_rules(
    CalendarAdvance,
    options=no_choice,
    decision="the calendar",
    rule="RULES.md §5.4",
)
def resolve_calendar_advance(ctx: Context, task: CalendarAdvance, action: Action | None) -> None:
    """The first ascension of a turn advances the light calendar marker."""
    advance_calendar(ctx)
