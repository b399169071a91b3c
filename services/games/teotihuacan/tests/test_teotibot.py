"""Teotibot, the solo opponent (RULES.md §8, D5-D7): setup, each action tile and fallback,
the action pyramid, displacement, salaries and final scoring, from constructed states."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.domain.ruleset import DomainEvent, InvalidOptions, RuleViolation, SetupRequest
from services.games.teotihuacan.rules import pyramid
from services.games.teotihuacan.rules.solo.action_pyramid import flip, position_for, shift
from services.games.teotihuacan.rules.solo.seat import ACTION_TILES, TeotibotTurn
from services.games.teotihuacan.rules.state import GameState
from services.games.teotihuacan.rules.tasks import kind_of

from .builders import (
    RULES,
    fold,
    goods,
    new_game,
    place,
    with_buildings,
    with_leftmost_buildings,
)

BOT, HUMAN = 1, 0
TURN = {"type": "teotibot_turn"}


def solo(seed: int = 0, **options: Any) -> GameState:
    """A first-game solo setup, waiting on the human's first turn."""
    return new_game(2, seed, solo=True, **options)


def bot_turn(state: GameState, tile: str, seed: int = 0) -> tuple[list[DomainEvent], GameState]:
    """Teotibot's turn with ``tile`` on every pyramid position (any roll picks it)."""
    state = replace(
        state, teotibot_tiles=(tile,) * 6, current=BOT, agenda=(TeotibotTurn(seat=BOT),)
    )
    events = RULES.decide(state, BOT, TURN, random.Random(seed))
    return events, fold(events, state)


def chosen(events: list[DomainEvent]) -> dict[str, Any]:
    (event,) = [e for e in events if e.type == "TeotibotActionChosen"]
    return dict(event.payload)


def bot_workers(state: GameState, *workers: tuple[int, int] | tuple[int, int, int]) -> GameState:
    return place(state, BOT, *workers)


def test_solo_setup_follows_the_solo_rules() -> None:
    state = fold(
        RULES.setup(SetupRequest(2, {"solo": True, "first_game": False}), random.Random(3))
    )
    bot, human = state.players[BOT], state.players[HUMAN]
    assert state.turn_order == (HUMAN, BOT) and state.dark == 10
    assert (bot.cocoa, bot.wood, bot.stone, bot.gold) == (0, 2, 2, 2)
    assert bot.temples == (1, 1, 1) and bot.avenue == 1 and bot.pyramid == 0
    assert bot.technologies == (2,) and not bot.starting_tiles
    assert [(w.board, w.power, w.locked) for w in bot.workers] == [
        (4, 2, False),
        (6, 2, False),
        (8, 2, False),
        (7, 1, True),
    ]
    assert human.cocoa == 1 and len(human.starting_tiles) == 4
    assert sorted((*state.teotibot_tiles, state.teotibot_set_aside)) == sorted(ACTION_TILES)
    assert len(state.teotibot_directions) == 2
    assert {c for c, _ in state.neutral_workers} == {2, 3}
    assert RULES.seats_to_act(state) == (HUMAN,)


def test_difficulty_knobs_change_the_start_and_are_validated() -> None:
    options = {"power_nobles": 1, "power_construction": -1, "resources": -1}
    state = solo(teotibot=options)
    bot = state.players[BOT]
    assert [w.power for w in bot.workers] == [2, 3, 1, 1] and bot.wood == 1
    with pytest.raises(InvalidOptions):
        RULES.setup(SetupRequest(2, {"solo": True, "teotibot": {"cocoa_vp": 3}}), random.Random())
    with pytest.raises(InvalidOptions):
        RULES.setup(SetupRequest(3, {"solo": True}), random.Random())


