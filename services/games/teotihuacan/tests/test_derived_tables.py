"""The shortcuts the rules take for speed answer exactly what the long way answers.

Each check runs over every state of seeded random games (both setups), and over variants
of them that reach the rare cases (technology #15's discount, resources at the edge of a
cost), so a shortcut can't drift from the rule it stands for.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.engine.domain.ruleset import SetupRequest
from services.games.teotihuacan.rules import (
    alchemy,
    construction,
    pyramid,
    reads,
    tasks,
    technologies,
    turn,
    workers,
)
from services.games.teotihuacan.rules.components import PALACE, components
from services.games.teotihuacan.rules.frozen import (
    replace,
    with_agenda,
    with_fields,
    with_item,
    with_player,
)
from services.games.teotihuacan.rules.last_call import remember_last
from services.games.teotihuacan.rules.state import NOT_IN_PLAY, GameState, Worker
from services.games.teotihuacan.rules.tasks import TakeTurn
from services.games.teotihuacan.rules.workers import worker
from services.games.teotihuacan.rules.worship import _occupants, worship_occupant

from .builders import RULES, fold, new_game, place

DISCOUNT_EFFECT = "construction_extra_worker"


def game_states(seed: int, first_game: bool) -> Iterator[GameState]:
    """Every state of one seeded random 4-seat game, from setup to the end."""
    rng = random.Random(seed)
    state = fold(RULES.setup(SetupRequest(seat_count=4, options={"first_game": first_game}), rng))
    yield state
    while not RULES.is_terminal(state):
        seat = rng.choice(RULES.seats_to_act(state))
        _events, state = RULES.apply(
            state, seat, rng.choice(list(RULES.legal_actions(state, seat))), rng
        )
        yield state


def with_discount(state: GameState, seat: int) -> GameState | None:
    """``state`` where ``seat`` owns technology #15 from an earlier turn, if it is on the board."""
    effects = [technologies.technology_effect(t) for t in state.technologies]
    if DISCOUNT_EFFECT not in effects:
        return None
    slot = effects.index(DISCOUNT_EFFECT)
    player = replace(state.players[seat], technologies=(slot,), new_technologies=())
    return state.with_player(seat, player)


