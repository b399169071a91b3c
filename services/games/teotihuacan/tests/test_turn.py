"""RULES.md §2-3: unlocking, movement, collect cocoa, main-action cost, harvest, worship.

Worked examples are from the English rulebook (shared/seeds/002_…).
"""

from __future__ import annotations

import pytest

from services.games.teotihuacan.rules.tasks import BoardAction, PowerUps, TakeTurn

from .builders import RULES, clear_board, goods, new_game, place, play, turn_of

STONE_QUARRY, FOREST, GOLD, PALACE = 3, 2, 4, 1


@pytest.fixture
def four() -> object:
    state = clear_board(new_game(seats=4, seed=1))
    for seat in range(4):
        # A worker on Nobles (6), which no test here visits, so every seat has a turn to take.
        state = place(goods(state, seat, cocoa=5), seat, (6, 1))
    return state


def test_collect_cocoa_counts_other_unlocked_colours_only(four) -> None:  # type: ignore[no-untyped-def]
    # Rulebook: Red and Yellow unlocked, Blue locked on the worship space → Black collects 3.
    black, red, yellow, blue = 0, 1, 2, 3
    state = place(four, black, (FOREST, 1))
    state = place(state, red, (STONE_QUARRY, 1))
    state = place(state, yellow, (STONE_QUARRY, 2))
    state = place(state, blue, (STONE_QUARRY, 1, 0))
    state = turn_of(state, black)
    state = play(state, black, {"type": "move", "worker": 0, "steps": 1})
    assert isinstance(state.agenda[-1], BoardAction)
    state = play(state, black, {"type": "collect_cocoa"})
    assert state.players[black].cocoa == 5 + 3


def test_main_action_cost_counts_the_movers_own_earlier_worker(four) -> None:  # type: ignore[no-untyped-def]
    # Rulebook: Red, Yellow and Black's earlier worker unlocked, Blue locked → cost 3.
    black, red, yellow, blue = 0, 1, 2, 3
    state = place(four, black, (FOREST, 1), (STONE_QUARRY, 2))
    state = place(state, red, (STONE_QUARRY, 1))
    state = place(state, yellow, (STONE_QUARRY, 1))
    state = place(state, blue, (STONE_QUARRY, 1, 0))
    state = turn_of(state, black)
    state = play(state, black, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, black, {"type": "main_action"})
    player = state.players[black]
    # Two own workers, lowest power 1 → 1 stone; cost 3 paid first.
    assert (player.cocoa, player.stone) == (5 - 3, 1)
    assert state.agenda[-1] == PowerUps(seat=black, board=STONE_QUARRY, count=1)


def test_main_action_needs_the_cost_in_hand(four) -> None:  # type: ignore[no-untyped-def]
    state = place(four, 0, (FOREST, 1))
    state = place(state, 1, (STONE_QUARRY, 1))
    state = goods(turn_of(state, 0), 0, cocoa=0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    assert {"type": "main_action"} not in RULES.legal_actions(state, 0)


def test_forest_with_powers_two_and_five_gives_two_wood_and_one_power_up(four) -> None:  # type: ignore[no-untyped-def]
    # Rulebook: two workers, powers 2 and 5 → lower value 2 → 2 wood, power up once.
    state = place(four, 0, (PALACE, 2), (FOREST, 5))
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, 0, {"type": "main_action"})
    assert state.players[0].wood == 2
    assert RULES.legal_actions(state, 0) == [
        {"type": "power_up", "worker": 0},
        {"type": "power_up", "worker": 1},
    ]
    state = play(state, 0, {"type": "power_up", "worker": 0})
    assert state.players[0].workers[0].power == 3
    assert isinstance(state.agenda[-1], TakeTurn) and state.current == 1


