"""Calendar, turn changes, eclipse scoring, salaries and the game's end (RULES.md §2, §6)."""

from __future__ import annotations

from collections import Counter
from typing import Final

from .components import TEMPLE_BONUS_STEP, TEMPLES, components
from .context import Context
from .flow import Action, no_choice, task_rules
from .neutral import draw_neutral_placement, neutral_colour_count
from .reads import temple_step, workers_in_play
from .solo.scoring import pays_salary, score_final_extras, solo_ranking
from .solo.scoring import temple_bonus_vp as teotibot_temple_bonus_vp
from .solo.seat import turn_task
from .state import GameState, Player
from .tasks import EclipseEnd, EndTurn, Salary, StartTurn, start_turn_task, take_turn_task

FINAL_ECLIPSE: Final = 3
ECLIPSE_COUNTDOWN_ROUNDS: Final = 2
"""Round ends from the trigger to scoring: the current round, then one more full round."""


def advance_calendar(ctx: Context) -> None:
    """Move the light marker 1 (not past the dark one); reaching it triggers an eclipse (§6.1)."""
    state = ctx.state
    if state.light >= state.dark or state.phase != "turn":
        return
    ctx.emit("CalendarAdvanced", light=state.light + 1)
    if ctx.state.light >= ctx.state.dark:
        trigger_eclipse(ctx, final=False)


def trigger_eclipse(ctx: Context, *, final: bool) -> None:
    """Start the countdown to an eclipse, or mark the pending one final (§6.1)."""
    pending = ctx.state.eclipse_countdown > 0
    countdown = ctx.state.eclipse_countdown if pending else _countdown(ctx.state)
    ctx.emit("EclipseTriggered", countdown=countdown, final=final)


def _countdown(state: GameState) -> int:
    return 1 if state.options.dark_eclipse else ECLIPSE_COUNTDOWN_ROUNDS


def next_seat(state: GameState, seat: int) -> int:
    """The seat after ``seat`` in turn order (clockwise)."""
    order = state.turn_order
    return order[(order.index(seat) + 1) % len(order)]


@task_rules(StartTurn, options=no_choice, decision="the start of a turn", rule="RULES.md §2")
def resolve_start_turn(ctx: Context, task: StartTurn, action: Action | None) -> None:
    """Give the turn to the seat."""
    ctx.emit("TurnStarted", seat=task.seat)
    ctx.push(turn_task(ctx.state, task.seat) or take_turn_task(task.seat))  # solo: Teotibot


@task_rules(EndTurn, options=no_choice, decision="the end of a turn", rule="RULES.md §2")
def resolve_end_turn(ctx: Context, task: EndTurn, action: Action | None) -> None:
    """Round end (calendar, eclipse countdown), then an eclipse or the next seat's turn."""
    effects = ctx.state.players[task.seat].active_effects
    if effects:  # flipped tile effects last for the owner's turn only (RULES.md §4)
        ctx.emit("DiscoveryEffectsExpired", seat=task.seat, effects=list(effects))
    eclipse_now = False
    if task.seat == ctx.state.turn_order[-1]:  # the round's last seat
        advance_calendar(ctx)
        countdown = ctx.state.eclipse_countdown
        if countdown and not ctx.state.options.dark_eclipse:
            countdown -= 1
            eclipse_now = countdown == 0
        ctx.emit("RoundEnded", round=ctx.state.round + 1, eclipse_countdown=countdown)
    if ctx.state.options.dark_eclipse and ctx.state.eclipse_countdown:
        eclipse_now = True
    ctx.push(start_turn_task(next_seat(ctx.state, task.seat)))
    if eclipse_now:
        score_eclipse(ctx)


def score_eclipse(ctx: Context) -> None:
    """RULES.md §6.2 steps 1-3 for every seat, then schedule salaries and the eclipse's end."""
    state = ctx.state
    eclipse = state.eclipses + 1
    tables = components()
    avenue_value = tables.avenue_value(state.buildings_taken)
    per_step = tables.raw["pyramid_track_vp_per_step"][min(eclipse, FINAL_ECLIPSE) - 1]
    leader_vp = tables.raw["pyramid_track_leader_vp"]
    furthest = max(p.pyramid for p in state.players)
    lines = []
    for seat, player in enumerate(state.players):
        avenue = avenue_value * player.avenue
        pyramid = per_step * player.pyramid
        leader = leader_vp if furthest > 0 and player.pyramid == furthest else 0
        masks = mask_sets_vp(player)
        lines.append(
            {
                "seat": seat,
                "avenue": avenue,
                "pyramid": pyramid,
                "pyramid_leader": leader,
                "masks": masks,
                "total": avenue + pyramid + leader + masks,
            }
        )
    ctx.emit("EclipseScored", eclipse=eclipse, avenue_value=avenue_value, scores=lines)
    salaries = (Salary(seat=seat) for seat in state.turn_order if pays_salary(state, seat))
    ctx.push(*salaries, EclipseEnd(seat=-1))


def mask_sets_vp(player: Player) -> int:
    """RULES.md §6.2.3: split masks into sets of different masks, score each set."""
    mask_of = {t["id"]: t.get("mask") for t in components().raw["discovery_tiles"]}
    counts = Counter(mask_of[tile] for tile in player.masks)
    total = 0
    while counts:
        total += components().mask_set_vp(len(counts))
        counts = Counter({mask: n - 1 for mask, n in counts.items() if n > 1})
    return total


