"""RULES.md §3.4 (Decorations), §3.5 (Construction), §6.1 (pyramid completion), D3, D8, D9."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest

from services.engine.domain.ruleset import DomainEvent, RuleViolation
from services.games.teotihuacan.rules import pyramid
from services.games.teotihuacan.rules.construction import PyramidConstruction
from services.games.teotihuacan.rules.decorations import (
    covered_icons,
    decoration_icons,
    gold_cost,
    legal_spaces,
)
from services.games.teotihuacan.rules.state import GameState, state_to_dict
from services.games.teotihuacan.rules.tasks import ResourceChoice

from .builders import RULES, clear_board, fold, goods, new_game, place, play, turn_of
from .test_random_playouts import check_invariants

NOBLES, DECORATIONS, CONSTRUCTION = 6, 7, 8
BLANK_TILE = 30  # "----"
DOT_B, DOT_R, DOT_G = 19, 18, 20  # "b---", "---r", "---g"


def _board(
    state: GameState,
    tiles: tuple[tuple[int, int, int, int, int], ...],
    offer: tuple[int, ...] = (8, 0, 1),
    decorations: tuple[tuple[str, int, int], ...] = (),
    decoration_offer: tuple[int, ...] = (0, 1, 2, 3),
) -> GameState:
    """Lay out the pyramid, decorations and offers; the bags hold every other tile."""
    used = {t[3] for t in tiles} | set(offer)
    used_decorations = {d[2] for d in decorations} | set(decoration_offer)
    return replace(
        state,
        pyramid_tiles=tiles,
        pyramid_offer=offer,
        pyramid_supply=tuple(t for t in range(32) if t not in used),
        decorations=decorations,
        decoration_offer=decoration_offer,
        decoration_supply=tuple(t for t in range(15) if t not in used_decorations),
    )


def _level_1(rows: range, cols: range, tile: int = BLANK_TILE) -> tuple[Any, ...]:
    return tuple((1, r, c, tile, 0) for r in rows for c in cols)


@pytest.fixture
def two() -> GameState:
    # Seat 1 has one worker, so its turns are real decisions and seat 0's turn visibly ends.
    return place(clear_board(new_game(seats=2, seed=3)), 1, (2, 1))


def _to_main_action(state: GameState, board: int, *workers: tuple[int, int]) -> GameState:
    """Seat 0 moves its worker from the board before ``board`` and takes the main action."""
    state = place(state, 0, (board - 1, 1), *workers)
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    return play(state, 0, {"type": "main_action"})


def _refusal(state: GameState, action: dict[str, Any]) -> RuleViolation:
    before = copy.deepcopy(state_to_dict(state))
    with pytest.raises(RuleViolation) as refused:
        RULES.decide(state, 0, action, random.Random(0))
    assert state_to_dict(state) == before
    assert "RULES.md §3" in refused.value.message
    return refused.value


# --- geometry ---------------------------------------------------------------------------


def test_each_level_covers_two_by_two_squares_offset_by_its_level() -> None:
    assert pyramid.covered_squares(1, 0, 0) == ((0, 0), (0, 1), (1, 1), (1, 0))
    assert pyramid.covered_squares(1, 3, 3) == ((6, 6), (6, 7), (7, 7), (7, 6))
    assert pyramid.covered_squares(2, 0, 0) == ((1, 1), (1, 2), (2, 2), (2, 1))
    assert pyramid.covered_squares(2, 2, 1) == ((5, 3), (5, 4), (6, 4), (6, 3))
    assert pyramid.covered_squares(3, 1, 0) == ((4, 2), (4, 3), (5, 3), (5, 2))
    assert pyramid.covered_squares(4, 0, 0) == ((3, 3), (3, 4), (4, 4), (4, 3))
    assert [pyramid.level_size(level) for level in (1, 2, 3, 4)] == [4, 3, 2, 1]
    assert len(pyramid.all_slots()) == 16 + 9 + 4 + 1


def test_a_higher_slot_needs_the_four_slots_under_it() -> None:
    assert pyramid.supports(1, 2, 2) == []
    assert pyramid.supports(2, 1, 2) == [(1, 1, 2), (1, 1, 3), (1, 2, 2), (1, 2, 3)]
    assert pyramid.supports(4, 0, 0) == [(3, 0, 0), (3, 0, 1), (3, 1, 0), (3, 1, 1)]
    assert len(pyramid.legal_slots(())) == 16
    three = _level_1(range(2), range(2))[:3]
    assert pyramid.slot_problem(three, 2, 0, 0) == "slot_not_supported"
    four = _level_1(range(2), range(2))
    assert pyramid.slot_problem(four, 2, 0, 0) is None
    assert pyramid.slot_problem(four, 1, 1, 1) == "slot_occupied"
    assert pyramid.slot_problem(four, 2, 3, 0) == "no_such_slot"
    assert (2, 0, 0) in pyramid.legal_slots(four) and (2, 0, 1) not in pyramid.legal_slots(four)


def test_rotation_turns_quadrants_clockwise() -> None:
    # One quarter turn: [TL, TR, BR, BL] -> [BL, TL, TR, BR].
    assert pyramid.rotate("abcd", 1) == "dabc"
    assert pyramid.rotate("abcd", 2) == "cdab"
    assert pyramid.rotate("abcd", 3) == "bcda"
    assert pyramid.rotate("abcd", 4) == "abcd"
    assert pyramid.tile_icons(DOT_B, 1) == "-b--"  # the blue icon moves from TL to TR
    assert pyramid.distinct_rotations(BLANK_TILE) == [0]
    assert pyramid.distinct_rotations(0) == [0, 1, 2, 3]


def test_visible_icons_are_the_highest_tile_over_the_printed_grid() -> None:
    assert pyramid.visible_grid(())[3] == list("ggr--bbb")
    tiles = (*_level_1(range(2), range(2)), (2, 0, 0, DOT_R, 2))  # "r---" turned twice: "-r--"
    grid = pyramid.visible_grid(tiles)
    assert grid[1][0] == "-" and grid[3][5] == "b"  # a blank tile hides the print
    assert pyramid.icons_under(tiles, 2, 0, 0) == "-r--"
    assert [grid[1][1], grid[1][2], grid[2][2], grid[2][1]] == ["-", "r", "-", "-"]


def test_icons_match_by_family_blanks_never_match_and_colour_gives_a_step() -> None:
    assert pyramid.match_icons("bRg-", "BrG-") == pyramid.Matches(3, ("blue", "green"))
    assert pyramid.match_icons("----", "----") == pyramid.Matches(0, ())  # D3
    assert pyramid.match_icons("b-r-", "g-G-") == pyramid.Matches(0, ())


def test_setup_pre_fills_the_pyramid_and_legal_slots_respect_it() -> None:
    state = new_game(seats=3, seed=5)
    filled = pyramid.occupied(state.pyramid_tiles)
    assert filled == {(1, r, c) for r in (1, 2) for c in range(4)} | {(2, 1, 0), (2, 1, 2)}
    slots = pyramid.legal_slots(state.pyramid_tiles)
    assert not filled & set(slots)
    assert (2, 1, 1) in slots and (2, 0, 0) not in slots


# --- Construction (8) ---------------------------------------------------------------------


def _third_level_example(state: GameState) -> GameState:
    """Levels 1 and 2 under the third-level slot (0, 0), whose squares show g, b, r, -."""
    tiles = (
        *_level_1(range(3), range(3)),
        (2, 0, 0, DOT_G, 3),  # "--g-": g on square (2, 2)
        (2, 0, 1, DOT_B, 3),  # "---b": b on square (2, 3)
        (2, 1, 1, DOT_R, 1),  # "r---": r on square (3, 3)
        (2, 1, 0, BLANK_TILE, 0),
    )
    return _board(state, tiles, offer=(8, 0, 1))


def test_rulebook_example_third_level_tile_scores_eight_and_a_blue_step(two: GameState) -> None:
    state = goods(_third_level_example(two), 0, stone=2, wood=2)
    assert pyramid.icons_under(state.pyramid_tiles, 3, 0, 0) == "gbr-"
    state = _to_main_action(state, CONSTRUCTION)
    assert state.agenda[-1] == PyramidConstruction(seat=0, tiles_left=1, placed=0)
    # Tile 8 is "gBr-": g, b (coloured blue) and r match; the blank doesn't.
    place_tile = {"type": "place_pyramid_tile", "tile": 8, "level": 3, "row": 0, "col": 0}
    state = play(state, 0, {**place_tile, "rotation": 0})
    player = state.players[0]
    assert (player.stone, player.wood) == (0, 0)
    assert player.vp == 5 + 3
    assert player.temples == (1, 0, 0)
    # The blue step's reward resolves before the Pyramid track (rulebook example 2).
    assert state.agenda[-1] == ResourceChoice(seat=0, count=1)
    assert player.pyramid == 0
    state = play(state, 0, {"type": "take_resource", "resource": "wood"})
    assert state.players[0].pyramid == 1 and state.players[0].wood == 1
    assert (3, 0, 0, 8, 0) in state.pyramid_tiles
    assert 8 not in state.pyramid_offer and len(state.pyramid_offer) == 3
    assert state.players[0].workers[0].power == 2  # one power-up
    assert state.current == 1  # the turn is over


def test_each_extra_worker_places_one_more_tile_or_stops(two: GameState) -> None:
    # Own colour already on the board: the main action costs 1 cocoa.
    state = goods(_board(two, (), offer=(BLANK_TILE, DOT_B, DOT_R)), 0, stone=6, cocoa=1)
    state = _to_main_action(state, CONSTRUCTION, (CONSTRUCTION, 1))
    assert state.agenda[-1] == PyramidConstruction(seat=0, tiles_left=2, placed=0)
    legal = RULES.legal_actions(state, 0)
    assert {"type": "stop_construction"} not in legal
    # 3 tiles x 16 slots x distinct rotations (blank tile: one face).
    assert len(legal) == 16 * (1 + 4 + 4)
    state = play(
        state,
        0,
        {
            "type": "place_pyramid_tile",
            "tile": BLANK_TILE,
            "level": 1,
            "row": 0,
            "col": 0,
            "rotation": 0,
        },
    )
    assert state.players[0].vp == 1 and state.players[0].stone == 4
    assert {"type": "stop_construction"} in RULES.legal_actions(state, 0)
    state = play(state, 0, {"type": "stop_construction"})
    # Two workers: one power-up (a choice between them), then the refill.
    assert [a["type"] for a in RULES.legal_actions(state, 0)] == ["power_up", "power_up"]
    assert len(state.pyramid_offer) == 2
    events = RULES.decide(state, 0, {"type": "power_up", "worker": 1}, random.Random(1))
    refills = [e for e in events if e.type == "PyramidOfferRefilled"]
    assert len(refills) == 1 and refills[0].payload["tile"] not in (DOT_B, DOT_R)
    state = fold(events, state)
    assert len(state.pyramid_offer) == 3 and refills[0].payload["tile"] in state.pyramid_offer


def test_technology_15_discounts_one_resource_of_the_seats_choice(two: GameState) -> None:
    # The first-game technology board holds #15 in slot 4 (bottom row, centre).
    slot = two.technologies.index(7)
    state = two.with_player(0, replace(two.players[0], stone=1, wood=1, technologies=(slot,)))
    state = _board(state, _level_1(range(2), range(2)), offer=(BLANK_TILE,))
    state = _to_main_action(state, CONSTRUCTION)
    # #15 counts as a second worker: up to two tiles.
    assert state.agenda[-1] == PyramidConstruction(seat=0, tiles_left=2, placed=0)
    legal = RULES.legal_actions(state, 0)
    level_1 = [a for a in legal if a["level"] == 1]
    level_2 = [a for a in legal if a["level"] == 2]
    assert {a["discount"] for a in level_1} == {"stone"}  # level 1 costs only stone
    # Level 2 costs 2 stone + 1 wood: 1 stone + 1 wood (stone discount) is in hand,
    # 2 stone + 0 wood (wood discount) is not.
    assert level_2 == [
        {
            "type": "place_pyramid_tile",
            "tile": BLANK_TILE,
            "level": 2,
            "row": 0,
            "col": 0,
            "rotation": 0,
            "discount": "stone",
        }
    ]
    state = play(state, 0, level_2[0])
    assert (state.players[0].stone, state.players[0].wood) == (0, 0)


def test_construction_needs_an_affordable_tile(two: GameState) -> None:
    state = goods(_board(two, ()), 0, stone=1, wood=5)
    state = place(state, 0, (7, 1))
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    assert {"type": "main_action"} not in RULES.legal_actions(state, 0)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"level": 2, "row": 1, "col": 1}, "slot_not_supported"),
        ({"level": 1, "row": 0, "col": 0}, "slot_occupied"),
        ({"level": 5, "row": 0, "col": 0}, "no_such_slot"),
        ({"tile": 2}, "tile_not_offered"),
        ({"level": 2, "row": 0, "col": 0}, "cost_not_payable"),
        ({"rotation": 4}, "rotation_not_legal"),
    ],
)
def test_construction_refusals_name_the_rule_and_change_nothing(
    two: GameState, change: dict[str, int], rule: str
) -> None:
    state = goods(_board(two, _level_1(range(2), range(2))), 0, stone=2, wood=0)
    state = _to_main_action(state, CONSTRUCTION)
    action = {
        "type": "place_pyramid_tile",
        "tile": 8,
        "level": 1,
        "row": 3,
        "col": 3,
        "rotation": 0,
    }
    assert action in RULES.legal_actions(state, 0)
    assert _refusal(state, {**action, **change}).rule == rule


# --- completing the pyramid -----------------------------------------------------------------


def _almost_complete(state: GameState) -> GameState:
    tiles = (
        *_level_1(range(4), range(4)),
        *((2, r, c, BLANK_TILE, 0) for r in range(3) for c in range(3)),
        *((3, r, c, BLANK_TILE, 0) for r in range(2) for c in range(2)),
    )
    return goods(_board(state, tiles), 0, stone=2, wood=3, pyramid=3)


def test_the_level_four_tile_completes_the_pyramid_and_triggers_the_final_eclipse(
    two: GameState,
) -> None:
    state = _almost_complete(two)
    assert pyramid.legal_slots(state.pyramid_tiles) == [(4, 0, 0)]
    state = _to_main_action(state, CONSTRUCTION)
    state = play(
        state,
        0,
        {"type": "place_pyramid_tile", "tile": 0, "level": 4, "row": 0, "col": 0, "rotation": 0},
    )
    assert pyramid.is_complete(state.pyramid_tiles)
    assert state.players[0].vp >= 7
    assert state.light == state.dark
    assert state.final_eclipse and state.eclipse_countdown == 2
    # Nothing more to build: the action is no longer possible for anyone.
    assert pyramid.legal_slots(state.pyramid_tiles) == []
    # Play on at random: the game ends after this first eclipse, scored as the first (D8).
    start = state
    log: list[DomainEvent] = []  # folded onto ``start`` (GameSetUp only opens a game)
    rng = random.Random(7)
    scored: list[DomainEvent] = []
    steps = 0
    while not RULES.is_terminal(state):
        (seat,) = RULES.seats_to_act(state)
        new = RULES.decide(state, seat, rng.choice(list(RULES.legal_actions(state, seat))), rng)
        if any(e.type == "EclipseScored" for e in new):
            steps = state.players[0].pyramid
        scored.extend(e for e in new if e.type == "EclipseScored")
        log.extend(new)
        state = fold(new, state)
        check_invariants(state)
    assert len(scored) == 1 and state.eclipses == 1 and state.phase == "ended"
    line = scored[0].payload["scores"][0]
    assert steps >= 4 and line["pyramid"] == 4 * steps
    assert fold(log, start) == state


def test_completing_the_pyramid_makes_the_pending_eclipse_the_final_one(two: GameState) -> None:
    state = replace(_almost_complete(two), light=two.dark, eclipse_countdown=1)
    state = _to_main_action(state, CONSTRUCTION)
    events = RULES.decide(
        state,
        0,
        {"type": "place_pyramid_tile", "tile": 0, "level": 4, "row": 0, "col": 0, "rotation": 0},
        random.Random(0),
    )
    assert "CalendarAdvanced" not in [e.type for e in events]
    state = fold(events, state)
    assert state.final_eclipse and state.eclipse_countdown == 1


# --- Decorations (7) ------------------------------------------------------------------------


def _decoration_example(state: GameState) -> GameState:
    """Left side: step 1 decorated; the squares of step 2 show a blank and a blue icon."""
    tiles = ((1, 1, 0, BLANK_TILE, 0), (1, 2, 0, DOT_B, 0))
    return _board(state, tiles, decorations=(("left", 1, 5),), decoration_offer=(0, 1, 2, 3))


def test_rulebook_example_decoration_matching_one_icon(two: GameState) -> None:
    state = goods(_decoration_example(two), 0, gold=3)
    assert covered_icons(state, "left", 2) == "-b"
    assert decoration_icons(0, "left") == "RB"  # "BR" laid reversed on the left side
    assert ("left", 2) in legal_spaces(state)
    state = _to_main_action(state, DECORATIONS)
    assert state.players[0].gold == 0
    state = play(state, 0, {"type": "place_decoration", "tile": 0, "side": "left", "step": 2})
    player = state.players[0]
    assert player.vp == 1 + 3
    assert player.pyramid == 1
    assert player.temples == (1, 0, 0)
    state = play(state, 0, {"type": "take_resource", "resource": "gold"})
    assert ("left", 2, 0) in state.decorations
    assert 0 not in state.decoration_offer and len(state.decoration_offer) == 4
    assert state.players[0].workers[0].power == 2
    assert state.current == 1


def test_two_coloured_matches_let_the_seat_order_the_temple_steps(two: GameState) -> None:
    # Top side step 1 shows "rg"; decoration tile 8 is "RG": both match, both coloured.
    state = goods(_board(two, (), decoration_offer=(8, 1, 2, 3)), 0, gold=3)
    state = _to_main_action(state, DECORATIONS)
    state = play(state, 0, {"type": "place_decoration", "tile": 8, "side": "top", "step": 1})
    assert state.players[0].vp == 3 + 2
    assert RULES.legal_actions(state, 0) == [
        {"type": "advance_temple", "temple": "green"},
        {"type": "advance_temple", "temple": "red"},
    ]
    state = play(state, 0, {"type": "advance_temple", "temple": "green"})
    assert state.players[0].temples == (0, 1, 1)
    assert state.players[0].cocoa == 1 and state.players[0].vp == 3 + 2 + 1


def test_decoration_gold_cost_falls_with_more_workers(two: GameState) -> None:
    assert [gold_cost(n) for n in (1, 2, 3)] == [3, 2, 1]
    state = goods(_decoration_example(two), 0, gold=1, cocoa=1)
    state = _to_main_action(state, DECORATIONS, (DECORATIONS, 1), (DECORATIONS, 1))
    assert state.players[0].gold == 0 and state.players[0].cocoa == 0
    state = goods(_decoration_example(two), 0, gold=2)
    state = place(state, 0, (NOBLES, 1))
    state = turn_of(state, 0)
    state = play(state, 0, {"type": "move", "worker": 0, "steps": 1})
    assert {"type": "main_action"} not in RULES.legal_actions(state, 0)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"step": 3}, "lower_step_empty"),  # rulebook: level three needs level two first
        ({"step": 1}, "space_taken"),
        ({"tile": 9}, "tile_not_offered"),
        ({"side": "bottom", "step": 2}, "lower_step_empty"),
        ({"side": "middle"}, "no_such_space"),
    ],
)
def test_decoration_refusals_name_the_rule_and_change_nothing(
    two: GameState, change: dict[str, Any], rule: str
) -> None:
    state = goods(_decoration_example(two), 0, gold=3)
    state = _to_main_action(state, DECORATIONS)
    action = {"type": "place_decoration", "tile": 0, "side": "left", "step": 2}
    assert action in RULES.legal_actions(state, 0)
    assert _refusal(state, {**action, **change}).rule == rule


def test_a_decoration_needs_the_pyramid_tiles_under_it(two: GameState) -> None:
    state = _board(two, ((1, 1, 0, BLANK_TILE, 0),), decorations=(("left", 1, 5),))
    assert ("left", 2) not in legal_spaces(state)
    state = goods(state, 0, gold=3)
    state = _to_main_action(state, DECORATIONS)
    refused = _refusal(state, {"type": "place_decoration", "tile": 0, "side": "left", "step": 2})
    assert refused.rule == "pyramid_tiles_missing"


def test_a_flipped_extra_worker_tile_adds_a_tile_and_is_spent(two: GameState) -> None:
    player = replace(two.players[0], stone=4, active_effects=("extra_worker",))
    state = _board(two.with_player(0, player), ())
    state = _to_main_action(state, CONSTRUCTION)
    assert state.agenda[-1] == PyramidConstruction(seat=0, tiles_left=2, placed=0)
    assert state.players[0].active_effects == ()
