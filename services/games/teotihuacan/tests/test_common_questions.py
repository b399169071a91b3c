"""The English rulebook's "Common Questions" examples: paying with what an earlier step of
the same action gave (RULES.md §3: resources gained in one step may pay for later steps)."""

from __future__ import annotations

from dataclasses import replace

from services.games.teotihuacan.rules.state import GameState

from .builders import RULES, clear_board, goods, new_game, place, play, turn_of

GOLD_DEPOSITS, CONSTRUCTION, NOBLES = 4, 8, 6
RED = 1


def _seat_one_waits(state: GameState) -> GameState:
    return place(state, 1, (NOBLES, 1))


def test_example_1_worship_both_options_pays_the_tile_with_the_temple_reward() -> None:
    # 1 cocoa, no resources: worship on Gold Deposits taking both options (1 cocoa),
    # temple first (blue step: take 1 gold), then claim the tile costing 1 gold with it.
    state = _seat_one_waits(clear_board(new_game(seats=2, seed=5)))
    cocoa_tile = 36  # the "+4 cocoa" discovery tile costs 1 gold
    worship = list(state.worship_discoveries)
    worship[GOLD_DEPOSITS] = cocoa_tile
    supply = tuple(t for t in state.discovery_supply if t != cocoa_tile)
    state = replace(state, worship_discoveries=tuple(worship), discovery_supply=supply)
    state = goods(place(state, 0, (3, 1)), 0, cocoa=1)
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    both = {"type": "worship", "space": 0, "mode": "ability_then_discovery"}
    assert both in RULES.legal_actions(state, 0)
    state = play(state, 0, both)
    assert state.players[0].cocoa == 0 and state.players[0].temples[0] == 1
    state = play(state, 0, {"type": "take_resource", "resource": "gold"})
    assert state.players[0].gold == 1
    state = play(state, 0, {"type": "claim_discovery", "tile": cocoa_tile})
    assert cocoa_tile in state.players[0].discoveries and state.players[0].gold == 0


def test_example_2_a_claimed_tile_flipped_mid_construction_pays_the_next_tile() -> None:
    # Second worker on Construction, 3 stone after the cost: tile 1 on level 1 (2 stone)
    # matches a coloured red icon → red step to the major step 5 → claim the tile giving a
    # blue step → Pyramid track; 1 stone left, flip the tile: blue step, take a stone;
    # then pay 2 stone for a second tile.
    blue_step_tile = 30  # discovery tile: one blue temple step, free
    state = _seat_one_waits(clear_board(new_game(seats=2, seed=5)))
    temples = [list(steps) for steps in state.temple_discoveries]
    temples[RED][5] = (blue_step_tile,)
    supply = tuple(t for t in state.discovery_supply if t != blue_step_tile)
    state = replace(
        state,
        temple_discoveries=tuple(tuple(steps) for steps in temples),
        discovery_supply=supply,
        pyramid_offer=(0, 3, 12),  # "b-Rg", "g-bR", "g-R-": coloured red icons
    )
    state = goods(state, 0, stone=3, cocoa=5, temples=(0, 4, 0))
    state = turn_of(place(state, 0, (7, 1), (CONSTRUCTION, 1)), 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    state = play(state, 0, {"type": "main_action"})
    cocoa_after_cost = state.players[0].cocoa

    placements = [a for a in RULES.legal_actions(state, 0) if a["type"] == "place_pyramid_tile"]
    placed = None
    for action in placements:
        after = play(state, 0, action)
        if after.players[0].temples[RED] == 5:
            placed = after
            break
    assert placed is not None, "some placement matches a coloured red icon"
    state = placed
    assert state.players[0].stone == 1
    assert {"type": "claim_discovery", "tile": blue_step_tile} in RULES.legal_actions(state, 0)
    state = play(state, 0, {"type": "claim_discovery", "tile": blue_step_tile})
    # The Pyramid track step follows the temple step; then the second tile is unaffordable...
    assert state.players[0].pyramid == 1
    legal = RULES.legal_actions(state, 0)
    assert not [a for a in legal if a["type"] == "place_pyramid_tile"]
    # ...but the decision stays open because the seat can flip the tile it just claimed.
    assert {"type": "flip_discovery", "tile": blue_step_tile} in legal
    state = play(state, 0, {"type": "flip_discovery", "tile": blue_step_tile})
    assert state.players[0].temples[0] == 1
    state = play(state, 0, {"type": "take_resource", "resource": "stone"})
    assert state.players[0].stone == 2
    second = [a for a in RULES.legal_actions(state, 0) if a["type"] == "place_pyramid_tile"]
    assert second
    state = play(state, 0, second[0])
    assert state.players[0].stone == 0 and state.players[0].pyramid == 2
    assert state.players[0].cocoa <= cocoa_after_cost
