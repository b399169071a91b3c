"""RULES.md §1.1, §1.2.4-5: standard setup, secret starting-tile choice, draft, hidden views."""

from __future__ import annotations

from dataclasses import replace

from services.games.teotihuacan.rules.components import components
from services.games.teotihuacan.rules.state import GameState

from .builders import RULES, new_game, play


def _standard(seats: int = 3, seed: int = 4, **options: bool) -> GameState:
    return new_game(seats=seats, seed=seed, first_game=False, **options)


def test_standard_board_is_random_within_the_rules() -> None:
    tables = components().raw
    rondels = set()
    for seed in range(10):
        state = _standard(seed=seed)
        assert state.rondel[0] == 1 and state.rondel[-1] == 8
        assert sorted(state.rondel[1:-1]) == [2, 3, 4, 5, 6, 7]
        rondels.add(state.rondel)
        categories = [tables["royal_tiles"][t]["category"] for t in state.royal_tiles]
        assert categories == ["A", "B", "C"]
        numbers = [tables["technologies"][t]["number"] for t in state.technologies]
        assert len(numbers) == 6 and numbers == sorted(numbers)
        assert len(set(state.temple_bonus)) == 3
        hands = [p.starting_tiles for p in state.players]
        assert all(len(h) == 4 for h in hands) and len({t for h in hands for t in h}) == 12
        assert state.phase == "setup" and set(RULES.seats_to_act(state)) == {0, 1, 2}
    assert len(rondels) > 1


def test_choices_are_secret_until_everyone_has_chosen() -> None:
    state = _standard()
    a, b, c = state.turn_order
    pick = {s: list(state.players[s].starting_tiles[:2]) for s in (a, b, c)}
    state = play(state, a, {"type": "choose_starting_tiles", "tiles": pick[a]})
    assert RULES.seats_to_act(state) == (b, c)
    assert RULES.view(state, a)["players"][a]["chosen_starting_tiles"] == pick[a]
    assert RULES.view(state, b)["players"][a]["chosen_starting_tiles"] == []
    assert RULES.view(state, b)["players"][a]["starting_tiles"] == []  # another seat's hand
    assert RULES.view(state, None)["players"][a]["chosen_starting_tiles"] == []
    assert "discovery_supply" not in RULES.view(state, None)
    state = play(state, c, {"type": "choose_starting_tiles", "tiles": pick[c]})
    state = play(state, b, {"type": "choose_starting_tiles", "tiles": pick[b]})
    public = RULES.view(state, None)["players"]
    assert [public[s]["chosen_starting_tiles"] for s in (a, b, c)] == [pick[a], pick[b], pick[c]]
    assert len(RULES.seats_to_act(state)) == 1  # now one seat at a time sets up


def test_seat_gains_its_two_tiles_and_places_three_workers() -> None:
    state = _standard(seats=2, seed=1)
    first, second = state.turn_order
    # Give the first seat tiles 9 (boards 1, 4: red step, 5 cocoa, 2 gold) and
    # 7 (boards 4, 5: technology, 2 gold); the second seat tiles 0 and 1.
    players = list(state.players)
    players[first] = replace(players[first], starting_tiles=(9, 7, 2, 4))
    players[second] = replace(players[second], starting_tiles=(0, 1, 5, 6))
    # The lowest-numbered technology (#1, id 0) in the red column: its step needs no choice.
    state = replace(state, players=tuple(players), technologies=(3, 0, 5, 6, 7, 8))
    cocoa = state.players[first].cocoa
    state = play(state, first, {"type": "choose_starting_tiles", "tiles": [9, 7]})
    state = play(state, second, {"type": "choose_starting_tiles", "tiles": [0, 1]})
    # Boards 1, 4, 5 are the only three different boards: placed without asking.
    workers = state.players[first].workers_in_play()
    assert sorted(w.board for w in workers) == [1, 4, 5] and {w.power for w in workers} == {1}
    player = state.players[first]
    assert player.cocoa == cocoa + 5 and player.gold == 4
    assert player.technologies == (1,)  # the slot of technology #1
    assert player.temples[1] == 2 and player.vp == 2  # red steps 1 and 2: +1 VP each
    # The second seat's tiles print boards 3, 5 and 3, 8: three different boards too.
    assert sorted(w.board for w in state.players[second].workers_in_play()) == [3, 5, 8]
    assert state.phase == "turn" and RULES.seats_to_act(state) == (first,)


def test_four_different_boards_make_placement_a_choice() -> None:
    state = _standard(seats=2, seed=1)
    first, second = state.turn_order
    players = list(state.players)
    players[first] = replace(players[first], starting_tiles=(0, 2, 4, 5))  # boards 3,5 + 2,6
    state = replace(state, players=tuple(players))
    state = play(state, first, {"type": "choose_starting_tiles", "tiles": [0, 2]})
    hand = list(state.players[second].starting_tiles[:2])
    state = play(state, second, {"type": "choose_starting_tiles", "tiles": hand})
    options = RULES.legal_actions(state, first)
    assert [o["boards"] for o in options] == [[2, 3, 5], [2, 3, 6], [2, 5, 6], [3, 5, 6]]


def test_draft_picks_in_snake_order() -> None:
    state = _standard(seats=3, seed=2, draft_starting_tiles=True)
    assert len(state.starting_tile_offer) == 2 * 3 + 2
    order = list(state.turn_order)
    pickers = []
    while state.phase == "setup":
        (seat,) = RULES.seats_to_act(state)
        pickers.append(seat)
        state = play(state, seat, RULES.legal_actions(state, seat)[0])
    assert pickers == [*order, *reversed(order)]
    assert all(len(p.chosen_starting_tiles) == 2 for p in state.players)
