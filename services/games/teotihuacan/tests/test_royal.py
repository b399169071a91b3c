"""RULES.md §3 Worship on the Palace (1): the nine royal tiles (components ``royal_tiles``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.teotihuacan.rules.royal import RoyalAbility
from services.games.teotihuacan.rules.state import GameState
from services.games.teotihuacan.rules.tasks import ResourceChoice, TakeTurn

from .builders import RULES, clear_board, goods, new_game, place, play, play_all, turn_of

PALACE, CONSTRUCTION, NOBLES = 1, 8, 6
WORSHIP = {"type": "worship", "space": 0, "mode": "ability"}


def _at_palace(tile: int, power: int, discovery: int = -1, **amounts: Any) -> GameState:
    """Seat 0 moves a worker of ``power`` from Construction onto the Palace, royal ``tile``
    on worship space 0, ``discovery`` at the Palace worship area."""
    state = clear_board(new_game(seats=2, seed=3))
    worship = list(state.worship_discoveries)
    worship[PALACE] = discovery
    state = replace(state, royal_tiles=(tile, 1, 2), worship_discoveries=tuple(worship))
    state = place(state, 0, (CONSTRUCTION, power))
    state = place(state, 1, (NOBLES, 1))
    state = goods(state, 0, **amounts)
    state = turn_of(state, 0)
    return play(state, 0, {"type": "move", "worker": 0, "steps": 1})


def _worship(state: GameState, mode: str = "ability", space: int = 0) -> GameState:
    return play(state, 0, {"type": "worship", "space": space, "mode": mode})


def test_palace_has_three_spaces_and_no_discovery_only_mode() -> None:
    state = _at_palace(0, 1, discovery=17, cocoa=1, wood=1)
    worships = [a for a in RULES.legal_actions(state, 0) if a["type"] == "worship"]
    assert {a["space"] for a in worships} == {0, 1, 2}
    assert {a["mode"] for a in worships} == {
        "ability",
        "ability_then_discovery",
        "discovery_then_ability",
    }


def test_royal_ability_plus_discovery_for_one_cocoa() -> None:
    state = _at_palace(0, 2, discovery=17, cocoa=1, wood=1)
    state = _worship(state, "discovery_then_ability")
    player = state.players[0]
    assert player.discoveries == (17,)
    assert (player.cocoa, player.wood) == (0 + 3, 0)
    assert player.workers[0].locked and player.workers[0].space == 0


def test_cocoa_power_plus_one() -> None:
    state = _worship(_at_palace(0, 3))
    assert state.players[0].cocoa == 4
    assert isinstance(state.agenda[-1], TakeTurn) and state.current == 1


def test_trade_cocoa_for_wood_and_stone_up_to_n_times() -> None:
    state = _worship(_at_palace(1, 2, cocoa=5))
    assert [a for a in RULES.legal_actions(state, 0) if a["type"] == "royal_trade"] == [
        {"type": "royal_trade", "times": 0},
        {"type": "royal_trade", "times": 1},
        {"type": "royal_trade", "times": 2},
    ]
    state = play(state, 0, {"type": "royal_trade", "times": 2})
    player = state.players[0]
    assert (player.cocoa, player.wood, player.stone) == (3, 2, 2)


def test_trade_cocoa_for_gold_and_stone_limited_by_cocoa() -> None:
    state = _worship(_at_palace(5, 4, cocoa=1))
    assert len(RULES.legal_actions(state, 0)) == 2
    state = play(state, 0, {"type": "royal_trade", "times": 1})
    player = state.players[0]
    assert (player.cocoa, player.gold, player.stone) == (0, 1, 1)


def test_trade_resources_for_two_cocoa_each() -> None:
    state = _worship(_at_palace(2, 2, wood=1, gold=2))
    assert RULES.legal_actions(state, 0) == [
        {"type": "royal_trade", "resource": "wood"},
        {"type": "royal_trade", "resource": "gold"},
        {"type": "royal_trade_done"},
    ]
    state = play_all(
        state,
        0,
        {"type": "royal_trade", "resource": "gold"},
        {"type": "royal_trade", "resource": "gold"},
    )
    player = state.players[0]
    assert (player.cocoa, player.wood, player.gold) == (4, 1, 0)
    assert state.current == 1  # N = 2 trades made: the ability is over


def test_vp_per_technology_capped_by_power() -> None:
    state = _at_palace(3, 2)
    state = goods(state, 0, technologies=(0, 1, 4))
    assert _worship(state).players[0].vp == 2 * 2


def test_vp_per_pyramid_step_capped_by_power() -> None:
    state = goods(_at_palace(4, 3), 0, pyramid=5)
    assert _worship(state).players[0].vp == 2 * 3


def test_pay_cocoa_and_a_resource_for_n_resources_once() -> None:
    state = _worship(_at_palace(6, 3, cocoa=1, wood=1))
    state = play(state, 0, {"type": "royal_trade", "resource": "wood"})
    assert state.agenda[-1] == ResourceChoice(seat=0, count=3)
    state = play_all(
        state,
        0,
        {"type": "take_resource", "resource": "gold"},
        {"type": "take_resource", "resource": "gold"},
        {"type": "take_resource", "resource": "stone"},
    )
    player = state.players[0]
    assert (player.cocoa, player.wood, player.stone, player.gold) == (0, 0, 1, 2)


def test_the_once_trade_may_be_declined() -> None:
    state = _worship(_at_palace(6, 3, cocoa=1, wood=1))
    state = play(state, 0, {"type": "royal_trade_done"})
    player = state.players[0]
    assert (player.cocoa, player.wood, state.current) == (1, 1, 1)


def test_cocoa_for_temple_steps_up_to_n_minus_one_times() -> None:
    state = _worship(_at_palace(7, 3, cocoa=5))
    state = play_all(
        state,
        0,
        {"type": "royal_temple", "temple": "red"},
        {"type": "royal_temple", "temple": "red"},
    )
    player = state.players[0]
    assert player.temples == (0, 2, 0) and player.vp == 2 and player.cocoa == 3
    assert state.current == 1


def test_cocoa_for_temple_with_power_one_gives_nothing() -> None:
    state = _worship(_at_palace(7, 1, cocoa=5))
    assert state.players[0].cocoa == 5 and state.current == 1


def test_vp_per_avenue_step_capped_by_power_plus_one() -> None:
    state = goods(_at_palace(8, 2), 0, avenue=5)
    assert _worship(state).players[0].vp == 3
    state = goods(_at_palace(8, 4), 0, avenue=2)
    assert _worship(state).players[0].vp == 2


def test_royal_trade_refusal_names_the_rule_and_changes_nothing() -> None:
    import random

    import pytest

    from services.engine.domain.ruleset import RuleViolation

    state = _worship(_at_palace(1, 2, cocoa=1))
    assert isinstance(state.agenda[-1], RoyalAbility)
    with pytest.raises(RuleViolation) as refused:
        RULES.decide(state, 0, {"type": "royal_trade", "times": 2}, random.Random(0))
    assert "RULES.md §3" in refused.value.message


# --- D11: a free cocoa payment covers the royal tile's trades; D16: zero trades -------------

FREE_COCOA = 45  # discovery tile: free cocoa payment


def _flip_free_cocoa(state: GameState) -> GameState:
    return play(state, 0, {"type": "flip_discovery", "tile": FREE_COCOA})


def test_d11_free_cocoa_tile_makes_royal_tile_1_at_power_3_give_3_wood_3_stone() -> None:
    # D11: "royal tile 1 at power 3 gives 3 wood + 3 stone for no cocoa".
    state = _flip_free_cocoa(_at_palace(1, 3, cocoa=0, discoveries=(FREE_COCOA,)))
    state = _worship(state)
    assert [a["times"] for a in RULES.legal_actions(state, 0) if "times" in a] == [0, 1, 2, 3]
    state = play(state, 0, {"type": "royal_trade", "times": 3})
    player = state.players[0]
    assert (player.cocoa, player.wood, player.stone) == (0, 3, 3)
    assert player.used_discoveries == (FREE_COCOA,) and player.active_effects == ()


def test_d11_one_tile_covers_displacing_and_the_trades_of_the_same_worship() -> None:
    # "One free-cocoa-payment discovery tile covers every cocoa payment of one worship
    # (displacing + both options + every cocoa a royal tile's ability charges)".
    state = _at_palace(1, 3, cocoa=0, discoveries=(FREE_COCOA,))
    state = place(state, 1, (PALACE, 2, 0), (NOBLES, 1))  # seat 1 locked on space 0
    state = _flip_free_cocoa(state)
    state = _worship(state)
    displaced = state.players[1].workers[0]
    assert displaced.board == PALACE and not displaced.locked
    state = play(state, 0, {"type": "royal_trade", "times": 3})
    player = state.players[0]
    assert (player.cocoa, player.wood, player.stone) == (0, 3, 3)
    assert player.used_discoveries == (FREE_COCOA,) and player.workers[0].locked


def test_d11_free_cocoa_tile_pays_every_temple_trade_of_royal_tile_7() -> None:
    state = _flip_free_cocoa(_at_palace(7, 3, cocoa=0, discoveries=(FREE_COCOA,)))
    state = _worship(state)
    state = play_all(
        state,
        0,
        {"type": "royal_temple", "temple": "red"},
        {"type": "royal_temple", "temple": "red"},
    )
    player = state.players[0]
    assert player.temples == (0, 2, 0) and player.cocoa == 0 and state.current == 1
    assert player.used_discoveries == (FREE_COCOA,)


def test_d11_free_cocoa_tile_pays_the_cocoa_of_royal_tile_6() -> None:
    state = _flip_free_cocoa(_at_palace(6, 2, cocoa=0, wood=1, discoveries=(FREE_COCOA,)))
    state = _worship(state)
    state = play(state, 0, {"type": "royal_trade", "resource": "wood"})
    assert state.agenda[-1] == ResourceChoice(seat=0, count=2)
    assert state.players[0].cocoa == 0 and state.players[0].wood == 0


def test_without_a_free_cocoa_tile_each_trade_costs_cocoa() -> None:
    state = _worship(_at_palace(1, 3, cocoa=1))
    assert [a["times"] for a in RULES.legal_actions(state, 0) if "times" in a] == [0, 1]


def test_d16_royal_worship_with_no_cocoa_is_legal_and_trades_nothing() -> None:
    # D16: "worshipping on a royal tile is legal with no cocoa; it trades nothing and the
    # worker is locked there."
    for tile in (1, 5, 6, 7):
        state = _at_palace(tile, 3, cocoa=0, wood=1)
        assert {"type": "worship", "space": 0, "mode": "ability"} in RULES.legal_actions(state, 0)
        state = _worship(state)
        if isinstance(state.agenda[-1], RoyalAbility):  # tile 6: the trade may be declined
            state = play(state, 0, {"type": "royal_trade_done"})
        player = state.players[0]
        assert player.workers[0].locked and player.workers[0].space == 0
        assert (player.cocoa, player.wood, player.stone, player.gold) == (0, 1, 0, 0)
        assert player.temples == (0, 0, 0) and state.current == 1


def test_d16_zero_trades_is_a_choice_even_with_cocoa() -> None:
    state = _worship(_at_palace(1, 3, cocoa=4))
    state = play(state, 0, {"type": "royal_trade", "times": 0})
    player = state.players[0]
    assert (player.cocoa, player.wood, player.stone, state.current) == (4, 0, 0, 1)


def test_an_agenda_written_before_the_free_field_still_restores() -> None:
    # AgendaUpdated events and snapshots of older games hold royal_ability tasks without
    # ``free``; they fold with the default (no free payment).
    from services.games.teotihuacan.rules.tasks import task_from_dict, task_to_dict

    old = {"kind": "royal_ability", "seat": 0, "tile": 1, "power": 3, "done": 0}
    task = task_from_dict(old)
    assert task == RoyalAbility(seat=0, tile=1, power=3, done=0, free=False)
    assert task_to_dict(task) == old  # written as before while ``free`` is False
    covered = RoyalAbility(seat=0, tile=1, power=3, free=True)
    assert task_to_dict(covered)["free"] is True
    assert task_from_dict(task_to_dict(covered)) == covered


@settings(max_examples=40, deadline=None)
@given(
    tile=st.sampled_from([1, 5]),
    power=st.integers(1, 5),
    cocoa=st.integers(0, 6),
    flipped=st.booleans(),
)
def test_d11_property_pair_trades_cost_cocoa_unless_a_free_tile_is_flipped(
    tile: int, power: int, cocoa: int, flipped: bool
) -> None:
    # Royal tiles 1 and 5 trade 1 cocoa for a pair of resources "up to N times"; with a
    # flipped free-cocoa-payment tile every trade of that worship is free (D11).
    state = _at_palace(tile, power, cocoa=cocoa, discoveries=(FREE_COCOA,))
    if flipped:
        state = _flip_free_cocoa(state)
    state = _worship(state)
    most = power if flipped else min(power, cocoa)
    if isinstance(state.agenda[-1], RoyalAbility):
        options = [a["times"] for a in RULES.legal_actions(state, 0) if a["type"] == "royal_trade"]
        assert options == list(range(most + 1))
        state = play(state, 0, {"type": "royal_trade", "times": most})
    else:  # the single option "0 trades" resolved on its own (D16)
        assert most == 0
    player = state.players[0]
    assert player.cocoa == (cocoa if flipped else cocoa - most)
    assert player.stone == most and (player.wood if tile == 1 else player.gold) == most
    assert player.used_discoveries == ((FREE_COCOA,) if flipped else ())