def test_three_workers_power_up_twice_and_gold_gives_temple_steps(four) -> None:  # type: ignore[no-untyped-def]
    state = place(four, 0, (STONE_QUARRY, 4), (GOLD, 5), (GOLD, 4))
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, 0, {"type": "main_action"})
    # Three workers, lowest power 4 → 4 gold and two steps on temples of choice.
    assert state.players[0].gold == 4
    state = play(state, 0, {"type": "advance_temple", "temple": "red"})
    state = play(state, 0, {"type": "advance_temple", "temple": "green"})
    assert state.players[0].temples == (0, 1, 1)
    # Cost 1 (own colour already there), red step +1 VP, green step +1 cocoa.
    assert state.players[0].vp == 1 and state.players[0].cocoa == 5 - 1 + 1
    assert state.agenda[-1] == PowerUps(seat=0, board=GOLD, count=2)


def test_free_unlock_ends_the_turn_and_pay_unlock_keeps_it(four) -> None:  # type: ignore[no-untyped-def]
    state = place(four, 0, (FOREST, 1, 0), (GOLD, 1, 0))
    state = turn_of(state, 0)
    legal = RULES.legal_actions(state, 0)
    assert {"type": "unlock"} in legal and {"type": "pay_unlock"} in legal
    assert not [a for a in legal if a["type"] == "move"]
    paid = play(state, 0, {"type": "pay_unlock"})
    assert paid.players[0].cocoa == 5 - 3 and paid.current == 0
    assert {"type": "move", "worker": 0, "steps": 1} in RULES.legal_actions(paid, 0)
    free = play(state, 0, {"type": "unlock"})
    assert free.players[0].cocoa == 5 and free.current == 1
    assert not any(w.locked for w in free.players[0].workers)


def test_worship_displaces_another_colour_for_one_cocoa(four) -> None:  # type: ignore[no-untyped-def]
    # Rulebook: Red worships on the Stone Quarry where Blue is locked: pays 1, Blue unlocks.
    red, blue = 1, 3
    state = place(four, red, (FOREST, 1))
    state = place(state, blue, (STONE_QUARRY, 2, 0))
    state = turn_of(state, red)
    state = play(state, red, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, red, {"type": "worship", "space": 0, "mode": "ability"})
    assert state.players[red].workers[0].locked
    assert not state.players[blue].workers[0].locked
    assert state.players[blue].workers[0].board == STONE_QUARRY
    # Paid 1 to displace; green step 1 gives 1 cocoa back.
    assert state.players[red].cocoa == 5 - 1 + 1
    assert state.players[red].temples == (0, 0, 1)


def test_own_worker_can_only_be_displaced_with_advanced_worship() -> None:
    for advanced in (False, True):
        state = clear_board(new_game(seats=2, seed=2, advanced_worship=advanced))
        state = place(state, 0, (FOREST, 1), (STONE_QUARRY, 1, 0))
        state = turn_of(goods(state, 0, cocoa=0), 0)
        state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
        worship = {"type": "worship", "space": 0, "mode": "ability"}
        assert (worship in RULES.legal_actions(state, 0)) is advanced


def test_advanced_worship_gains_a_cocoa_for_displacing() -> None:
    state = clear_board(new_game(seats=2, seed=2, advanced_worship=True))
    state = place(state, 0, (FOREST, 1))
    state = place(state, 1, (GOLD, 1, 0))
    state = turn_of(goods(state, 0, cocoa=0), 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 2})
    state = play(state, 0, {"type": "worship", "space": 0, "mode": "ability"})
    assert state.players[0].cocoa == 1
    # Gold Deposits' worship: one blue step, a resource of choice.
    assert RULES.legal_actions(state, 0)[0] == {"type": "take_resource", "resource": "wood"}


def test_moving_past_the_palace_with_technology_one_gives_cocoa(four) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    state = place(four, 0, (8, 1))
    state = state.with_player(0, replace(state.players[0], technologies=(0,)))  # slot 0: #1
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 2})
    assert state.players[0].workers[0].board == FOREST
    assert state.players[0].cocoa == 5 + 1