def test_the_bot_seat_has_exactly_one_action_and_waits_for_it() -> None:
    state = fold(RULES.decide(solo(), HUMAN, {"type": "unlock"}, random.Random(0)), solo())
    assert RULES.seats_to_act(state) == (BOT,)
    assert RULES.legal_actions(state, BOT) == [TURN]
    assert RULES.legal_actions(state, HUMAN) == []
    with pytest.raises(RuleViolation):
        RULES.decide(state, HUMAN, TURN, random.Random(0))
    events = RULES.decide(state, BOT, TURN, random.Random(0))
    rolled = next(e for e in events if e.type == "TeotibotDiceRolled").payload
    assert rolled["position"] == position_for(rolled["total"])
    assert rolled["tile"] == state.teotibot_tiles[rolled["position"] - 1]
    after = fold(events, state)
    assert after.light == state.light + 1 or after.eclipse_countdown  # the round's calendar step
    assert RULES.seats_to_act(after) == (HUMAN,)


# --- Construction -------------------------------------------------------------------------


def test_construction_places_the_first_offered_tile_on_the_lowest_top_left_slot() -> None:
    state = goods(bot_workers(solo(), (8, 2), (6, 2), (4, 2), (7, 1, 0)), BOT, stone=2)
    slot = pyramid.legal_slots(state.pyramid_tiles)[0]
    first = state.pyramid_offer[0]
    events, after = bot_turn(state, "construction")
    assert chosen(events)["step"] == "main"
    placed = next(e for e in events if e.type == "PyramidTilePlaced").payload
    assert (placed["tile"], placed["level"], placed["row"], placed["col"]) == (first, *slot)
    bot = after.players[BOT]
    assert bot.pyramid == 1 and bot.vp == pyramid.level_vp(slot[0]) + 2
    # any temple, ties blue: blue step 2 gives the resource it has fewest of (stone, 0 → 1)
    assert bot.temples == (2, 1, 1) and bot.stone == 1
    assert first not in after.pyramid_offer and len(after.pyramid_offer) == 3
    # the worker on Construction: power 3, advanced 1 board past the Palace to Forest (2)
    assert after.players[BOT].workers[0].power == 3 and after.players[BOT].workers[0].board == 2


def test_construction_with_1_stone_and_a_quarry_worker_takes_2_stone() -> None:
    state = goods(bot_workers(solo(), (3, 2), (6, 2), (8, 2), (7, 1, 0)), BOT, stone=1)
    events, after = bot_turn(state, "construction")
    assert chosen(events)["step"] == "harvest" and chosen(events)["board"] == 3
    worker = after.players[BOT].workers[0]
    assert after.players[BOT].stone == 3 and (worker.power, worker.board) == (3, 4)


def test_construction_fallback_gains_5_cocoa_and_moves_the_lowest_worker() -> None:
    state = goods(bot_workers(solo(), (4, 3), (6, 2), (5, 2), (7, 1, 0)), BOT, stone=0)
    events, after = bot_turn(state, "construction")
    assert chosen(events)["step"] == "fallback"
    # lowest power 2: Alchemy (5) is nearer clockwise from the Palace than Nobles (6)
    assert after.players[BOT].cocoa == 5
    assert (after.players[BOT].workers[2].power, after.players[BOT].workers[2].board) == (3, 6)


# --- Decorations -----------------------------------------------------------------------


def test_decorations_places_the_first_decoration_clockwise_from_the_top() -> None:
    state = goods(bot_workers(solo(), (7, 2), (6, 2), (8, 2), (3, 1, 0)), BOT, gold=2)
    first = state.decoration_offer[0]
    events, after = bot_turn(state, "decorations")
    assert chosen(events)["step"] == "main"
    placed = next(e for e in events if e.type == "DecorationPlaced").payload
    assert placed["tile"] == first and placed["side"] == "top"
    bot = after.players[BOT]
    assert bot.vp == 5 and bot.pyramid == 1
    assert bot.temples == (2, 1, 1) and bot.gold == 1  # blue step: fewest resource, ties gold


