"""RULES.md §5 (power-up, ascension) and §6 (calendar, eclipse, salary, end)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from services.games.teotihuacan.rules.calendar import mask_sets_vp, salary_owed
from services.games.teotihuacan.rules.state import GameState, Player, Worker
from services.games.teotihuacan.rules.tasks import AscensionReward, Salary

from .builders import RULES, clear_board, fold, goods, new_game, place, play, turn_of

FOREST, NOBLES, PALACE = 2, 6, 1


@pytest.fixture
def four() -> GameState:
    state = clear_board(new_game(seats=4, seed=1))
    for seat in range(4):
        state = place(goods(state, seat, cocoa=5), seat, (NOBLES, 1))
    return state


def _harvest_with_one_worker(state: GameState, seat: int, power: int) -> GameState:
    """``seat`` harvests on the Forest with one worker of ``power``; two more wait on Nobles."""
    state = place(state, seat, (PALACE, power), (NOBLES, 1), (NOBLES, 1))
    state = turn_of(state, seat)
    state = play(state, seat, {"type": "move", "worker": 0, "steps": 1})
    return play(state, seat, {"type": "main_action"})


def test_powering_up_past_five_ascends(four: GameState) -> None:
    state = _harvest_with_one_worker(four, 0, power=5)
    player = state.players[0]
    assert player.avenue == 1
    assert player.workers[0] == Worker(board=PALACE, power=1)
    assert state.agenda[-1] == AscensionReward(seat=0)
    rewards = [a["reward"] for a in RULES.legal_actions(state, 0)]
    assert rewards == [
        "vp_5",
        "cocoa_5",
        "temple_1",
        "pay_3_cocoa_temple_2",
        "fourth_worker_and_2_cocoa",
    ]
    # The reward comes first, then the calendar (first ascension of the turn).
    assert state.light == 0
    state = play(state, 0, {"type": "ascension_reward", "reward": "vp_5"})
    assert state.light == 1 and state.players[0].vp == 5


def test_fourth_worker_joins_at_the_palace_with_power_three(four: GameState) -> None:
    state = _harvest_with_one_worker(four, 0, power=5)
    state = play(state, 0, {"type": "ascension_reward", "reward": "fourth_worker_and_2_cocoa"})
    player = state.players[0]
    assert len(player.workers_in_play()) == 4
    assert player.workers[3] == Worker(board=PALACE, power=3)
    assert player.cocoa == 5 + 2


def test_pay_three_cocoa_for_two_temple_steps(four: GameState) -> None:
    state = _harvest_with_one_worker(four, 0, power=5)
    state = play(state, 0, {"type": "ascension_reward", "reward": "pay_3_cocoa_temple_2"})
    state = play(state, 0, {"type": "advance_temple", "temple": "red"})
    state = play(state, 0, {"type": "advance_temple", "temple": "red"})
    assert state.players[0].temples == (0, 2, 0)
    assert state.players[0].vp == 2 and state.players[0].cocoa == 5 - 3


def test_top_temple_step_holds_one_marker(four: GameState) -> None:
    state = goods(four, 1, temples=(11, 0, 0))
    state = goods(state, 0, temples=(10, 0, 0))
    state = _harvest_with_one_worker(state, 0, power=5)
    state = play(state, 0, {"type": "ascension_reward", "reward": "temple_1"})
    choices = [a["temple"] for a in RULES.legal_actions(state, 0)]
    assert choices == ["red", "green"]


def _eclipse_ready(state: GameState) -> GameState:
    return replace(state, light=state.dark - 1)


def test_ascension_on_the_second_of_four_seats_triggers_an_eclipse_after_one_more_round(
    four: GameState,
) -> None:
    # Rulebook: seats 3 and 4 finish the round, then a full round, then the eclipse.
    state = _eclipse_ready(four)
    state = _harvest_with_one_worker(state, 1, power=5)
    state = play(state, 1, {"type": "ascension_reward", "reward": "vp_5"})
    assert state.light == state.dark and state.eclipse_countdown == 2
    turns = 0
    while state.eclipses == 0:
        (seat,) = RULES.seats_to_act(state)
        state = play(state, seat, {"type": "unlock"})
        turns += 1
    assert turns == 2 + 4
    assert isinstance(state.agenda[-1], Salary) and state.phase == "eclipse"


def test_eclipse_scores_avenue_pyramid_and_masks(four: GameState) -> None:
    state = replace(_eclipse_ready(four), eclipses=1, eclipse_countdown=1)
    state = goods(state, 0, avenue=7, pyramid=4, vp=0)
    state = goods(state, 1, avenue=5, pyramid=3, masks=(0, 1, 3, 5, 8, 2))
    state = goods(state, 2, avenue=5, pyramid=2)
    state = goods(state, 3, avenue=4, pyramid=2)
    state = replace(state, buildings_taken=7)  # building row shows 2
    state = turn_of(state, 3)
    events = RULES.decide(state, 3, {"type": "unlock"}, random.Random(0))  # ends the round
    (eclipse,) = [e for e in events if e.type == "EclipseScored"]
    scored = {line["seat"]: line for line in eclipse.payload["scores"]}
    # Rulebook: Avenue 2x7, 2x5, 2x5, 2x4; 2nd eclipse pyramid 3/step, leader +4.
    assert [scored[s]["avenue"] for s in range(4)] == [14, 10, 10, 8]
    assert [scored[s]["pyramid"] for s in range(4)] == [12, 9, 6, 6]
    assert [scored[s]["pyramid_leader"] for s in range(4)] == [4, 0, 0, 0]
    assert scored[1]["masks"] == 15 + 1  # masks 1-5 and a second 2: sets of 5 and 1
    assert all(p.pyramid == 0 for p in fold(events, state).players)


def test_two_mask_sets_score_fifteen_and_three() -> None:
    # Rulebook: masks 1,2,3,4,5 and 2,3 → sets of 5 (15 VP) and 2 (3 VP).
    masks = (0, 1, 3, 5, 8, 2, 4)  # mask numbers 1,2,3,4,5,2,3
    assert mask_sets_vp(Player(masks=masks)) == 15 + 3


def test_salary_counts_power_four_and_five_double() -> None:
    # Rulebook: powers 1, 3, 5 → pay 4.
    workers = (Worker(2, 1), Worker(3, 3), Worker(4, 5, locked=True, space=0), Worker(0, 3))
    assert salary_owed(Player(workers=workers)) == 4


def test_unpaid_salary_costs_three_vp_each_never_below_zero(four: GameState) -> None:
    state = replace(four, phase="eclipse", agenda=(Salary(seat=0),))
    state = place(goods(state, 0, cocoa=1, vp=4), 0, (2, 4), (3, 5))
    assert RULES.legal_actions(state, 0) == [
        {"type": "pay_salary", "cocoa": 1},
        {"type": "pay_salary", "cocoa": 0},
    ]
    paid = play(state, 0, {"type": "pay_salary", "cocoa": 1})
    assert (paid.players[0].cocoa, paid.players[0].vp) == (0, 0)  # 3 unpaid → -9, floored


def test_final_ranking_breaks_ties_by_cocoa_then_turn_order(four: GameState) -> None:
    from services.games.teotihuacan.rules.tasks import EclipseEnd

    state = replace(four, eclipses=3, phase="eclipse", agenda=(EclipseEnd(seat=-1),))
    state = goods(state, 0, vp=10, cocoa=1)
    state = goods(state, 1, vp=10, cocoa=2)
    state = goods(state, 2, vp=12, cocoa=0)
    state = goods(state, 3, vp=10, cocoa=2)
    state = replace(state, agenda=(*state.agenda, Salary(seat=0)))
    state = goods(state, 0, workers=())
    state = play(state, 0, {"type": "pay_salary", "cocoa": 0})
    assert RULES.is_terminal(state)
    result = RULES.result(state)
    assert result is not None and result.ranking == (2, 1, 3, 0)
