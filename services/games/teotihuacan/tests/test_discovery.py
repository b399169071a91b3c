"""RULES.md §3 Worship modes, §4 discovery tiles (claiming, flipping, effects), D11, D12.

Worked examples are from the English rulebook (shared/seeds/002_…): the worship example
of page 13 and Common Questions EXAMPLE 1.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.domain.ruleset import RuleViolation
from services.games.teotihuacan.rules.context import Context
from services.games.teotihuacan.rules.discovery import ClaimDiscovery
from services.games.teotihuacan.rules.main_action import (
    use_extra_worker,
    workers_for_action,
)
from services.games.teotihuacan.rules.state import GameState, state_to_dict
from services.games.teotihuacan.rules.tasks import (
    BoardAction,
    PowerUps,
    ResourceChoice,
    Salary,
    TakeTurn,
)
from services.games.teotihuacan.rules.temples import MajorStepChoice

from .builders import RULES, clear_board, fold, goods, new_game, place, play, play_all, turn_of

FOREST, STONE_QUARRY, GOLD, ALCHEMY, NOBLES = 2, 3, 4, 5, 6
MASK_4 = 5  # mask 4, costs 1 wood
VP_4 = 17  # 4 VP, costs 1 wood
RESOURCES_2 = 22  # 2 resources of choice, free
AVENUE = 24  # one Avenue step, costs 1 cocoa
TEMPLE_ANY = 27
TEMPLE_BLUE = 30
COCOA_4 = 36  # +4 cocoa, costs 1 gold
POWER_UP = 39
DOUBLE_MOVE = 42
FREE_COCOA = 45
TELEPORT = 48
EXTRA_WORKER = 51


@pytest.fixture
def four() -> GameState:
    state = clear_board(new_game(seats=4, seed=1))
    for seat in range(4):
        state = place(state, seat, (NOBLES, 1))
    return state


def _tile_at(state: GameState, board: int, tile: int) -> GameState:
    worship = list(state.worship_discoveries)
    worship[board] = tile
    supply = tuple(t for t in state.discovery_supply if t != tile)
    return replace(state, worship_discoveries=tuple(worship), discovery_supply=supply)


def _refusal(state: GameState, seat: int, action: dict[str, Any]) -> RuleViolation:
    before = copy.deepcopy(state_to_dict(state))
    with pytest.raises(RuleViolation) as refused:
        RULES.decide(state, seat, action, random.Random(0))
    assert state_to_dict(state) == before
    assert "RULES.md" in refused.value.message
    return refused.value


def _types(state: GameState, seat: int, kind: str) -> list[dict[str, Any]]:
    return [a for a in RULES.legal_actions(state, seat) if a["type"] == kind]


# --- worship modes -----------------------------------------------------------------------


def test_rulebook_worship_example_displace_both_claim_then_green(four: GameState) -> None:
    # Red displaces Blue on the Stone Quarry (1), pays 1 for both, 1 for the tile, then
    # advances on the green temple gaining 2; a replacement tile is drawn.
    red, blue = 1, 3
    state = _tile_at(four, STONE_QUARRY, AVENUE)
    state = place(state, red, (FOREST, 1))
    state = place(state, blue, (STONE_QUARRY, 1, 0), (NOBLES, 1))
    state = goods(state, red, cocoa=3, temples=(0, 0, 3))
    state = turn_of(state, red)
    state = play(state, red, {"type": "move", "worker": 0, "steps": 1})
    bag = len(state.discovery_supply)
    state = play(state, red, {"type": "worship", "space": 0, "mode": "discovery_then_ability"})
    player = state.players[red]
    assert player.discoveries == (AVENUE,)
    assert player.temples == (0, 0, 4) and player.cocoa == 3 - 1 - 1 - 1 + 2
    assert not state.players[blue].workers[0].locked
    assert player.workers[0].locked
    assert state.worship_discoveries[STONE_QUARRY] not in (AVENUE, -1)
    assert len(state.discovery_supply) == bag - 1


def test_common_questions_example_1_temple_first_pays_for_the_tile(four: GameState) -> None:
    # 1 cocoa, no resources; the Gold Deposits tile costs 1 gold. Pay 1 for both, blue
    # step first → take 1 gold, then claim the tile with it.
    state = _tile_at(four, GOLD, COCOA_4)
    state = place(state, 0, (STONE_QUARRY, 1), (NOBLES, 1))
    state = goods(turn_of(state, 0), 0, cocoa=1)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    modes = [a["mode"] for a in _types(state, 0, "worship")]
    assert modes == ["ability", "ability_then_discovery"]
    state = play(state, 0, {"type": "worship", "space": 0, "mode": "ability_then_discovery"})
    assert state.players[0].cocoa == 0
    state = play(state, 0, {"type": "take_resource", "resource": "gold"})
    assert state.agenda[-1] == ClaimDiscovery(seat=0, where="worship", board=GOLD)
    assert RULES.legal_actions(state, 0) == [
        {"type": "claim_discovery", "tile": COCOA_4},
        {"type": "decline_discovery"},
    ]
    state = play(state, 0, {"type": "claim_discovery", "tile": COCOA_4})
    player = state.players[0]
    assert player.discoveries == (COCOA_4,) and player.gold == 0
    assert player.temples == (1, 0, 0)


def test_ability_first_claim_is_skipped_when_still_unaffordable(four: GameState) -> None:
    state = _tile_at(four, FOREST, COCOA_4)  # costs gold; Forest's red step gives VP only
    state = place(state, 0, (ALCHEMY - 4, 1), (NOBLES, 1))  # Palace → Forest
    state = goods(turn_of(state, 0), 0, cocoa=1)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, 0, {"type": "worship", "space": 0, "mode": "ability_then_discovery"})
    assert state.players[0].discoveries == () and state.current == 1
    assert state.worship_discoveries[FOREST] == COCOA_4


def test_claiming_a_mask_at_worship(four: GameState) -> None:
    state = _tile_at(four, FOREST, MASK_4)
    state = place(state, 0, (1, 1), (NOBLES, 1))
    state = goods(turn_of(state, 0), 0, wood=1)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, 0, {"type": "worship", "space": 0, "mode": "discovery"})
    player = state.players[0]
    assert player.masks == (MASK_4,) and player.discoveries == () and player.wood == 0
    assert player.temples == (0, 0, 0)  # discovery only: no red step


def test_discovery_mode_needs_the_cost_in_hand(four: GameState) -> None:
    state = _tile_at(four, FOREST, MASK_4)
    state = place(state, 0, (1, 1), (NOBLES, 1))
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    refused = _refusal(state, 0, {"type": "worship", "space": 0, "mode": "discovery"})
    assert refused.rule == "illegal_choice"


def test_free_cocoa_payment_covers_displacing_and_both(four: GameState) -> None:
    state = _tile_at(four, FOREST, MASK_4)
    state = place(state, 0, (1, 1), (NOBLES, 1))
    state = place(state, 1, (FOREST, 1, 0), (NOBLES, 1))
    state = goods(turn_of(state, 0), 0, wood=1, discoveries=(FREE_COCOA,))
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    assert _types(state, 0, "worship") == []  # no cocoa to displace
    state = play(state, 0, {"type": "flip_discovery", "tile": FREE_COCOA})
    state = play(state, 0, {"type": "worship", "space": 0, "mode": "discovery_then_ability"})
    player = state.players[0]
    assert player.cocoa == 0 and player.masks == (MASK_4,) and player.temples == (0, 1, 0)
    assert player.used_discoveries == (FREE_COCOA,) and player.active_effects == ()


# --- major temple steps and the Avenue ---------------------------------------------------


def _green_worship(state: GameState) -> GameState:
    state = place(state, 0, (FOREST, 1), (NOBLES, 1))
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    return play(state, 0, {"type": "worship", "space": 0, "mode": "ability"})


def _green_step_3_tiles(state: GameState, *tiles: int) -> GameState:
    temples = [list(steps) for steps in state.temple_discoveries]
    temples[2][3] = tuple(tiles)
    return replace(state, temple_discoveries=tuple(tuple(s) for s in temples))


def test_major_temple_step_claims_a_mask(four: GameState) -> None:
    state = _green_step_3_tiles(_tile_at(four, STONE_QUARRY, -1), MASK_4, COCOA_4)
    state = goods(state, 0, temples=(0, 0, 2), wood=1)
    state = _green_worship(state)
    assert state.agenda[-1] == MajorStepChoice(seat=0, temple="green", step=3)
    assert RULES.legal_actions(state, 0) == [
        {"type": "claim_discovery", "tile": MASK_4},
        {"type": "take_reward"},
    ]
    state = play(state, 0, {"type": "claim_discovery", "tile": MASK_4})
    player = state.players[0]
    assert player.masks == (MASK_4,) and player.cocoa == 0 and player.wood == 0
    assert state.temple_discoveries[2][3] == (COCOA_4,)


def test_major_temple_step_printed_reward_instead(four: GameState) -> None:
    state = _green_step_3_tiles(_tile_at(four, STONE_QUARRY, -1), MASK_4)
    state = goods(state, 0, temples=(0, 0, 2), wood=1)
    state = play(_green_worship(state), 0, {"type": "take_reward"})
    assert state.players[0].cocoa == 1 and state.temple_discoveries[2][3] == (MASK_4,)


def test_reaching_avenue_step_3_offers_its_tiles(four: GameState) -> None:
    avenue = list(four.avenue_discoveries)
    avenue[3] = (VP_4, COCOA_4)
    state = replace(four, avenue_discoveries=tuple(avenue))
    state = goods(state, 0, avenue=2, wood=1, discoveries=(AVENUE,))
    state = place(state, 0, (FOREST, 1))
    state = play(turn_of(state, 0), 0, {"type": "flip_discovery", "tile": AVENUE})
    assert state.players[0].avenue == 3
    assert [a for a in RULES.legal_actions(state, 0) if "discovery" in a["type"]] == [
        {"type": "claim_discovery", "tile": VP_4},
        {"type": "decline_discovery"},
    ]
    state = play(state, 0, {"type": "claim_discovery", "tile": VP_4})
    assert state.players[0].discoveries == (VP_4,) and state.avenue_discoveries[3] == (COCOA_4,)
    assert isinstance(state.agenda[-1], TakeTurn)


# --- flipping: immediate effects ---------------------------------------------------------


def _holding(four: GameState, *tiles: int) -> GameState:
    state = place(four, 0, (FOREST, 1), (STONE_QUARRY, 2))
    return turn_of(goods(state, 0, discoveries=tiles), 0)


def _flip(state: GameState, tile: int) -> GameState:
    return play(state, 0, {"type": "flip_discovery", "tile": tile})


def test_flips_are_listed_per_unused_non_mask_tile(four: GameState) -> None:
    state = goods(_holding(four, VP_4, COCOA_4), 0, masks=(MASK_4,))
    assert _types(state, 0, "flip_discovery") == [
        {"type": "flip_discovery", "tile": VP_4},
        {"type": "flip_discovery", "tile": COCOA_4},
    ]
    assert _types(state, 1, "flip_discovery") == []


def test_flip_vp(four: GameState) -> None:
    state = _flip(_holding(four, VP_4), VP_4)
    player = state.players[0]
    assert player.vp == 4 and player.discoveries == () and player.used_discoveries == (VP_4,)
    assert isinstance(state.agenda[-1], TakeTurn)  # still the seat's turn


def test_flip_cocoa(four: GameState) -> None:
    assert _flip(_holding(four, COCOA_4), COCOA_4).players[0].cocoa == 4


def test_flip_resources_of_choice(four: GameState) -> None:
    state = _flip(_holding(four, RESOURCES_2), RESOURCES_2)
    assert state.agenda[-1] == ResourceChoice(seat=0, count=2)
    state = play_all(
        state,
        0,
        {"type": "take_resource", "resource": "stone"},
        {"type": "take_resource", "resource": "gold"},
    )
    assert (state.players[0].stone, state.players[0].gold) == (1, 1)
    assert isinstance(state.agenda[-1], TakeTurn)


def test_flip_avenue_step(four: GameState) -> None:
    assert _flip(_holding(four, AVENUE), AVENUE).players[0].avenue == 1


def test_flip_temple_of_choice_and_fixed_temple(four: GameState) -> None:
    state = _flip(_holding(four, TEMPLE_ANY, TEMPLE_BLUE), TEMPLE_ANY)
    state = play(state, 0, {"type": "advance_temple", "temple": "red"})
    state = _flip(state, TEMPLE_BLUE)
    state = play(state, 0, {"type": "take_resource", "resource": "wood"})
    player = state.players[0]
    assert player.temples == (1, 1, 0) and player.vp == 1 and player.wood == 1


def test_flip_power_up_on_any_unlocked_workers(four: GameState) -> None:
    state = _flip(_holding(four, POWER_UP), POWER_UP)
    assert state.agenda[-1] == PowerUps(seat=0, board=0, count=2)
    state = play_all(state, 0, {"type": "power_up", "worker": 0}, {"type": "power_up", "worker": 1})
    assert [w.power for w in state.players[0].workers[:2]] == [2, 3]


# --- flipping: turn effects ----------------------------------------------------------------


def test_double_move_moves_two_workers_of_one_board(four: GameState) -> None:
    state = place(four, 0, (FOREST, 1), (FOREST, 2))
    state = place(state, 1, (STONE_QUARRY, 1), (NOBLES, 1))
    state = turn_of(goods(state, 0, discoveries=(DOUBLE_MOVE,)), 0)
    state = _flip(state, DOUBLE_MOVE)
    assert {"type": "move", "worker": 0, "steps": 1, "with_workers": [1]} in (
        RULES.legal_actions(state, 0)
    )
    assert {"type": "move", "worker": 1, "steps": 1, "with_workers": [0]} not in (
        RULES.legal_actions(state, 0)
    )
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1, "with_workers": [1]})
    assert state.agenda[-1] == BoardAction(seat=0, board=STONE_QUARRY, workers=(0, 1))
    assert state.players[0].active_effects == ()
    state = play(state, 0, {"type": "collect_cocoa"})
    assert state.players[0].cocoa == 1 + 1  # only seat 1 counts; both movers excluded
    assert all(w.board == STONE_QUARRY for w in state.players[0].workers[:2])


def test_teleport_moves_to_any_board(four: GameState) -> None:
    state = place(four, 0, (FOREST, 1))
    state = turn_of(goods(state, 0, discoveries=(TELEPORT,)), 0)
    state = _flip(state, TELEPORT)
    boards = [a["board"] for a in _types(state, 0, "teleport")]
    assert sorted(boards) == [1, 2, 3, 4, 5, 6, 7, 8]  # D15: its own board (2) included
    state = play(state, 0, {"type": "teleport", "worker": 0, "board": GOLD})
    assert state.agenda[-1] == BoardAction(seat=0, board=GOLD, workers=(0,))
    assert state.players[0].active_effects == ()


def test_d15_teleport_to_its_own_board_is_a_lap_and_the_worker_does_not_count_itself(
    four: GameState,
) -> None:
    # D15: "A teleport may move the worker to any action board, its own included (a full
    # lap). Arriving on its own board, the worker does not count itself for the main
    # action's cost." A full lap goes onto the Palace: technology #1 (slot 0) pays 1 cocoa.
    state = place(four, 0, (FOREST, 1))
    state = place(state, 1, (FOREST, 1))
    state = goods(state, 0, discoveries=(TELEPORT,), wood=2, technologies=(0,))
    state = _flip(turn_of(state, 0), TELEPORT)
    state = play(state, 0, {"type": "teleport", "worker": 0, "board": FOREST})
    assert state.agenda[-1] == BoardAction(seat=0, board=FOREST, workers=(0,))
    assert state.players[0].workers[0].board == FOREST
    assert state.players[0].cocoa == 1  # technology #1: the lap passed the Palace
    state = play(state, 0, {"type": "collect_cocoa"})
    assert state.players[0].cocoa == 1 + (1 + 1)  # X = 1: seat 1's colour, not its own


def test_d15_teleport_to_its_own_board_for_the_main_action(four: GameState) -> None:
    # Forest's main action with the worker alone there again: X = 0 colours, so it is free,
    # and the worker counts as "your worker on the board" (1 worker, lowest power 1).
    state = place(four, 0, (FOREST, 1))
    state = goods(state, 0, discoveries=(TELEPORT,))
    state = _flip(turn_of(state, 0), TELEPORT)
    state = play(state, 0, {"type": "teleport", "worker": 0, "board": FOREST})
    assert state.players[0].cocoa == 0
    assert {"type": "main_action"} in RULES.legal_actions(state, 0)  # cost X = 0
    state = play(state, 0, {"type": "main_action"})
    assert state.players[0].workers[0].power == 2  # "power up once (1-2 workers)"


def test_teleport_and_double_move_refused_without_their_tiles(four: GameState) -> None:
    state = _holding(four)
    assert _refusal(state, 0, {"type": "teleport", "worker": 0, "board": 8}).rule == (
        "wrong_decision"
    )
    move = {"type": "move", "worker": 0, "steps": 1, "with_workers": [1]}
    assert _refusal(state, 0, move).rule == "no_double_move"


def test_free_cocoa_payment_at_a_main_action(four: GameState) -> None:
    state = place(four, 0, (1, 2))
    state = place(state, 1, (FOREST, 1))
    state = place(state, 2, (FOREST, 1))
    state = turn_of(goods(state, 0, discoveries=(FREE_COCOA,)), 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    assert {"type": "main_action"} not in RULES.legal_actions(state, 0)
    state = _flip(state, FREE_COCOA)
    state = play(state, 0, {"type": "main_action"})
    player = state.players[0]
    assert player.cocoa == 0 and player.wood == 1 and player.active_effects == ()


def test_extra_worker_counts_on_alchemy_and_the_helper_spends_it(four: GameState) -> None:
    state = place(four, 0, (ALCHEMY, 1))
    state = _flip(turn_of(goods(state, 0, discoveries=(EXTRA_WORKER,)), 0), EXTRA_WORKER)
    assert workers_for_action(state, 0, ALCHEMY) == 2
    assert workers_for_action(state, 0, FOREST) == 0
    ctx = Context(state, random.Random(0))
    use_extra_worker(ctx, 0, FOREST)
    assert ctx.events == []
    use_extra_worker(ctx, 0, ALCHEMY)
    state = fold(ctx.events, state)
    assert state.players[0].active_effects == ()
    assert workers_for_action(state, 0, ALCHEMY) == 1


def test_unused_turn_effects_expire_with_the_turn(four: GameState) -> None:
    state = _flip(_holding(four, TELEPORT), TELEPORT)
    state = play(state, 0, {"type": "unlock"})
    assert state.players[0].active_effects == () and state.current == 1


def test_flipping_a_tile_not_held_is_refused(four: GameState) -> None:
    refused = _refusal(_holding(four, VP_4), 0, {"type": "flip_discovery", "tile": COCOA_4})
    assert refused.rule == "free_action_not_allowed"


# --- salary (D12) --------------------------------------------------------------------------


def _salary(four: GameState, *tiles: int, cocoa: int = 0) -> GameState:
    state = replace(four, phase="eclipse", agenda=(Salary(seat=0),))
    return place(goods(state, 0, cocoa=cocoa, vp=10, discoveries=tiles), 0, (2, 4), (3, 1))


def test_salary_may_be_paid_by_a_free_cocoa_payment_tile(four: GameState) -> None:
    state = _salary(four, FREE_COCOA, VP_4)
    assert _types(state, 0, "flip_discovery") == [{"type": "flip_discovery", "tile": FREE_COCOA}]
    state = _flip(state, FREE_COCOA)
    player = state.players[0]
    assert (player.cocoa, player.vp, player.active_effects) == (0, 10, ())
    assert not any(isinstance(t, Salary) for t in state.agenda)


def test_salary_step_allows_flipping_cocoa_only_among_effects(four: GameState) -> None:
    state = _salary(four, COCOA_4, VP_4)
    assert _refusal(state, 0, {"type": "flip_discovery", "tile": VP_4}).rule == (
        "free_action_not_allowed"
    )
    state = _flip(state, COCOA_4)
    state = play(state, 0, {"type": "pay_salary", "cocoa": 3})
    assert (state.players[0].cocoa, state.players[0].vp) == (1, 10)


def test_stacked_double_moves_and_teleport_combine(four: GameState) -> None:
    state = place(four, 0, (FOREST, 1), (FOREST, 2), (FOREST, 3))
    tiles = (DOUBLE_MOVE, DOUBLE_MOVE + 1, TELEPORT)
    state = turn_of(goods(state, 0, discoveries=tiles), 0)
    for tile in tiles:
        state = _flip(state, tile)
    action = {"type": "teleport", "worker": 0, "board": GOLD, "with_workers": [1, 2]}
    assert action in RULES.legal_actions(state, 0)
    state = play(state, 0, action)
    assert state.agenda[-1] == BoardAction(seat=0, board=GOLD, workers=(0, 1, 2))
    assert state.players[0].active_effects == ()


def test_a_single_forced_option_waits_while_the_seat_may_flip(four: GameState) -> None:
    state = place(four, 0, (1, 2), (NOBLES, 1))
    state = turn_of(goods(state, 0, discoveries=(VP_4,)), 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, 0, {"type": "main_action"})
    # One eligible worker on the Forest: without a flippable tile this would resolve itself.
    assert state.agenda[-1] == PowerUps(seat=0, board=FOREST, count=1)
    state = _flip(state, VP_4)
    assert state.players[0].vp == 4 and state.current == 1


@settings(max_examples=25, deadline=None)
@given(board=st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8]))
def test_d15_property_a_teleport_reaches_every_action_board(board: int) -> None:
    # "A teleport may move the worker to any action board, its own included."
    state = clear_board(new_game(seats=4, seed=1))
    state = place(state, 0, (board, 2))
    state = _flip(turn_of(goods(state, 0, discoveries=(TELEPORT,)), 0), TELEPORT)
    boards = sorted(a["board"] for a in _types(state, 0, "teleport"))
    assert boards == [1, 2, 3, 4, 5, 6, 7, 8]
    events = RULES.decide(
        state, 0, {"type": "teleport", "worker": 0, "board": board}, random.Random(0)
    )
    (moved,) = [e.payload for e in events if e.type == "WorkerMoved"]
    assert (moved["from_board"], moved["to_board"]) == (board, board)
    assert fold(events, state).players[0].workers[0].board == board