def test_decorations_without_gold_harvests_on_gold_deposits_else_falls_back() -> None:
    state = goods(bot_workers(solo(), (7, 2), (4, 4), (8, 2), (3, 1, 0)), BOT, gold=1)
    events, after = bot_turn(state, "decorations")
    assert chosen(events)["step"] == "harvest"
    # power 4 → 5, then skips one board: Gold Deposits (4) → Nobles (6)
    assert after.players[BOT].gold == 3 and after.players[BOT].workers[1].board == 6
    state = goods(bot_workers(solo(), (7, 2), (6, 4), (8, 2), (3, 1, 0)), BOT, gold=1)
    assert chosen(bot_turn(state, "decorations")[0])["step"] == "fallback"


# --- Alchemy ----------------------------------------------------------------------------


def test_alchemy_takes_the_lowest_technology_without_markers() -> None:
    state = goods(bot_workers(solo(), (5, 2), (6, 2), (8, 2), (7, 1, 0)), BOT, gold=1)
    events, after = bot_turn(state, "alchemy")
    assert chosen(events)["step"] == "main"
    acquired = next(e for e in events if e.type == "TechnologyAcquired").payload
    numbers = [tech_number(state, s) for s in range(6) if s != 2]
    assert tech_number(state, acquired["slot"]) == min(numbers)
    # the technology's column temple: blue step 2 gives back 1 gold (fewest, ties gold)
    assert acquired["gold_paid"] == 1 and after.players[BOT].temples[0] == 2


def tech_number(state: GameState, slot: int) -> int:
    from services.games.teotihuacan.rules.components import components

    return int(components().raw["technologies"][state.technologies[slot]]["number"])


def test_alchemy_when_the_human_has_every_other_technology_scores_the_human_3_vp() -> None:
    state = goods(bot_workers(solo(), (5, 2), (6, 2), (8, 2), (7, 1, 0)), BOT, gold=1)
    state = goods(state, HUMAN, technologies=(0, 1, 3, 4, 5), vp=10)
    events, after = bot_turn(state, "alchemy")
    acquired = next(e for e in events if e.type == "TechnologyAcquired").payload
    lowest = min((0, 1, 3, 4, 5), key=lambda s: tech_number(state, s))
    assert acquired["slot"] == lowest
    assert after.players[HUMAN].vp == 13


def test_alchemy_fallback_powers_up_the_lowest_worker_twice_without_moving() -> None:
    state = goods(bot_workers(solo(), (4, 2), (6, 3), (8, 2), (7, 1, 0)), BOT, gold=0)
    events, after = bot_turn(state, "alchemy")
    assert chosen(events)["step"] == "power_up_twice"
    assert (after.players[BOT].workers[0].power, after.players[BOT].workers[0].board) == (4, 4)


# --- Nobles -----------------------------------------------------------------------------


def test_nobles_builds_on_the_row_of_the_era_and_advances_the_avenue() -> None:
    state = goods(bot_workers(solo(), (6, 2), (4, 2), (8, 2), (7, 1, 0)), BOT, wood=2)
    state = replace(state, eclipses=1)
    events, after = bot_turn(state, "nobles")
    built = next(e for e in events if e.type == "BuildingBuilt").payload
    assert built["row"] == "middle" and built["vp"] == 5
    assert after.players[BOT].avenue == 2 and after.players[BOT].wood == 0


