"""Teotihuacan's plain words for what the screen shows: tiles, legal actions, events.

Everything here is a pure function of the JSON projection (``view()``, see
``services/games/teotihuacan/rules/describe.py``) and the component tables, so the
client names things in the terms of RULES.md without asking the server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from services.engine.domain.ruleset import DomainEvent
from services.games.teotihuacan.rules import describe
from services.games.teotihuacan.rules.components import components
from services.tui.words import seat_label

View = Mapping[str, Any]
TEMPLE_STYLE: dict[str, str] = {"blue": "bold blue", "red": "bold red", "green": "bold green"}
FREE_ACTIONS = frozenset({"pay_unlock", "flip_discovery"})

GROUPS: dict[str, str] = {
    "move": "Move a worker",
    "teleport": "Move a worker",
    "unlock": "Unlock (the whole turn)",
    "collect_cocoa": "On the destination board",
    "main_action": "On the destination board",
    "worship": "On the destination board",
    "pay_unlock": "Free actions",
    "flip_discovery": "Free actions",
    "claim_discovery": "Discovery tiles",
    "decline_discovery": "Discovery tiles",
    "take_reward": "Discovery tiles",
    "advance_temple": "Temples",
    "royal_temple": "Royal tile",
    "royal_trade": "Royal tile",
    "royal_trade_done": "Royal tile",
    "take_resource": "Resources",
    "power_up": "Power-up",
    "extra_power_up": "Power-up",
    "ascension_reward": "Ascension",
    "pay_salary": "Eclipse salary",
    "choose_technology": "Technologies (Alchemy)",
    "build": "Nobles",
    "place_pyramid_tile": "Pyramid tiles (Construction)",
    "stop_construction": "Pyramid tiles (Construction)",
    "place_decoration": "Decorations",
    "choose_starting_tiles": "Starting tiles",
    "draft_starting_tile": "Starting tiles",
    "place_starting_workers": "Starting tiles",
}


def board_name(number: int) -> str:
    """Display name of the board with printed ``number`` (1-8)."""
    return components().board(int(number)).name


@cache
def _table(key: str) -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = components().raw[key]
    return table


def cost_words(cost: Mapping[str, int]) -> str:
    """``{"cocoa": 1, "wood": 1}`` -> ``"1 cocoa + 1 wood"`` (``"free"`` if empty)."""
    return " + ".join(f"{n} {good}" for good, n in cost.items()) or "free"


def discovery_words(tile: int, with_cost: bool = True) -> str:
    """A discovery tile in words, e.g. ``"mask 3 (1 cocoa + 1 wood)"``."""
    if tile < 0:
        return "-"
    data = _table("discovery_tiles")[tile]
    kind = data["kind"]
    amount = data.get("amount", "")
    names = {
        "mask": f"mask {data.get('mask')}",
        "vp": f"{amount} VP",
        "avenue_step": "Avenue step",
        "temple_any": "any temple step",
        "temple": f"{data.get('temple')} temple step",
        "cocoa": f"{amount} cocoa",
        "power_up": f"{amount} power-ups",
        "double_move": "double move",
        "free_cocoa_payment": "free cocoa payment",
        "teleport": "teleport",
        "extra_worker": "extra worker",
        "resources_any": f"{amount} resources",
    }
    name = names.get(kind, str(kind).replace("_", " "))
    return f"{name} ({cost_words(data.get('cost', {}))})" if with_cost else name


def technology_words(tech: int) -> str:
    """``"#3 (1 gold): After the main action of Alchemy ..."``."""
    data = _table("technologies")[tech]
    return f"#{data['number']} ({data['cost_gold']} gold): {data['text']}"


def royal_words(tile: int) -> str:
    """A royal tile's text."""
    return str(_table("royal_tiles")[tile]["text"])


def temple_bonus_words(tile: int) -> str:
    """A temple bonus tile's text."""
    return str(_table("temple_bonus_tiles")[tile]["text"])


def decoration_icons(tile: int) -> str:
    """Icons of a decoration tile (upper case = coloured icon)."""
    return str(components().raw["decorations"]["tiles"][tile])


def pyramid_icons(tile: int) -> str:
    """Quadrants TL, TR, BR, BL of a pyramid tile (upper case = coloured icon)."""
    return str(components().raw["pyramid"]["tiles"][tile])


def worker_words(view: View, seat: int, worker: int) -> str:
    """``"worker 1 (Forest, power 2)"`` for the seat's worker index 0 (workers are
    numbered from 1, as in the move list)."""
    workers = view["players"][seat]["workers"]
    number = describe.worker_number(worker)
    if not 0 <= worker < len(workers):
        return f"worker {number}"
    w = workers[worker]
    return f"worker {number} ({board_name(w['board'])}, power {w['power']})"


def _destination(view: View, seat: int, worker: int, steps: int) -> str:
    workers = view["players"][seat]["workers"]
    if not 0 <= worker < len(workers):
        return "?"
    rondel: list[int] = view["rondel"]
    position = rondel.index(workers[worker]["board"])
    return board_name(rondel[(position + steps) % len(rondel)])


