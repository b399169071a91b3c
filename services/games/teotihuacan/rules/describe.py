"""Plain words for actions and events, and the JSON projection clients see."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.engine.domain.ruleset import DomainEvent
from services.safe_text import count, plural

from .components import NOT_A_TILE, components
from .drawing import printed_faces
from .flow import legal_actions, pending_task, rules_of
from .state import GameState, state_to_dict
from .tasks import kind_of

MILESTONES = frozenset({"EclipseScored", "GameEnded", "EclipseTriggered"})


def _board(number: Any) -> str:
    return components().board(int(number)).name


def worker_number(index: Any) -> str:
    """A worker's number as a player reads it, counting from 1: the action's (and the
    event's) index 0 is worker ``"1"``. An index that is not a number reads as it is."""
    try:
        return str(int(index) + 1)
    except (TypeError, ValueError):
        return str(index)


def workers_words(workers: Sequence[Any]) -> str:
    """Workers by number (from 1), the noun agreeing: indices ``[0]`` read ``"worker 1"``,
    ``[0, 1]`` ``"workers 1, 2"``."""
    numbers = ", ".join(worker_number(w) for w in workers)
    return f"{plural(len(workers), 'worker')} {numbers}"


_WORKER_INDEX = re.compile(r"\bworker (\d+)\b")


def teotibot_reason_words(reason: Any) -> str:
    """The reason of a ``TeotibotActionChosen`` event as a player reads it: the payload
    names a worker by its index ("mastery: worker 0 can act there"); the words number it
    from 1 ("worker 1"), as everywhere else. The payload itself is never changed."""
    return _WORKER_INDEX.sub(lambda m: f"worker {worker_number(m.group(1))}", str(reason))


WORSHIP_WORDS = {
    "ability": "use its ability",
    "discovery": "take the discovery tile there",
    "ability_then_discovery": "use its ability, then take the discovery tile (1 cocoa more)",
    "discovery_then_ability": "take the discovery tile, then use its ability (1 cocoa more)",
}
"""How each worship mode reads (RULES.md §3, Worship: ability, discovery, or both)."""

ASCENSION_WORDS = {
    "vp_5": "score 5 VP",
    "cocoa_5": "gain 5 cocoa",
    "temple_1": "advance 1 step on a temple",
    "pay_3_cocoa_temple_2": "pay 3 cocoa to advance 2 steps on temples",
    "fourth_worker_and_2_cocoa": "bring in your fourth worker and gain 2 cocoa",
}
"""The ascension rewards (RULES.md §5) as the rulebook names them."""


def _steps(n: Any) -> str:
    return "1 board" if n == 1 else f"{n} boards"


def _move_words(action: Mapping[str, Any]) -> str:
    along = action.get("with_workers")
    company = f", with {workers_words(along)} alongside" if along else ""
    worker = worker_number(action.get("worker"))
    return f"Move worker {worker} {_steps(action.get('steps'))} on{company}"


def _pyramid_words(action: Mapping[str, Any]) -> str:
    discount = f" ({action['discount']} discount)" if "discount" in action else ""
    turns = int(action.get("rotation", 0))
    turned = "unturned" if turns == 0 else f"turned {turns * 90}° clockwise"
    return (
        f"Place pyramid tile {action.get('tile')} on level {action.get('level')}, "
        f"row {action.get('row')}, column {action.get('col')}, {turned}{discount}"
    )


def describe_action(action: Mapping[str, Any]) -> str:
    """One line naming ``action`` as the rulebook would, e.g. ``"Move worker 1 2 boards on"``
    (workers numbered from 1: that is the action's worker 0).

    The action alone names no board a worker stands on; clients holding the view name
    the destination themselves (the web board does).
    """
    kind = action.get("type")
    words = _ACTION_WORDS.get(str(kind))
    if words is not None:
        return words(action)
    return str(kind).replace("_", " ").capitalize()


_ACTION_WORDS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "move": _move_words,
    "teleport": lambda a: (
        f"Move worker {worker_number(a.get('worker'))} straight to {_board(a.get('board', 1))}"
    ),
    "flip_discovery": lambda a: f"Use discovery tile {a.get('tile')}",
    "claim_discovery": lambda a: f"Take discovery tile {a.get('tile')} (paying its cost)",
    "decline_discovery": lambda a: "Take no discovery tile",
    "take_reward": lambda a: "Take the temple step's printed reward instead",
    "royal_trade": lambda a: (
        f"Trade {count(a['times'], 'time')} with the royal tile"
        if "times" in a
        else f"Trade with the royal tile for {a.get('resource')}"
    ),
    "royal_temple": lambda a: f"Royal tile: advance on the {a.get('temple')} temple",
    "royal_trade_done": lambda a: "Stop trading with the royal tile",
    "teotibot_turn": lambda a: "Play Teotibot's turn (roll its dice, act by the solo rules)",
    "stop_construction": lambda a: "Place no more pyramid tiles",
    "pay_unlock": lambda a: "Pay 3 cocoa to unlock all your workers",
    "unlock": lambda a: "Unlock all your workers (this is your whole turn)",
    "worship": lambda a: (
        f"Worship on worship space {int(a.get('space', 0)) + 1}: "
        + WORSHIP_WORDS.get(str(a.get("mode")), str(a.get("mode")).replace("_", " "))
    ),
    "collect_cocoa": lambda a: "Collect cocoa instead of the board's action",
    "main_action": lambda a: "Take the board's main action",
    "advance_temple": lambda a: f"Advance on the {a.get('temple')} temple",
    "take_resource": lambda a: f"Take 1 {a.get('resource')}",
    "power_up": lambda a: f"Power up worker {worker_number(a.get('worker'))}",
    "ascension_reward": lambda a: (
        "Ascension: "
        + ASCENSION_WORDS.get(str(a.get("reward")), str(a.get("reward")).replace("_", " "))
    ),
    "pay_salary": lambda a: f"Pay {a.get('cocoa')} cocoa of salary",
    "choose_technology": lambda a: f"Take the technology in slot {a.get('slot')}",
    "build": lambda a: f"Build on the {a.get('row')} row of Nobles",
    "place_pyramid_tile": _pyramid_words,
    "place_decoration": lambda a: (
        f"Place decoration {a.get('tile')} on the {a.get('side')} side, step {a.get('step')}"
    ),
    "extra_power_up": lambda a: (
        "Pay 1 cocoa for technology #13's extra power-up" if a.get("pay") else "No extra power-up"
    ),
    "choose_starting_tiles": lambda a: f"Keep starting tiles {a.get('tiles')}",
    "draft_starting_tile": lambda a: f"Draft starting tile {a.get('tile')}",
    "place_starting_workers": lambda a: (
        "Start with workers on " + ", ".join(_board(b) for b in a.get("boards", []))
    ),
}
"""Each action type's words (``describe_action``)."""