def test_nobles_full_row_takes_the_lowest_vp_space_of_all_rows() -> None:
    # §8: "if that row is full, on the lowest-VP empty space of all rows"; Korean solo rules:
    # "줄이 다 차면, 세줄 중에서 가장 승점이 낮은 칸에 지어요". The rows read top 3, 2, 2, 1, 1;
    # middle 5, 4, 3, 3; bottom 7, 6, 5: with the middle full, the lowest is a 1 of the top
    # row, its 4th space (not the row's leftmost, worth 3).
    state = goods(bot_workers(solo(), (6, 2), (4, 2), (8, 2), (7, 1, 0)), BOT, wood=4)
    state = replace(with_leftmost_buildings(state, (0, 4, 0)), buildings_taken=4, eclipses=1)
    events, after = bot_turn(state, "nobles")
    built = next(e for e in events if e.type == "BuildingBuilt").payload
    assert (built["row"], built["space"], built["vp"]) == ("top", 3, 1)
    assert after.nobles_built == ((3,), (0, 1, 2, 3), ()) and after.players[BOT].vp == 1
    # The next one: the other 1 VP space; then the 2s, left first (ties: the left space).
    state = replace(with_buildings(state, (3,), (0, 1, 2, 3), ()), buildings_taken=5)
    built = next(e for e in bot_turn(state, "nobles")[0] if e.type == "BuildingBuilt").payload
    assert (built["row"], built["space"], built["vp"]) == ("top", 4, 1)
    state = replace(with_buildings(state, (3, 4), (0, 1, 2, 3), ()), buildings_taken=6)
    built = next(e for e in bot_turn(state, "nobles")[0] if e.type == "BuildingBuilt").payload
    assert (built["row"], built["space"], built["vp"]) == ("top", 1, 2)


def test_nobles_full_row_may_take_a_space_of_a_lower_row() -> None:
    # After the 2nd eclipse the bot builds on the bottom row; full, with the top row full
    # too and the middle row's 3s built, the lowest empty space is the middle row's 4.
    state = goods(bot_workers(solo(), (6, 2), (4, 2), (8, 2), (7, 1, 0)), BOT, wood=2)
    state = with_buildings(state, (0, 1, 2, 3, 4), (2, 3), (0, 1, 2))
    state = replace(state, buildings_taken=10, eclipses=2)
    built = next(e for e in bot_turn(state, "nobles")[0] if e.type == "BuildingBuilt").payload
    assert (built["row"], built["space"], built["vp"]) == ("middle", 1, 4)


def test_nobles_in_its_era_row_builds_on_the_leftmost_empty_space() -> None:
    state = goods(bot_workers(solo(), (6, 2), (4, 2), (8, 2), (7, 1, 0)), BOT, wood=2)
    state = replace(with_buildings(state, (0, 3, 4), (), ()), buildings_taken=3)
    built = next(e for e in bot_turn(state, "nobles")[0] if e.type == "BuildingBuilt").payload
    assert (built["row"], built["space"], built["vp"]) == ("top", 1, 2)


def test_nobles_without_wood_harvests_on_forest() -> None:
    state = goods(bot_workers(solo(), (2, 2), (4, 2), (8, 2), (7, 1, 0)), BOT, wood=0)
    events, after = bot_turn(state, "nobles")
    assert chosen(events)["step"] == "harvest" and after.players[BOT].wood == 2


@settings(max_examples=60, deadline=None)
@given(built=st.lists(st.booleans(), min_size=12, max_size=12), eclipses=st.integers(0, 2))
def test_nobles_property_the_bot_builds_on_an_empty_space_and_the_lowest_when_full(
    built: list[bool], eclipses: int
) -> None:
    spaces = {"top": [3, 2, 2, 1, 1], "middle": [5, 4, 3, 3], "bottom": [7, 6, 5]}
    flags = iter(built)
    rows = {row: tuple(k for k in range(len(vps)) if next(flags)) for row, vps in spaces.items()}
    taken = sum(len(r) for r in rows.values())
    state = goods(bot_workers(solo(), (6, 2), (4, 2), (8, 2), (7, 1, 0)), BOT, wood=2)
    state = with_buildings(state, rows["top"], rows["middle"], rows["bottom"])
    state = replace(state, buildings_taken=min(taken, 10), eclipses=eclipses)
    empty = [
        (vp, row, k)
        for row, vps in spaces.items()
        for k, vp in enumerate(vps)
        if k not in rows[row]
    ]
    events, after = bot_turn(state, "nobles")
    builds = [e.payload for e in events if e.type == "BuildingBuilt"]
    if not empty:
        assert builds == [] and chosen(events)["step"] != "main"
        return
    (b,) = builds
    assert b["space"] not in rows[b["row"]] and b["vp"] == spaces[b["row"]][b["space"]]
    era = ("top", "middle", "bottom")[eclipses]
    era_empty = [k for k in range(len(spaces[era])) if k not in rows[era]]
    if era_empty:
        assert (b["row"], b["space"]) == (era, era_empty[0])
    else:
        assert b["vp"] == min(vp for vp, _, _ in empty)
    row_index = ("top", "middle", "bottom").index(b["row"])
    assert after.nobles_built[row_index] == tuple(sorted((*rows[b["row"]], b["space"])))
    assert after.nobles_rows[row_index] == len(rows[b["row"]]) + 1