def action_words(action: Mapping[str, Any], view: View | None, seat: int | None) -> str:
    """Name ``action`` in game terms, with what the projection tells about it.

    Falls back to the ruleset's ``describe_action`` for anything not enriched here.
    """
    kind = action.get("type")
    base = describe.describe_action(action)
    if view is None or seat is None:
        return base
    try:
        if kind == "move":
            worker = int(action["worker"])
            to = _destination(view, seat, worker, int(action["steps"]))
            along_workers = action.get("with_workers")
            along = f" with {describe.workers_words(along_workers)}" if along_workers else ""
            return f"move {worker_words(view, seat, worker)} {action['steps']} -> {to}{along}"
        if kind == "teleport":
            return f"teleport {worker_words(view, seat, int(action['worker']))} to " + board_name(
                int(action.get("board", 1))
            )
        if kind in ("claim_discovery", "flip_discovery"):
            claim = kind == "claim_discovery"
            tile = discovery_words(int(action["tile"]), with_cost=claim)
            return f"{'claim' if claim else 'flip'} discovery tile: {tile}"
        if kind == "choose_technology":
            tech = view["technologies"][int(action["slot"])]
            return f"take technology {technology_words(tech)}"
        if kind == "place_pyramid_tile":
            icons = pyramid_icons(int(action["tile"]))
            discount = f", {action['discount']} discount" if "discount" in action else ""
            return (
                f"pyramid tile [{icons}] on level {action['level']} "
                f"(row {action['row']}, column {action['col']}), "
                f"turned {action['rotation']}x{discount}"
            )
        if kind == "place_decoration":
            icons = decoration_icons(int(action["tile"]))
            return f"decoration [{icons}] on the {action['side']} side, step {action['step']}"
        if kind == "power_up":
            return f"power up {worker_words(view, seat, int(action['worker']))}"
    except (KeyError, IndexError, ValueError, TypeError):
        return base
    return base


def group_of(action: Mapping[str, Any]) -> str:
    """Heading under which the action list shows ``action``."""
    return GROUPS.get(str(action.get("type")), "Other")


def _more_words(event: DomainEvent) -> str | None:
    """Plain words for events the ruleset describes only by name (and the solo mode's
    own events, RULES.md §8); None for the others."""
    p = event.payload
    match event.type:
        case "TeotibotDiceRolled":
            dice = "+".join(str(d) for d in p.get("dice", ()))
            return (
                f"Teotibot rolls {dice} = {p.get('total')}: action tile at position "
                f"{p.get('position')} ({p.get('tile')})"
            )
        case "TeotibotActionChosen":
            reason = str(p.get("reason", "")).replace("_", " ")
            reason = describe.teotibot_reason_words(reason)
            return f"Teotibot does {p.get('tile')}" + (f": {reason}" if reason else "")
        case "TeotibotActionPyramidShifted":
            return f"Teotibot's action pyramid shifts {p.get('direction')}"
        case "TeotibotDirectionFlipped":
            return "Teotibot flips its direction tile"
        case "TeotibotWorkerRelocated":
            return (
                f"Teotibot's worker moves from {board_name(p['from_board'])} to "
                f"{board_name(p['to_board'])}'s worship space"
            )
        case "TeotibotDiscoveryDiscarded":
            return (
                f"Teotibot discards the discovery tile at {board_name(p['board'])}: "
                f"{discovery_words(int(p['tile']), with_cost=False)}"
            )
        case "DiscoveryClaimed":
            return f"seat {p['seat']} claims a discovery tile: {_discovery_name(p['tile'])}"
        case "DiscoveryFlipped":
            return f"seat {p['seat']} uses a discovery tile: {_discovery_name(p['tile'])}"
        case "DiscoveryDrawn":
            return (
                f"a discovery tile is laid out at {board_name(p['board'])}: "
                f"{_discovery_name(p['tile'])}"
            )
        case "RoundEnded":
            return f"round {p.get('round')} ends"
        case "EclipseEnded":
            return f"eclipse {p.get('eclipse')} is over; the dark marker moves to {p.get('dark')}"
        case "NeutralWorkersPlaced":
            return "the neutral workers are placed again"
        case "TempleBonusScored":
            return f"seat {p.get('seat')} scores {p.get('vp')} VP of a temple bonus tile"
        case "SeedRevealed":
            return "the game's secret seed is revealed (the log can now be audited)"
        case "TeotibotFinalScored":
            return f"Teotibot scores {p.get('vp')} VP for cocoa, resources and technologies"
    return None


def _discovery_name(tile: object) -> str:
    return discovery_words(int(str(tile)), with_cost=False)


def event_words(event: DomainEvent, names: Sequence[str]) -> str:
    """One line for the log, with seat names instead of numbers."""
    text = _more_words(event)
    if text is None:
        try:
            text = describe.describe_event(event)
        except (KeyError, IndexError, TypeError, ValueError):
            text = event.type
    seat = event.payload.get("seat")
    if isinstance(seat, int):
        text = text.replace(f"seat {seat}", seat_label(names, seat))
    if event.type in ("EclipseScored", "GameEnded"):
        for index in range(len(names)):
            text = text.replace(f"seat {index}", seat_label(names, index))
    return text


QUIET_EVENTS = frozenset(
    {"AgendaUpdated", "PyramidOfferRefilled", "DecorationOfferRefilled", "DiscoveryEffectsExpired"}
)
"""Bookkeeping events the log leaves out."""