def describe_event(event: DomainEvent) -> str:
    """One line telling what ``event`` means."""
    p = event.payload
    seat = f"seat {p['seat']}" if "seat" in p else ""
    match event.type:
        case "GameSetUp":
            return "the game is set up"
        case "TurnStarted":
            return f"{seat}'s turn"
        case "WorkerMoved":
            return (
                f"{seat} moved a worker from {_board(p['from_board'])} to {_board(p['to_board'])}"
            )
        case "GoodsChanged":
            parts = ", ".join(f"{v:+d} {k}" for k, v in p["delta"].items())
            return f"{seat} {parts} ({p['reason'].replace('_', ' ')})"
        case "WorkersUnlocked":
            return f"{seat} unlocked its workers (paid {p['cocoa_paid']} cocoa)"
        case "WorkerLocked":
            return f"{seat} worshipped on {_board(p['board'])}"
        case "WorkerDisplaced":
            return f"{seat}'s worker was displaced from {_board(p['board'])}'s worship space"
        case "TempleAdvanced":
            return f"{seat} advanced on the {p['temple']} temple (step {p['step']})"
        case "WorkerPoweredUp":
            return f"{seat} powered a worker up to {p['power']}"
        case "WorkerAscended":
            return f"{seat}'s worker ascended"
        case "CalendarAdvanced":
            return f"the light calendar marker moves to {p['light']}"
        case "EclipseTriggered":
            return "an eclipse is coming" + (" (the final one)" if p["final"] else "")
        case "EclipseScored":
            lines = "; ".join(f"seat {s['seat']} +{s['total']}" for s in p["scores"])
            return f"eclipse {p['eclipse']} scored: {lines}"
        case "SalaryPaid":
            return f"{seat} paid {p['paid']} of {p['owed']} cocoa salary, lost {p['vp_lost']} VP"
        case "TechnologyAcquired":
            return f"{seat} took a technology (paid {p['gold_paid']} gold)"
        case "BuildingBuilt":
            return f"{seat} built on the {p['row']} row of Nobles for {p['vp']} VP"
        case "PyramidTilePlaced":
            return (
                f"{seat} placed a pyramid tile on level {p['level']} "
                f"({p['matches']} matching icons)"
            )
        case "DecorationPlaced":
            return f"{seat} placed a decoration on the {p['side']} side, step {p['step']}"
        case "PyramidCompleted":
            return f"{seat} completed the pyramid: the next eclipse is the final one"
        case "AvenueAdvanced":
            return f"{seat} advanced on the Avenue of the Dead (step {p['step']})"
        case "PyramidTrackAdvanced":
            return f"{seat} advanced on the Pyramid track (step {p['step']})"
        case "DiscoveryClaimed":
            return f"{seat} took discovery tile {p['tile']}"
        case "DiscoveryFlipped":
            return f"{seat} used discovery tile {p['tile']} ({p['effect'].replace('_', ' ')})"
        case "DiscoveryDrawn":
            return f"discovery tile {p['tile']} is drawn for {_board(p['board'])}"
        case "StartingTilesRevealed":
            return "the starting tiles are revealed"
        case "TeotibotDiceRolled":
            return (
                f"Teotibot rolls {p['dice']} = {p['total']}: position {p['position']}, {p['tile']}"
            )
        case "TeotibotActionChosen":
            reason = teotibot_reason_words(p["reason"])
            return f"Teotibot's {p['tile']} tile: {p['step']} ({reason})"
        case "TeotibotActionPyramidShifted":
            return f"Teotibot's action pyramid shifts {p['direction']}; {p['used']} is set aside"
        case "TeotibotDirectionFlipped":
            return f"Teotibot's direction tile flips; next: {p['directions'][0]}"
        case "TeotibotWorkerRelocated":
            return f"Teotibot's worker moves to {_board(p['to_board'])}'s worship space"
        case "TeotibotDiscoveryDiscarded":
            return f"Teotibot discards discovery tile {p['tile']} at {_board(p['board'])}"
        case "TeotibotFinalScored":
            return f"Teotibot scores {p['vp']} VP for cocoa, resources and technologies"
        case "GameEnded":
            scores = ", ".join(f"seat {i}: {vp}" for i, vp in enumerate(p["final_scores"]))
            return f"the game ends ({scores}); seat {p['ranking'][0]} wins"
        case "FourthWorkerJoined":
            return f"{seat}'s fourth worker joins with power {p['power']}"
        case "AgendaUpdated":
            return "(bookkeeping: the steps still to resolve)"
        case "DecorationOfferRefilled":
            return f"decoration tile {p['tile']} is put on offer"
        case "PyramidOfferRefilled":
            return f"pyramid tile {p['tile']} is put on offer"
        case "DiscoveryEffectUsed":
            return f"{seat} uses a discovery tile ({p['effect'].replace('_', ' ')})"
        case "DiscoveryEffectsExpired":
            effects = ", ".join(str(e).replace("_", " ") for e in p["effects"])
            return f"{seat}'s unused discovery effects expire ({effects})"
        case "EclipseEnded":
            return f"eclipse {p['eclipse']} is over: the calendar starts again"
        case "NeutralWorkersPlaced":
            boards = ", ".join(_board(board) for board, _ in p["workers"])
            return f"neutral workers are placed on {boards}"
        case "RoundEnded":
            return f"round {p['round']} ends"
        case "StartingTileDrafted":
            return f"{seat} drafts starting tile {p['tile']}"
        case "StartingTilesChosen":
            return f"{seat} chooses its starting tiles (hidden until all have chosen)"
        case "StartingTilesReturned":
            return "the starting tiles nobody kept go back to the box"
        case "StartingWorkersPlaced":
            boards = ", ".join(_board(b) for b in p["boards"])
            return f"{seat} places its starting workers on {boards}"
        case "TempleBonusScored":
            return f"{seat} scores {p['vp']} VP for the {p['temple']} temple's bonus tile"
        case _:
            return f"{event.type} {seat}".strip()