# --- Mastery ----------------------------------------------------------------------------


def test_mastery_falls_through_to_the_next_worker() -> None:
    # highest: Nobles power 4 without wood (fails); next: Forest power 3 → +2 wood
    state = goods(bot_workers(solo(), (6, 4), (2, 3), (8, 1), (7, 1, 0)), BOT, wood=0, stone=0)
    events, after = bot_turn(state, "mastery")
    assert chosen(events)["step"] == "harvest" and chosen(events)["worker"] == 1
    assert after.players[BOT].wood == 2
    assert (after.players[BOT].workers[1].power, after.players[BOT].workers[1].board) == (4, 4)


def test_mastery_with_no_worker_able_falls_back() -> None:
    state = goods(bot_workers(solo(), (1, 4), (6, 2), (8, 1), (7, 1, 0)), BOT, wood=0, stone=0)
    events, after = bot_turn(state, "mastery")
    assert chosen(events)["step"] == "fallback" and after.players[BOT].cocoa == 5


# --- Worship ----------------------------------------------------------------------------


def test_worship_from_decorations_displaces_a_human_on_forest_for_free() -> None:
    state = bot_workers(solo(), (4, 2), (6, 2), (8, 2), (7, 1, 0))
    state = place(state, HUMAN, (2, 2, 0), (3, 1))
    state = goods(state, HUMAN, cocoa=0)
    tile = state.worship_discoveries[2]
    events, after = bot_turn(state, "worship")
    assert chosen(events)["board"] == 2
    assert not after.players[HUMAN].workers[0].locked and after.players[HUMAN].workers[0].board == 2
    assert after.worship_occupant(2, 0) == (BOT, 3)
    assert after.players[BOT].temple("red") == 3  # 2 steps on Forest's temple
    assert tile in after.discarded_discoveries and after.worship_discoveries[2] != tile
    assert after.players[BOT].cocoa == 0


def test_worship_onto_decorations_climbs_three_steps_on_the_highest_temple() -> None:
    state = bot_workers(solo(), (4, 2), (6, 2), (8, 2), (4, 1, 0))
    state = goods(state, BOT, temples=(1, 3, 1))
    _, after = bot_turn(state, "worship")
    assert after.worship_occupant(7, 0) == (BOT, 3)
    assert after.players[BOT].temples == (1, 6, 1)


def test_human_displacing_the_bot_sends_it_to_the_next_empty_temple_space() -> None:
    state = bot_workers(solo(), (4, 2), (6, 2), (8, 2), (7, 1, 0))
    state = place(state, HUMAN, (6, 2), (2, 1, 0))
    state = goods(state, HUMAN, cocoa=5)
    state = replace(state, current=HUMAN)
    state = fold(
        RULES.decide(state, HUMAN, {"type": "move", "worker": 0, "steps": 1}, random.Random()),
        state,
    )
    action = {"type": "worship", "space": 0, "mode": "ability"}
    after = fold(RULES.decide(state, HUMAN, action, random.Random()), state)
    # Forest (2) is taken by the human: the bot goes on to Stone Quarry (3)
    assert after.worship_occupant(7, 0) == (HUMAN, 0)
    assert after.worship_occupant(3, 0) == (BOT, 3)
    assert after.players[HUMAN].cocoa == 4  # the human paid 1 to displace