def salary_owed(player: Player) -> int:
    """RULES.md §6.2.4: 1 cocoa per worker at power 1-3, 2 per power 4-5 (in play)."""
    table = components().raw["salary"]
    return sum(
        table["power_4_5"] if w.power >= 4 else table["power_1_3"] for w in workers_in_play(player)
    )


FREE_COCOA_PAYMENT: Final = "free_cocoa_payment"


def _salary_options(state: GameState, task: Salary) -> list[Action]:
    player = state.players[task.seat]
    if salary_owed(player) and FREE_COCOA_PAYMENT in player.active_effects:
        # D11, D12: a free cocoa payment tile flipped now pays the whole salary.
        return [{"type": "pay_salary", "cocoa": 0, "free_cocoa_payment": True}]
    payable = min(salary_owed(player), player.cocoa)
    return [{"type": "pay_salary", "cocoa": paid} for paid in range(payable, -1, -1)]


@task_rules(
    Salary, options=_salary_options, decision="how much salary to pay", rule="RULES.md §6.2.4"
)
def resolve_salary(ctx: Context, task: Salary, action: Action | None) -> None:
    """Pay the chosen cocoa; lose 3 VP per cocoa not paid (never below 0 VP)."""
    assert action is not None
    player = ctx.state.players[task.seat]
    owed = salary_owed(player)
    paid = int(action["cocoa"])
    if action.get("free_cocoa_payment"):
        ctx.emit("DiscoveryEffectUsed", seat=task.seat, effect=FREE_COCOA_PAYMENT)
        ctx.emit("SalaryPaid", seat=task.seat, owed=owed, paid=0, vp_lost=0, covered=True)
        return
    per_cocoa = components().raw["salary"]["vp_per_unpaid_cocoa"]
    vp_lost = min(player.vp, per_cocoa * (owed - paid))
    ctx.emit("SalaryPaid", seat=task.seat, owed=owed, paid=paid, vp_lost=vp_lost)


@task_rules(EclipseEnd, options=no_choice, decision="the eclipse's end", rule="RULES.md §6.2")
def resolve_eclipse_end(ctx: Context, task: EclipseEnd, action: Action | None) -> None:
    """Reset for the next era, or end the game after the final eclipse (§6.2, §6.3)."""
    state = ctx.state
    if state.final_eclipse or state.eclipses >= FINAL_ECLIPSE:
        end_game(ctx)
        return
    dark = components().dark_after_eclipse(state.eclipses, state.seat_count)
    ctx.emit("EclipseEnded", eclipse=state.eclipses, light=0, dark=dark)
    colours = neutral_colour_count(state.seat_count)
    if colours:
        placed, drawn = draw_neutral_placement(ctx.rng, state.seat_count, colours)
        ctx.emit("NeutralWorkersPlaced", workers=placed, starting_tiles=drawn)


def end_game(ctx: Context) -> None:
    """RULES.md §6.3: temple bonus tiles, then the ranking (VP, cocoa, turn order)."""
    score_final_extras(ctx)  # solo: Teotibot's cocoa, resources and technologies (§8)
    state = ctx.state
    for seat in state.turn_order:
        for temple_index, temple in enumerate(TEMPLES):
            if temple_step(state.players[seat], temple) >= TEMPLE_BONUS_STEP and state.temple_bonus:
                tile = state.temple_bonus[temple_index]
                vp = temple_bonus_vp(state, seat, tile)
                ctx.emit("TempleBonusScored", seat=seat, temple=temple, tile=tile, vp=vp)
    state = ctx.state
    order = list(state.turn_order)
    if state.options.dark_eclipse:
        order.reverse()  # §7: the last tiebreak is reversed
    ranking = sorted(
        order, key=lambda s: (-state.players[s].vp, -state.players[s].cocoa, order.index(s))
    )
    if state.options.solo:
        ranking = solo_ranking(state)  # §8: the human wins only with strictly more VP
    ctx.emit(
        "GameEnded",
        final_scores=[p.vp for p in state.players],
        ranking=ranking,
    )


def temple_bonus_vp(state: GameState, seat: int, tile: int) -> int:
    """VP of temple bonus tile ``tile`` for ``seat`` (components ``temple_bonus_tiles``)."""
    player = state.players[seat]
    bot_vp = teotibot_temple_bonus_vp(state, seat)
    if bot_vp is not None:
        return bot_vp  # §8: Teotibot scores a flat amount instead of the tile's effect
    effect = components().raw["temple_bonus_tiles"][tile]["effect"]
    if effect == "vp_15":
        return 15
    if effect == "vp_5_per_technology":
        return 5 * len(player.technologies)
    if effect == "vp_3_per_avenue_step":
        return 3 * player.avenue
    if effect == "vp_9_per_bonus_reached":
        return 9 * sum(temple_step(player, t) >= TEMPLE_BONUS_STEP for t in TEMPLES)
    if effect == "vp_2_per_non_mask_discovery":
        return 2 * (len(player.discoveries) + len(player.used_discoveries))
    if effect == "vp_per_worker_power":
        return sum(9 if w.power >= 4 else 4 for w in workers_in_play(player))
    if effect == "best_mask_set_again":
        return best_mask_set_vp(player)
    raise ValueError(f"unknown temple bonus effect {effect}")


def best_mask_set_vp(player: Player) -> int:
    """VP of the seat's highest-scoring mask set (the largest set of different masks)."""
    mask_of = {t["id"]: t.get("mask") for t in components().raw["discovery_tiles"]}
    different = len({mask_of[tile] for tile in player.masks})
    return components().mask_set_vp(different) if different else 0