def _hide_starting_tiles(
    data: dict[str, Any], state: GameState, seat: int | None
) -> dict[str, Any]:
    """``data`` (the JSON form of ``state``) without the starting tiles ``seat`` can't see:
    other seats' hands and secret choices, and the discovery tiles dealt with them."""
    visible = _visible_starting_tiles(state, seat)
    visible.discard(NOT_A_TILE)  # placeholders of a fold without the sealed values
    for index, player in enumerate(data["players"]):
        if index != seat:
            player["starting_tiles"] = [t for t in player["starting_tiles"] if t in visible]
            player["chosen_starting_tiles"] = [
                t for t in player["chosen_starting_tiles"] if t in visible
            ]
    data["starting_tile_discoveries"] = [
        d if tile in visible else NOT_A_TILE
        for tile, d in enumerate(state.starting_tile_discoveries)
    ]
    return data


def _visible_starting_tiles(state: GameState, seat: int | None) -> set[int]:
    """Starting tiles ``seat`` may see: its own hand, the draft offer, revealed choices."""
    visible = set(state.starting_tile_offer)
    if seat is not None and 0 <= seat < state.seat_count:
        visible.update(state.players[seat].starting_tiles)
    everyone_chose = all(len(p.chosen_starting_tiles) == 2 for p in state.players)
    if everyone_chose or state.options.draft_starting_tiles:
        visible.update(t for p in state.players for t in p.chosen_starting_tiles)
    return visible