def test_with_no_empty_temple_space_the_bot_displaces_the_nearest_human() -> None:
    state = bot_workers(solo(), (4, 2), (6, 2), (8, 2), (7, 1, 0))
    state = place(state, HUMAN, (6, 2), (2, 1, 0), (3, 1, 0), (4, 1, 0))
    state = goods(state, HUMAN, cocoa=5)
    state = replace(state, current=HUMAN)
    state = fold(
        RULES.decide(state, HUMAN, {"type": "move", "worker": 0, "steps": 1}, random.Random()),
        state,
    )
    action = {"type": "worship", "space": 0, "mode": "ability"}
    after = fold(RULES.decide(state, HUMAN, action, random.Random()), state)
    assert after.worship_occupant(2, 0) == (BOT, 3)
    assert not after.players[HUMAN].workers[1].locked


# --- Mask Collection ---------------------------------------------------------------------


def _masks_at(state: GameState, tiles: dict[int, int]) -> GameState:
    worship = list(state.worship_discoveries)
    for board in (1, 2, 3, 4, 7):
        worship[board] = tiles.get(board, -1)
    return replace(state, worship_discoveries=tuple(worship))


def test_mask_collection_takes_the_rarest_mask_it_can_pay() -> None:
    # tile 0 is mask 1 (costs 2 cocoa + 1 gold), tiles 5 and 6 mask 4, tile 3 mask 3
    state = goods(_masks_at(solo(), {4: 5, 2: 3, 7: 0}), BOT, cocoa=2, gold=1, wood=1)
    events, after = bot_turn(state, "mask_collection")
    assert chosen(events)["step"] == "mask" and chosen(events)["board"] == 7
    assert after.players[BOT].masks == (0,)


def test_mask_collection_ties_go_to_the_nearest_clockwise_from_the_palace() -> None:
    state = goods(_masks_at(solo(), {4: 5, 3: 6}), BOT, cocoa=0, wood=2)
    events, after = bot_turn(state, "mask_collection")
    assert chosen(events)["board"] == 3 and after.players[BOT].masks == (6,)


def test_mask_collection_without_a_new_mask_falls_back() -> None:
    state = goods(_masks_at(solo(), {4: 5}), BOT, wood=2, masks=(6,))
    events, _ = bot_turn(state, "mask_collection")
    assert chosen(events)["step"] == "fallback"


# --- action pyramid, directions, cocoa -------------------------------------------------------


def test_pyramid_shift_left_and_right_refill_with_the_set_aside_tile() -> None:
    tiles = ("a", "b", "c", "d", "e", "f")
    assert shift(tiles, "g", 1, "left") == (
        ("c", "b", "f", "d", "e", "g"),
        "a",
        [[3, 1], [6, 3], [0, 6]],
    )
    assert shift(tiles, "g", 1, "right") == (
        ("b", "d", "c", "g", "e", "f"),
        "a",
        [[2, 1], [4, 2], [0, 4]],
    )
    assert shift(tiles, "g", 2, "left")[0] == ("a", "e", "c", "d", "g", "f")
    assert shift(tiles, "g", 6, "right")[0] == ("a", "b", "c", "d", "e", "g")
    assert [position_for(s) for s in range(2, 13)] == [4, 4, 2, 2, 1, 1, 1, 3, 3, 6, 6]


def test_direction_tiles_cycle_over_four_turns() -> None:
    stack = ("left", "right")
    seen = []
    for _ in range(4):
        seen.append(stack[0])
        stack = flip(stack)
    assert seen == ["left", "right", "right", "left"] and stack == ("left", "right")


def test_bot_turns_shift_the_pyramid_and_flip_the_directions() -> None:
    state = fold(RULES.decide(solo(), HUMAN, {"type": "unlock"}, random.Random(0)), solo())
    directions = state.teotibot_directions
    for _ in range(4):
        events = RULES.decide(state, BOT, TURN, random.Random(1))
        shifted = next(e for e in events if e.type == "TeotibotActionPyramidShifted").payload
        assert shifted["direction"] == state.teotibot_directions[0]
        state = fold(events, state)
        assert state.teotibot_set_aside == shifted["used"]
        assert sorted((*state.teotibot_tiles, state.teotibot_set_aside)) == sorted(ACTION_TILES)
        state = fold(RULES.decide(state, HUMAN, {"type": "unlock"}, random.Random(0)), state)
    assert state.teotibot_directions == directions


