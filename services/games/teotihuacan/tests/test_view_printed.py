"""The view's ``printed`` faces (rules/drawing.py) and the rulebook's words for actions
and events (rules/describe.py), as the web board reads them (issue 33)."""

from __future__ import annotations

from services.engine.domain.ruleset import DomainEvent
from services.games.teotihuacan.rules.components import components

from .builders import RULES, new_game


def test_printed_faces_are_those_of_the_components_in_view_and_none_from_a_bag() -> None:
    state = new_game(2, seed=3, first_game=True)
    printed = RULES.view(state, 0)["printed"]
    in_view = {t for *_, t, _ in state.pyramid_tiles} | set(state.pyramid_offer)
    assert set(printed["pyramid_tiles"]) == {str(t) for t in in_view}
    faces = components().raw["pyramid"]["tiles"]
    assert all(printed["pyramid_tiles"][str(t)] == faces[t] for t in in_view)
    assert not {str(t) for t in state.pyramid_supply} & set(printed["pyramid_tiles"])
    assert not {str(t) for t in state.discovery_supply} & set(printed["discoveries"])
    assert not {str(t) for t in state.decoration_supply} & set(printed["decoration_tiles"])
    assert printed["boards"][8] == "Construction" and len(printed["boards"]) == 9
    assert [t["number"] for t in printed["technologies"]] == [
        components().raw["technologies"][t]["number"] for t in state.technologies
    ]
    # The same faces for every seat and a spectator: they are public.
    assert RULES.view(state, 1)["printed"] == RULES.view(state, None)["printed"] == printed


def test_actions_read_as_the_rulebook_does() -> None:
    assert RULES.describe_action(
        {"type": "worship", "space": 0, "mode": "ability_then_discovery"}
    ) == (
        "Worship on worship space 1: use its ability, then take the discovery tile (1 cocoa more)"
    )
    assert RULES.describe_action({"type": "move", "worker": 1, "steps": 2}) == (
        "Move worker 2 2 boards on"
    )
    placed = {
        "type": "place_pyramid_tile",
        "tile": 4,
        "level": 1,
        "row": 0,
        "col": 2,
        "rotation": 1,
    }
    assert RULES.describe_action(placed) == (
        "Place pyramid tile 4 on level 1, row 0, column 2, turned 90° clockwise"
    )
    assert RULES.describe_action({"type": "ascension_reward", "reward": "cocoa_5"}) == (
        "Ascension: gain 5 cocoa"
    )
    for text in (RULES.describe_action({"type": t}) for t in ("main_action", "collect_cocoa")):
        assert "_" not in text and text[0].isupper()


def test_events_say_who_did_what() -> None:
    advanced = DomainEvent("TempleAdvanced", {"seat": 1, "temple": "blue", "step": 3})
    assert RULES.describe_event(advanced) == "seat 1 advanced on the blue temple (step 3)"
    moved = DomainEvent("WorkerMoved", {"seat": 0, "worker": 2, "from_board": 4, "to_board": 5})
    assert RULES.describe_event(moved) == "seat 0 moved a worker from Gold Deposits to Alchemy"
    assert RULES.describe_event(DomainEvent("TurnStarted", {"seat": 2})) == "seat 2's turn"


def test_legal_actions_are_named_with_where_they_are_played() -> None:
    """describe_action_at (the descriptions a seat's legal actions are sent with) names
    the boards a worker leaves and reaches, and a discovery tile by what it gives."""
    state = new_game(2, seed=1, first_game=True)
    worker = state.players[0].workers[0]
    to = state.board_at(state.position(worker.board) + 2)
    names = components().board
    move = {"type": "move", "worker": 0, "steps": 2}
    assert RULES.describe_action_at(state, 0, move) == (
        f"Move worker 1 (power {worker.power}) from {names(worker.board).name} to {names(to).name}"
    )
    claim = RULES.describe_action_at(state, 0, {"type": "claim_discovery", "tile": 36})
    assert claim == "Take discovery tile 36 (paying its cost): 4 cocoa"


def test_starting_tiles_are_named_by_their_faces_for_the_seat_choosing() -> None:
    state = new_game(2, seed=1, first_game=False)
    seat = state.current
    words = RULES.describe_action_at(
        state, seat, {"type": "choose_starting_tiles", "tiles": [0, 2]}
    )
    assert words == (
        "Keep starting tiles 0 (Stone Quarry, Alchemy; 3 cocoa, 5 wood) and "
        "2 (Forest, Nobles; 1 wood, 2 stone, 3 gold)"
    )