def is_milestone(event: DomainEvent) -> bool:
    """Events a summary shows: eclipse triggers and scoring, the game's end."""
    return event.type in MILESTONES


SUPPLIES = ("pyramid_supply", "decoration_supply", "discovery_supply")


def view(state: GameState, seat: int | None) -> dict[str, Any]:
    """JSON projection for ``seat`` (None: a watcher), hiding what that seat can't see.

    Hidden: other seats' dealt starting tiles, their secret choice until revealed, the
    discovery tiles dealt with tiles the viewer can't see, and what is in the bags (only
    their sizes are shown). ``printed`` holds the faces of the components in view
    (:func:`.drawing.printed_faces`), for clients that draw the table.
    """
    data = _hide_starting_tiles(state_to_dict(state), state, seat)
    for supply in SUPPLIES:
        data[f"{supply}_size"] = len(data.pop(supply))
    task = pending_task(state)
    data["scores"] = [p.vp for p in state.players]
    data["avenue_value"] = components().avenue_value(state.buildings_taken)
    data["waiting_for"] = (
        None
        if task is None
        else {"seat": task.seat, "decision": rules_of(task).decision, "kind": kind_of(task)}
    )
    data["printed"] = printed_faces(state)
    if seat is not None:
        data["your_legal_actions"] = legal_actions(state, seat)
    return data