def test_ten_cocoa_become_3_vp() -> None:
    state = goods(bot_workers(solo(), (4, 2), (6, 2), (8, 2), (7, 1, 0)), BOT, cocoa=6, stone=0)
    _, after = bot_turn(state, "construction")  # fallback: +5 cocoa → 11 → 1 cocoa, +3 VP
    assert after.players[BOT].cocoa == 1 and after.players[BOT].vp == 3


# --- eclipse and the end -----------------------------------------------------------------


def test_the_bot_pays_no_salary_and_scores_its_final_extras() -> None:
    from services.games.teotihuacan.rules.calendar import end_game, score_eclipse
    from services.games.teotihuacan.rules.context import Context

    state = goods(solo(), BOT, cocoa=4, wood=1, stone=2, gold=3, vp=50, temples=(10, 1, 1))
    state = goods(state, HUMAN, vp=0)
    ctx = Context(state, random.Random(0))
    score_eclipse(ctx)
    assert [t.seat for t in ctx.agenda if kind_of(t) == "salary"] == [HUMAN]
    ctx = Context(state, random.Random(0))
    end_game(ctx)
    final = next(e for e in ctx.events if e.type == "TeotibotFinalScored").payload
    assert final["vp"] == 4 + 6 + 2 * 1
    bonus = next(e for e in ctx.events if e.type == "TempleBonusScored").payload
    assert bonus["seat"] == BOT and bonus["vp"] == 15
    assert ctx.state.players[BOT].vp == 50 + 12 + 15


@pytest.mark.parametrize(
    ("eclipses", "final", "extras"),
    [(1, True, True), (2, True, True), (3, False, True), (1, False, False), (2, False, False)],
)
def test_d17_final_extras_come_at_the_eclipse_that_ends_the_game(
    eclipses: int, final: bool, extras: bool
) -> None:
    # D17: "scored at the eclipse that ends the game, whichever it is": the 3rd eclipse, or
    # an earlier one made final by the completed pyramid; never at an eclipse that doesn't.
    from services.games.teotihuacan.rules.calendar import resolve_eclipse_end
    from services.games.teotihuacan.rules.context import Context
    from services.games.teotihuacan.rules.tasks import EclipseEnd

    state = goods(solo(), BOT, cocoa=3, wood=2, stone=0, gold=1, vp=20, technologies=(5,))
    state = replace(state, eclipses=eclipses, final_eclipse=final, phase="eclipse")
    ctx = Context(state, random.Random(0))
    resolve_eclipse_end(ctx, EclipseEnd(seat=HUMAN), None)
    scored = [e.payload for e in ctx.events if e.type == "TeotibotFinalScored"]
    ended = [e for e in ctx.events if e.type == "GameEnded"]
    if extras:
        assert scored == [
            {"seat": BOT, "cocoa": 3, "resources": 3, "technologies": 1, "vp": 3 + 3 + 2}
        ]
        assert len(ended) == 1 and ctx.state.players[BOT].vp >= 20 + 8
    else:
        assert scored == [] and ended == [] and ctx.state.players[BOT].vp == 20


def test_a_tie_goes_to_the_bot() -> None:
    from services.games.teotihuacan.rules.calendar import end_game
    from services.games.teotihuacan.rules.context import Context

    state = goods(
        goods(solo(), HUMAN, vp=40, cocoa=30),
        BOT,
        vp=40,
        cocoa=0,
        wood=0,
        stone=0,
        gold=0,
        technologies=(),
    )
    ctx = Context(state, random.Random(0))
    end_game(ctx)
    assert ctx.state.ranking == (BOT, HUMAN)
