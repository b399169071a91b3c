"""A legal action named with what the state tells about it (issue 33).

``describe_action`` sees the action alone ("Move worker 1 2 boards on"); the list of
legal actions a seat is sent is described here, knowing the state: where a worker goes,
on which board a worship or a main action happens, what a discovery or starting tile
is. Only what the seat may see is named (boards, public tiles, the seat's own starting
tiles: legal actions go to their seat only), so a description leaks nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.safe_text import count

from .components import components
from .describe import describe_action, worker_number, workers_words
from .flow import pending_task
from .state import GameState
from .tasks import BoardAction

_DISCOVERY_NAMES = {
    "avenue_step": "an Avenue step",
    "temple_any": "a step on any temple",
    "double_move": "a double move",
    "free_cocoa_payment": "a free cocoa payment",
    "teleport": "a teleport",
    "extra_worker": "an extra worker",
}

_GAIN_NAMES = {
    "temple_blue": "blue temple step",
    "temple_red": "red temple step",
    "temple_green": "green temple step",
    "resources_any": "resources of your choice",
    "discovery": "discovery tile",
    "avenue": "Avenue step",
    "power_up": "power-up",
    "technology": "technology",
}


def _board(number: int) -> str:
    return components().board(number).name


def discovery_name(tile: int) -> str:
    """A discovery tile by what it gives: ``"mask 3"``, ``"4 cocoa"``, ``"a teleport"``."""
    data = components().raw["discovery_tiles"][tile]
    kind, amount = data["kind"], data.get("amount", "")
    if kind == "mask":
        return f"mask {data.get('mask')}"
    if kind == "temple":
        return f"a step on the {data.get('temple')} temple"
    if kind in ("vp", "cocoa"):
        return f"{amount} {'VP' if kind == 'vp' else 'cocoa'}"
    if kind == "power_up":
        return count(amount, "power-up")
    if kind == "resources_any":
        return f"{amount} resources of your choice"
    return _DISCOVERY_NAMES.get(kind, str(kind).replace("_", " "))


def _move(state: GameState, seat: int, action: Mapping[str, Any]) -> str:
    worker = state.players[seat].workers[int(action["worker"])]
    to = state.board_at(state.position(worker.board) + int(action["steps"]))
    along = action.get("with_workers")
    company = f", with {workers_words(along)} alongside" if along else ""
    return (
        f"Move worker {worker_number(action['worker'])} (power {worker.power}) "
        f"from {_board(worker.board)} "
        f"to {_board(to)}{company}"
    )


def _on_board(state: GameState, text: str) -> str:
    task = pending_task(state)
    if isinstance(task, BoardAction):
        return f"{text} ({_board(task.board)})"
    return text


def starting_tile_words(tile: int) -> str:
    """A starting tile by its face: ``"3 (Stone Quarry, Alchemy; 3 cocoa, 5 wood)"``."""
    data = components().raw["starting_tiles"][tile]
    boards = ", ".join(_board(b) for b in data["boards"])
    gains = ", ".join(f"{n} {_GAIN_NAMES.get(good, good)}" for good, n in data["gain"].items())
    return f"{tile} ({boards}; {gains})"


def describe_action_at(state: GameState, seat: int, action: Mapping[str, Any]) -> str:
    """``describe_action``'s words for ``seat``'s legal ``action`` on ``state``, naming the
    boards and tiles involved; falls back to them when the state tells nothing more."""
    words = describe_action(action)
    kind = action.get("type")
    try:
        if kind == "move":
            return _move(state, seat, action)
        if kind in ("worship", "collect_cocoa", "main_action"):
            return _on_board(state, words)
        if kind in ("claim_discovery", "flip_discovery"):
            return f"{words}: {discovery_name(int(action['tile']))}"
        if kind == "choose_starting_tiles":
            tiles = " and ".join(starting_tile_words(int(t)) for t in action["tiles"])
            return f"Keep starting tiles {tiles}"
        if kind == "draft_starting_tile":
            return f"Draft starting tile {starting_tile_words(int(action['tile']))}"
        if kind == "power_up":
            worker = state.players[seat].workers[int(action["worker"])]
            return (
                f"{words} (on {_board(worker.board)}, power {worker.power} to {worker.power + 1})"
            )
    except (KeyError, IndexError, ValueError, TypeError):
        return words
    return words
