"""RULES.md §3.2 (Alchemy), §3.3 (Nobles), the technology effects (§3.2, D10) and D13/D14.

Worked examples are from the English rulebook (shared/seeds/002_…). The first-game
technology board is slots 0-5 = #1, #3, #5 (top row, 1 gold) and #9, #15, #17 (bottom
row, 2 gold); columns advance blue, red, green.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest

from services.engine.domain.ruleset import RuleViolation
from services.games.teotihuacan.rules.alchemy import ChooseTechnology
from services.games.teotihuacan.rules.calendar import score_eclipse
from services.games.teotihuacan.rules.components import components
from services.games.teotihuacan.rules.context import Context
from services.games.teotihuacan.rules.flow import run_until_decision
from services.games.teotihuacan.rules.main_action import AfterMainAction, workers_for_action
from services.games.teotihuacan.rules.nobles import ChooseBuildingRow
from services.games.teotihuacan.rules.state import GameState, state_from_dict, state_to_dict
from services.games.teotihuacan.rules.tasks import (
    BoardAction,
    EndTurn,
    PowerUps,
    ResourceChoice,
    TakeTurn,
    TempleSteps,
)
from services.games.teotihuacan.rules.technologies import construction_discount

from .builders import (
    RULES,
    clear_board,
    fold,
    goods,
    new_game,
    place,
    play,
    turn_of,
    with_buildings,
    with_leftmost_buildings,
)

PALACE, FOREST, GOLD, ALCHEMY, NOBLES, CONSTRUCTION = 1, 2, 4, 5, 6, 8
MOVE_1 = {"type": "move", "worker": 0, "steps": 1}
MAIN = {"type": "main_action"}

# Technology ids (components ``technologies``): id → number.
T1, T3, T5, T7, T9, T11, T13, T15, T17 = range(9)


def tech(slot: int) -> dict[str, Any]:
    return {"type": "choose_technology", "slot": slot}


def build(row: str) -> dict[str, Any]:
    return {"type": "build", "row": row}


@pytest.fixture
def four() -> GameState:
    """Four seats with 5 cocoa; seats 1-3 wait at the Palace (no cost on boards 2-8)."""
    state = clear_board(new_game(seats=4, seed=1))
    for seat in range(4):
        state = place(goods(state, seat, cocoa=5), seat, (PALACE, 1))
    return state


def with_technologies(state: GameState, seat: int, *slots: int) -> GameState:
    """``seat`` owns these slots since an earlier turn (so they are in effect, D10)."""
    return state.with_player(seat, replace(state.players[seat], technologies=slots))


def refusal(state: GameState, seat: int, action: dict[str, Any]) -> RuleViolation:
    before = copy.deepcopy(state_to_dict(state))
    with pytest.raises(RuleViolation) as refused:
        RULES.decide(state, seat, action, random.Random(0))
    assert state_to_dict(state) == before
    return refused.value


def at_alchemy(state: GameState, *workers: tuple[int, int], gold: int = 5) -> GameState:
    """Seat 0 moves its first worker (on Gold Deposits) to Alchemy and takes the main action."""
    state = turn_of(goods(place(state, 0, *workers), 0, gold=gold), 0)
    state = play(state, 0, MOVE_1)
    return play(state, 0, MAIN)


def arrived(state: GameState, board: int) -> GameState:
    """Seat 0's first worker has just moved onto ``board``: the board action is pending.

    (Moving there in play would auto-apply collect cocoa when it is the only choice.)
    """
    agenda = (EndTurn(seat=0), BoardAction(seat=0, board=board, workers=(0,)))
    return turn_of(state, 0, agenda=agenda)


def at_nobles(
    state: GameState, *workers: tuple[int, int], rows: tuple[int, int, int], taken: int
) -> GameState:
    """Seat 0 (3 wood) has ``workers`` (the first one on Alchemy) and these Nobles rows."""
    state = replace(with_leftmost_buildings(state, rows), buildings_taken=taken)
    return turn_of(goods(place(state, 0, *workers), 0, wood=3), 0)


# --- Alchemy (5) ----------------------------------------------------------------------


def test_one_power_four_worker_takes_the_top_row_and_powers_up(four: GameState) -> None:
    # Rulebook example: a single power-4 worker may take from either row.
    state = at_alchemy(four, (GOLD, 4))
    assert state.agenda[-1] == ChooseTechnology(seat=0, workers=1)
    assert RULES.legal_actions(state, 0) == [tech(slot) for slot in range(6)]
    state = play(state, 0, tech(1))  # #3, centre column: red temple
    player = state.players[0]
    assert player.technologies == (1,) and player.gold == 5 - 1
    assert player.temples == (0, 1, 0)
    assert player.workers[0].power == 5  # the one power-up, applied at once
    # D10: #3 acquired on this action gives no 3 VP now; only the red step's 1 VP.
    assert player.vp == 1
    assert isinstance(state.agenda[-1], TakeTurn) and state.current == 1


def test_one_power_four_worker_takes_the_bottom_row_without_power_up(four: GameState) -> None:
    state = at_alchemy(four, (GOLD, 4))
    state = play(state, 0, tech(3))  # #9, left column: blue temple, 2 gold
    assert state.agenda[-1] == ResourceChoice(seat=0, count=1)
    state = play(state, 0, {"type": "take_resource", "resource": "stone"})
    player = state.players[0]
    assert (player.technologies, player.gold, player.stone) == ((3,), 5 - 2, 1)
    assert player.temples == (1, 0, 0)
    assert player.workers[0].power == 4  # exception used: no power-up
    assert state.current == 1


def test_one_weak_worker_takes_only_the_top_row(four: GameState) -> None:
    state = at_alchemy(four, (GOLD, 3))
    assert RULES.legal_actions(state, 0) == [tech(0), tech(1), tech(2)]
    refused = refusal(state, 0, tech(4))
    assert refused.rule == "technology_row_not_allowed" and "§3.2" in refused.message


def test_two_workers_take_either_row_and_power_up_once(four: GameState) -> None:
    state = at_alchemy(four, (GOLD, 1), (ALCHEMY, 1))
    assert RULES.legal_actions(state, 0) == [tech(slot) for slot in range(6)]
    state = play(state, 0, tech(5))  # #17, right column: green temple (+1 cocoa)
    assert state.players[0].temples == (0, 0, 1)
    assert state.agenda[-1] == PowerUps(seat=0, board=ALCHEMY, count=1)


def test_an_extra_worker_tile_counts_and_is_used_up(four: GameState) -> None:
    state = four.with_player(0, replace(four.players[0], active_effects=("extra_worker",)))
    state = at_alchemy(state, (GOLD, 1))
    assert state.agenda[-1] == ChooseTechnology(seat=0, workers=2)
    assert state.players[0].active_effects == ()
    state = play(state, 0, tech(4))  # bottom row with a power-1 worker
    assert state.players[0].workers[0].power == 2  # and still powers up


def test_other_seats_on_the_technology_score_three(four: GameState) -> None:
    state = with_technologies(with_technologies(four, 1, 2), 2, 0, 2)
    state = at_alchemy(state, (GOLD, 1))
    state = play(state, 0, tech(2))  # #5, green column: +1 cocoa
    assert [p.vp for p in state.players] == [0, 3, 3, 0]


def test_a_technology_you_own_is_refused(four: GameState) -> None:
    state = at_alchemy(with_technologies(four, 0, 1), (GOLD, 1))
    assert tech(1) not in RULES.legal_actions(state, 0)
    refused = refusal(state, 0, tech(1))
    assert refused.rule == "technology_already_owned" and "§3.2" in refused.message


def test_unaffordable_gold_is_refused(four: GameState) -> None:
    state = at_alchemy(four, (GOLD, 5), gold=1)
    assert RULES.legal_actions(state, 0) == [tech(0), tech(1), tech(2)]
    assert refusal(state, 0, tech(3)).rule == "cost_not_payable"


def test_alchemy_needs_an_affordable_technology(four: GameState) -> None:
    state = arrived(goods(place(four, 0, (ALCHEMY, 5)), 0, gold=0), ALCHEMY)
    assert MAIN not in RULES.legal_actions(state, 0)
    refused = refusal(state, 0, MAIN)
    assert refused.rule == "no_technology_available" and "§3.2" in refused.message
    # Owning every top-row technology leaves nothing for one power-1 worker either.
    state = arrived(goods(place(four, 0, (ALCHEMY, 1)), 0, gold=5), ALCHEMY)
    state = with_technologies(state, 0, 0, 1, 2)
    assert MAIN not in RULES.legal_actions(state, 0)
    assert refusal(state, 0, MAIN).rule == "no_technology_available"


def test_alchemy_needs_the_cocoa_cost(four: GameState) -> None:
    state = place(four, 1, (ALCHEMY, 1))
    state = arrived(goods(place(state, 0, (ALCHEMY, 1)), 0, gold=5, cocoa=0), ALCHEMY)
    assert MAIN not in RULES.legal_actions(state, 0)
    assert refusal(state, 0, MAIN).rule == "cost_not_payable"


# --- Nobles (6) -----------------------------------------------------------------------


def test_two_workers_build_on_the_middle_row(four: GameState) -> None:
    # Rulebook example: two workers, pay 2 wood, leftmost space of the second row, Avenue
    # +1, 4 VP (the middle row reads 5, 4, 3, 3; its first space is already built).
    state = at_nobles(four, (ALCHEMY, 1), (NOBLES, 1), rows=(0, 1, 0), taken=1)
    state = play(state, 0, MOVE_1)
    state = play(state, 0, MAIN)
    player = state.players[0]
    assert (player.wood, player.vp, player.avenue) == (1, 4, 1)
    assert state.nobles_rows == (0, 2, 0) and state.buildings_taken == 2
    assert state.agenda[-1] == PowerUps(seat=0, board=NOBLES, count=1)


def test_one_worker_builds_on_the_top_row(four: GameState) -> None:
    state = at_nobles(four, (ALCHEMY, 1), rows=(2, 0, 0), taken=2)
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.nobles_rows == (3, 0, 0) and state.players[0].vp == 2  # top: 3, 2, 2, 1, 1
    assert state.players[0].workers[0].power == 2


def test_two_workers_use_the_top_row_when_the_middle_is_full(four: GameState) -> None:
    state = at_nobles(four, (ALCHEMY, 1), (NOBLES, 1), rows=(0, 4, 0), taken=4)
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.nobles_rows == (1, 4, 0) and state.players[0].vp == 3


def test_three_workers_build_on_the_bottom_row_and_power_up_twice(four: GameState) -> None:
    state = at_nobles(four, (ALCHEMY, 1), (NOBLES, 1), (NOBLES, 2), rows=(0, 0, 1), taken=1)
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.nobles_rows == (0, 0, 2) and state.players[0].vp == 6
    assert state.agenda[-1] == PowerUps(seat=0, board=NOBLES, count=2)


def test_three_workers_choose_a_row_above_when_the_bottom_is_full(four: GameState) -> None:
    state = at_nobles(four, (ALCHEMY, 1), (NOBLES, 1), (NOBLES, 2), rows=(1, 2, 3), taken=6)
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.agenda[-1] == ChooseBuildingRow(seat=0, workers=3)
    assert RULES.legal_actions(state, 0) == [build("middle"), build("top")]
    assert refusal(state, 0, build("bottom")).rule == "illegal_choice"
    state = play(state, 0, build("top"))
    assert state.nobles_rows == (2, 2, 3) and state.players[0].vp == 2
    assert state.buildings_taken == 7


def test_a_seat_builds_on_the_leftmost_empty_space_left_of_a_bots_building(
    four: GameState,
) -> None:
    # §3.3 "the leftmost empty space of a row": Teotibot (§8) may have built further right,
    # on the lowest-VP spaces (the top row reads 3, 2, 2, 1, 1: spaces 3 and 4).
    state = at_nobles(four, (ALCHEMY, 1), rows=(0, 0, 0), taken=3)
    state = with_buildings(state, (0, 3, 4), (), ())
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.nobles_built == ((0, 1, 3, 4), (), ()) and state.nobles_rows == (4, 0, 0)
    assert state.players[0].vp == 2  # space 1 of the top row


def test_a_row_with_every_space_built_is_full_whatever_the_order(four: GameState) -> None:
    state = at_nobles(four, (ALCHEMY, 1), rows=(0, 0, 0), taken=5)
    state = with_buildings(state, (4, 3, 0, 1, 2), (), ())
    state = play(state, 0, MOVE_1)
    assert MAIN not in RULES.legal_actions(state, 0)  # 1 worker: the top row only


def test_a_state_saved_before_spaces_were_tracked_restores_rows_filled_from_the_left(
    four: GameState,
) -> None:
    # Snapshots and GameSetUp events written before ``nobles_built`` existed hold only the
    # counts; every building then went to its row's leftmost empty space. Rows without
    # gaps are still written that way (the setup events of old games re-derive exactly).
    data = state_to_dict(with_leftmost_buildings(four, (2, 1, 0)))
    assert "nobles_built" not in data and data["nobles_rows"] == [2, 1, 0]
    restored = state_from_dict(data)
    assert restored.nobles_built == ((0, 1), (0,), ()) and restored.nobles_rows == (2, 1, 0)
    gapped = with_buildings(four, (0, 3), (), (1,))
    assert state_to_dict(gapped)["nobles_built"] == [[0, 3], [], [1]]
    assert state_from_dict(state_to_dict(gapped)) == gapped


def test_nobles_is_allowed_at_the_top_of_the_avenue(four: GameState) -> None:
    state = at_nobles(four, (ALCHEMY, 1), rows=(0, 0, 0), taken=0)
    state = play(play(goods(state, 0, avenue=9), 0, MOVE_1), 0, MAIN)
    assert state.players[0].avenue == 9 and state.players[0].vp == 3


def test_nobles_without_two_wood_is_refused(four: GameState) -> None:
    state = at_nobles(four, (NOBLES, 1), rows=(0, 0, 0), taken=0)
    state = arrived(goods(state, 0, wood=1), NOBLES)
    assert MAIN not in RULES.legal_actions(state, 0)
    refused = refusal(state, 0, MAIN)
    assert refused.rule == "cost_not_payable" and "§3.3" in refused.message


def test_nobles_with_all_eleven_buildings_gone_is_refused(four: GameState) -> None:
    state = at_nobles(four, (NOBLES, 1), (NOBLES, 1), rows=(5, 3, 3), taken=11)
    state = arrived(state, NOBLES)
    assert MAIN not in RULES.legal_actions(state, 0)
    refused = refusal(state, 0, MAIN)
    assert refused.rule == "no_building_left" and "D14" in refused.message


def test_nobles_with_a_full_row_is_refused(four: GameState) -> None:
    state = at_nobles(four, (NOBLES, 1), rows=(5, 0, 0), taken=5)
    state = arrived(state, NOBLES)
    refused = refusal(state, 0, MAIN)
    assert refused.rule == "no_building_space" and "§3.3" in refused.message


def test_avenue_pays_two_per_step_after_seven_buildings(four: GameState) -> None:
    # Rulebook example: the topmost empty space shows 2 → Blue 2x7, Yellow and Red 2x5,
    # Black 2x4. The 7th building is taken by a Nobles action here.
    state = at_nobles(four, (ALCHEMY, 1), (NOBLES, 1), rows=(5, 1, 0), taken=6)
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.buildings_taken == 7 and components().avenue_value(7) == 2
    for seat, steps in enumerate((4, 5, 7, 5)):
        state = goods(state, seat, avenue=steps, vp=0)
    ctx = Context(state, random.Random(0))
    score_eclipse(ctx)
    scored = ctx.events[0].payload
    assert scored["avenue_value"] == 2
    assert [line["avenue"] for line in scored["scores"]] == [8, 10, 14, 10]


# --- technology effects (from the owner's next turn, D10) ----------------------------


def test_technology_three_scores_after_alchemy_and_nobles(four: GameState) -> None:
    state = at_alchemy(with_technologies(four, 0, 1), (GOLD, 1))
    state = play(state, 0, tech(0))  # #1, blue temple: a resource
    state = play(state, 0, {"type": "take_resource", "resource": "gold"})
    assert state.players[0].vp == 3
    state = with_technologies(four, 0, 1)
    state = at_nobles(state, (ALCHEMY, 1), rows=(0, 0, 0), taken=0)
    state = play(play(state, 0, MOVE_1), 0, MAIN)
    assert state.players[0].vp == 3 + 3


def _harvest_forest(state: GameState, power: int = 2) -> GameState:
    state = turn_of(place(state, 0, (PALACE, power)), 0)
    return play(play(state, 0, MOVE_1), 0, MAIN)


def test_technologies_five_and_seven_add_to_a_harvest(four: GameState) -> None:
    state = replace(four, technologies=(T1, T5, T7, T9, T11, T13))
    state = _harvest_forest(with_technologies(state, 0, 1, 2))
    # One worker, power 2 → 1 wood; #5 +1 wood; #7 +1 cocoa and 1 VP. Power-up auto.
    player = state.players[0]
    assert (player.wood, player.cocoa, player.vp) == (2, 5 + 1, 1)


def test_technology_thirteen_buys_one_more_power_up(four: GameState) -> None:
    state = replace(four, technologies=(T1, T5, T7, T9, T11, T13))
    state = _harvest_forest(with_technologies(state, 0, 5))
    actions = RULES.legal_actions(state, 0)
    assert actions == [
        {"type": "extra_power_up", "pay": True},
        {"type": "extra_power_up", "pay": False},
    ]
    state = play(state, 0, {"type": "extra_power_up", "pay": True})
    assert state.players[0].workers[0].power == 4 and state.players[0].cocoa == 5 - 1


def test_technology_one_gives_cocoa_only_when_passing_the_palace(four: GameState) -> None:
    state = with_technologies(four, 0, 0)
    state = turn_of(place(state, 0, (FOREST, 1)), 0)
    state = play(state, 0, MOVE_1)
    assert state.players[0].cocoa == 5


def test_a_technology_acquired_this_turn_has_no_effect_yet(four: GameState) -> None:
    state = replace(four, technologies=(T1, T5, T7, T9, T15, T11))
    state = at_alchemy(state, (GOLD, 1), (ALCHEMY, 1))
    state = play(state, 0, tech(4))  # #15
    assert workers_for_action(state, 0, CONSTRUCTION) == 0
    assert construction_discount(state, 0) == 0
    later = replace(state.players[0], new_technologies=())
    state = place(state.with_player(0, later), 0, (CONSTRUCTION, 1))
    assert workers_for_action(state, 0, CONSTRUCTION) == 2
    assert construction_discount(state, 0) == 1


def _after_main_action(state: GameState, board: int) -> Context:
    ctx = Context(replace(state, agenda=()), random.Random(0))
    ctx.push(AfterMainAction(seat=0, board=board))
    run_until_decision(ctx)
    return ctx


@pytest.mark.parametrize(
    ("technology", "board", "vp"),
    [(T9, 7, 4), (T11, CONSTRUCTION, 3), (T9, CONSTRUCTION, 0), (T11, 7, 0)],
)
def test_technologies_nine_and_eleven_score_after_their_board(
    four: GameState, technology: int, board: int, vp: int
) -> None:
    state = replace(four, technologies=(T1, T3, T5, technology, T15, T17))
    ctx = _after_main_action(with_technologies(state, 0, 3), board)
    assert ctx.state.players[0].vp == vp
    assert fold(ctx.events, state).players[0].vp == vp


def test_technology_seventeen_gives_a_temple_step_after_construction(four: GameState) -> None:
    ctx = _after_main_action(with_technologies(four, 0, 5), CONSTRUCTION)
    assert ctx.agenda[-1] == TempleSteps(seat=0, temple="", count=1)
    assert _after_main_action(with_technologies(four, 0, 5), 7).agenda == []