@pytest.mark.parametrize("first_game", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_can_place_is_whether_any_placement_is_listed(seed: int, first_game: bool) -> None:
    checked = 0
    for state in game_states(seed, first_game):
        variants = [state]
        for seat in range(len(state.players)):
            for stone, wood in ((0, 0), (1, 0), (1, 1), (2, 1), (3, 2)):
                variants.append(
                    state.with_player(seat, replace(state.players[seat], stone=stone, wood=wood))
                )
            discounted = with_discount(variants[-1], seat)
            if discounted is not None:
                variants.append(discounted)
        for variant in variants:
            for seat in range(len(variant.players)):
                expected = bool(construction.placements(variant, seat))
                assert construction.can_place(variant, seat) is expected
                checked += expected
    assert checked, "no state had a placement: the check would prove nothing"


@pytest.mark.parametrize("seed", range(3))
def test_remembered_pyramid_tables_equal_fresh_ones(seed: int) -> None:
    for state in game_states(seed, first_game=False):
        placed = state.pyramid_tiles
        fresh_copy = tuple(list(placed))  # equal, another object: not the remembered one
        slots = [s for s in pyramid.all_slots() if pyramid.slot_problem(placed, *s) is None]
        assert pyramid.legal_slots(placed) == slots == pyramid.legal_slots(fresh_copy)
        filled = frozenset((level, row, col) for level, row, col, _, _ in placed)
        assert pyramid.occupied(placed) == filled == pyramid.occupied(fresh_copy)


def test_remember_last_recomputes_for_another_object() -> None:
    calls: list[tuple[int, ...]] = []

    def total(values: tuple[int, ...]) -> int:
        calls.append(values)
        return sum(values)

    remembered = remember_last(total)
    first, equal_copy = (1, 2), tuple([1, 2])
    assert remembered(first) == 3 and remembered(first) == 3
    assert len(calls) == 1  # the same object: answered from the memo
    assert remembered(equal_copy) == 3 and remembered((5,)) == 5
    assert calls == [first, equal_copy, (5,)]


def test_technology_tables_match_the_components() -> None:
    raw = components().raw["technologies"]
    for technology_id, entry in enumerate(raw):
        assert technologies.technology_effect(technology_id) == entry["effect"]
        state_with_it = replace(fold_first_state(), technologies=(technology_id,))
        assert alchemy.technology_gold(state_with_it, 0) == entry["cost_gold"]


def fold_first_state() -> GameState:
    return next(game_states(0, first_game=True))


@pytest.mark.parametrize("seed", range(3))
def test_worship_occupants_in_one_pass_match_the_per_space_lookup(seed: int) -> None:
    seen_occupied = False
    for state in game_states(seed, first_game=seed % 2 == 0):
        for board in range(1, 9):
            occupants = _occupants(state, board)
            for space in range(3):
                occupant = state.worship_occupant(board, space)
                assert occupants.get(space) == (None if occupant is None else occupant[0])
                assert worship_occupant(state, board, space) == occupant
                seen_occupied |= occupant is not None
    assert seen_occupied


WORKER_SITUATIONS = ((3, 2), (5, 1, 0), (NOT_IN_PLAY, 1))
"""A worker unlocked on a board, locked on a worship space, or the waiting 4th die."""


def test_turn_options_without_effects_equal_the_full_listing() -> None:
    base = new_game(seats=2)
    for situations in product(WORKER_SITUATIONS, repeat=4):
        state = place(base, 0, *situations)
        workers = state.players[0].workers
        movable = [w for w, worker in enumerate(workers) if worker.in_play and not worker.locked]
        listed = turn.listed_turn_options(state, 0, movable)
        assert turn._turn_options(state, TakeTurn(seat=0)) == listed
        assert listed[-1] == {"type": "unlock"} and len(listed) == 3 * len(movable) + 1


def test_destination_is_the_board_at_the_position_moved_to() -> None:
    state = new_game(seats=2)
    for board in state.rondel:
        for steps in range(1, 9):
            expected = state.board_at(state.position(board) + steps)
            assert turn.destination(state, board, steps) == expected


@pytest.mark.parametrize("first_game", [True, False])
def test_one_field_copies_equal_replace_and_leave_the_state_as_it_was(first_game: bool) -> None:
    checked = 0
    for state in game_states(1, first_game):
        before = state.__dict__.copy()
        seat = state.current
        player = replace(state.players[seat], vp=state.players[seat].vp + 1)
        copied = with_player(state, seat, player)
        players = (*state.players[:seat], player, *state.players[seat + 1 :])
        assert copied == replace(state, players=players) == state.with_player(seat, player)
        assert type(copied) is GameState and copied is not state
        assert with_agenda(state, ()) == replace(state, agenda=()) == state.with_agenda(())
        assert state.__dict__ == before
        checked += 1
    assert checked > 100


def test_with_fields_is_replace_and_refuses_an_unknown_field() -> None:
    player = fold_first_state().players[0]
    changes = {"cocoa": player.cocoa + 2, "vp": 7}
    assert with_fields(player, changes) == replace(player, cocoa=player.cocoa + 2, vp=7)
    with pytest.raises(TypeError, match="no field"):
        with_fields(player, {"cocoa": 1, "coffee": 1})


def test_with_item_is_the_sliced_tuple() -> None:
    for size in range(5):
        values = tuple(range(10, 10 + size))
        for index in range(size):
            expected = (*values[:index], -1, *values[index + 1 :])
            assert with_item(values, index, -1) == expected
            assert type(with_item(values, index, -1)) is tuple
        assert values == tuple(range(10, 10 + size))  # the original is untouched
        with pytest.raises(IndexError):
            with_item(values, size, -1)


def test_shared_workers_equal_new_ones() -> None:
    values = [
        (board, power, locked, space)
        for board in range(-1, 10)
        for power in range(0, 7)
        for locked in (False, True)
        for space in range(-2, 5)
    ]
    for board, power, locked, space in values:
        assert worker(board, power, locked, space) == Worker(board, power, locked, space)
    assert worker(3, 2) == Worker(3, 2) and worker(3, 2) is worker(3, 2, False, -1)


@pytest.mark.parametrize("first_game", [True, False])
def test_the_worker_table_holds_every_worker_of_a_game(first_game: bool) -> None:
    # A reachable worker outside the table would still fold right (built anew), but it
    # would mean the table's bounds (boards, powers, worship spaces) missed a case.
    seen = set()
    for state in game_states(2, first_game):
        for player in state.players:
            for w in player.workers:
                key = (w.board, w.power, w.locked, w.space)
                assert key in workers._TABLE and workers._TABLE[key] == w
                seen.add(key)
    assert any(locked for _, _, locked, _ in seen) and len(seen) > 20


@pytest.mark.parametrize("first_game", [True, False])
def test_compiled_reads_answer_what_the_state_methods_answer(first_game: bool) -> None:
    goods = ("cocoa", "wood", "stone", "gold", "vp")
    temples = ("blue", "red", "green")
    seen_out_of_play = False
    for state in game_states(3, first_game):
        for player in state.players:
            for good in goods:
                assert reads.amount(player, good) == player.amount(good)
            for temple in temples:
                assert reads.temple_step(player, temple) == player.temple(temple)
            assert tuple(reads.workers_in_play(player)) == player.workers_in_play()
            for w in player.workers:
                assert reads.in_play(w) is w.in_play
                seen_out_of_play |= not w.in_play
        for board in state.rondel:
            for steps in range(1, 9):
                expected = any(
                    state.board_at(state.position(board) + k) == PALACE for k in range(1, steps + 1)
                )
                assert turn.passes_palace(state, board, steps) is expected
    assert seen_out_of_play
    with pytest.raises(ValueError):
        reads.temple_step(state.players[0], "purple")


seats = st.integers(min_value=-1, max_value=3)
counts = st.integers(min_value=0, max_value=6)


@given(seat=seats)
def test_shared_seat_tasks_equal_new_ones(seat: int) -> None:
    for shared, cls in (
        (tasks.take_turn_task, tasks.TakeTurn),
        (tasks.start_turn_task, tasks.StartTurn),
        (tasks.end_turn_task, tasks.EndTurn),
    ):
        task = shared(seat)
        assert type(task) is cls and task == cls(seat=seat) and shared(seat) is task
        assert tasks.task_to_dict(task) == tasks.task_to_dict(cls(seat=seat))


@given(
    seat=seats,
    board=st.integers(min_value=0, max_value=8),
    workers=st.lists(st.integers(min_value=0, max_value=3), max_size=4).map(tuple),
    count=counts,
)
def test_shared_board_and_power_up_tasks_equal_new_ones(
    seat: int, board: int, workers: tuple[int, ...], count: int
) -> None:
    action = tasks.board_action_task(seat, board, workers)
    assert action == tasks.BoardAction(seat=seat, board=board, workers=workers)
    assert type(action) is tasks.BoardAction
    assert tasks.board_action_task(seat, board, tuple(workers)) is action
    power = tasks.power_ups_task(seat, board, count)
    assert power == tasks.PowerUps(seat=seat, board=board, count=count)
    assert type(power) is tasks.PowerUps and tasks.power_ups_task(seat, board, count) is power


@given(seat=seats, temple=st.sampled_from(["", "blue", "red", "green"]), count=counts)
def test_shared_temple_steps_equal_new_ones(seat: int, temple: str, count: int) -> None:
    steps = tasks.temple_steps_task(seat, temple, count)
    assert steps == tasks.TempleSteps(seat=seat, temple=temple, count=count)
    assert type(steps) is tasks.TempleSteps
    assert tasks.temple_steps_task(seat, temple, count) is steps
    assert tasks.task_to_dict(steps) == tasks.task_to_dict(
        tasks.TempleSteps(seat=seat, temple=temple, count=count)
    )


@pytest.mark.parametrize("first_game", [True, False])
def test_remembered_action_cost_is_the_count_afresh(first_game: bool) -> None:
    costs = set()
    for state in game_states(4, first_game):
        for board in range(1, 9):
            for seat in range(4):
                for moved in ((), (0,), (1, 2)):
                    expected = turn._colours_on(
                        state.players, state.neutral_workers, board, seat, moved
                    )
                    assert turn.action_cost(state, board, seat, moved) == expected
                    # asked again (remembered), and for a copy whose tuples are the same
                    assert turn.action_cost(state, board, seat, moved) == expected
                    assert turn.action_cost(replace(state), board, seat, moved) == expected
                    costs.add(expected)
    assert len(costs) > 2
