"""Plain words for actions and events, and the JSON projection clients see."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.engine.domain.ruleset import DomainEvent

from .components import NOT_A_TILE, components
from .flow import legal_actions, pending_task, rules_of
from .state import GameState, state_to_dict
from .tasks import kind_of

MILESTONES = frozenset({"EclipseScored", "GameEnded", "EclipseTriggered"})


def _board(number: Any) -> str:
    return components().board(int(number)).name


def describe_action(action: Mapping[str, Any]) -> str:
    """One line naming ``action`` in the game's terms, e.g. ``"move worker 1 by 2"``."""
    kind = action.get("type")
    if kind == "move":
        along = f" with workers {action['with_workers']}" if action.get("with_workers") else ""
        return f"move worker {action.get('worker')} by {action.get('steps')}{along}"
    if kind == "teleport":
        return f"teleport worker {action.get('worker')} to {_board(action.get('board', 1))}"
    if kind == "flip_discovery":
        return f"flip discovery tile {action.get('tile')}"
    if kind == "claim_discovery":
        return f"claim discovery tile {action.get('tile')}"
    if kind == "decline_discovery":
        return "claim no discovery tile"
    if kind == "take_reward":
        return "take the printed temple reward"
    if kind == "royal_trade":
        if "times" in action:
            return f"trade {action['times']} time(s) with the royal tile"
        return f"trade for {action.get('resource')} with the royal tile"
    if kind == "royal_temple":
        return f"royal tile: advance on the {action.get('temple')} temple"
    if kind == "royal_trade_done":
        return "stop trading with the royal tile"
    if kind == "teotibot_turn":
        return "play Teotibot's turn (roll the dice, act by the solo rules)"
    if kind == "stop_construction":
        return "place no more pyramid tiles"
    if kind == "pay_unlock":
        return "pay 3 cocoa to unlock all workers"
    if kind == "unlock":
        return "unlock all workers (the whole turn)"
    if kind == "worship":
        return f"worship on space {action.get('space')} ({action.get('mode')})"
    if kind == "advance_temple":
        return f"advance on the {action.get('temple')} temple"
    if kind == "take_resource":
        return f"take 1 {action.get('resource')}"
    if kind == "power_up":
        return f"power up worker {action.get('worker')}"
    if kind == "ascension_reward":
        return f"ascension reward: {action.get('reward')}"
    if kind == "pay_salary":
        return f"pay {action.get('cocoa')} cocoa of salary"
    if kind == "choose_technology":
        return f"take the technology in slot {action.get('slot')}"
    if kind == "build":
        return f"build on the {action.get('row')} row of Nobles"
    if kind == "place_pyramid_tile":
        discount = f", {action['discount']} discount" if "discount" in action else ""
        return (
            f"place pyramid tile {action.get('tile')} on level {action.get('level')} "
            f"(row {action.get('row')}, column {action.get('col')}), "
            f"rotated {action.get('rotation')}{discount}"
        )
    if kind == "place_decoration":
        return (
            f"place decoration {action.get('tile')} on the {action.get('side')} side, "
            f"step {action.get('step')}"
        )
    if kind == "extra_power_up":
        return "pay 1 cocoa for technology #13's power-up" if action.get("pay") else "no extra"
    if kind == "choose_starting_tiles":
        return f"keep starting tiles {action.get('tiles')}"
    if kind == "draft_starting_tile":
        return f"draft starting tile {action.get('tile')}"
    if kind == "place_starting_workers":
        boards = ", ".join(_board(b) for b in action.get("boards", []))
        return f"start with workers on {boards}"
    return str(kind).replace("_", " ")


def describe_event(event: DomainEvent) -> str:
    """One line telling what ``event`` means."""
    p = event.payload
    seat = f"seat {p['seat']}" if "seat" in p else ""
    match event.type:
        case "GameSetUp":
            return "the game is set up"
        case "TurnStarted":
            return f"{seat} starts its turn"
        case "WorkerMoved":
            return (
                f"{seat} moves worker {p['worker']} from {_board(p['from_board'])}"
                f" to {_board(p['to_board'])}"
            )
        case "GoodsChanged":
            parts = ", ".join(f"{v:+d} {k}" for k, v in p["delta"].items())
            return f"{seat} {parts} ({p['reason'].replace('_', ' ')})"
        case "WorkersUnlocked":
            return f"{seat} unlocks its workers (paid {p['cocoa_paid']} cocoa)"
        case "WorkerLocked":
            return f"{seat} locks worker {p['worker']} on {_board(p['board'])}'s worship space"
        case "WorkerDisplaced":
            return f"{seat}'s worker {p['worker']} is displaced on {_board(p['board'])}"
        case "TempleAdvanced":
            return f"{seat} reaches step {p['step']} of the {p['temple']} temple"
        case "WorkerPoweredUp":
            return f"{seat} powers worker {p['worker']} up to {p['power']}"
        case "WorkerAscended":
            return f"{seat}'s worker {p['worker']} ascends"
        case "CalendarAdvanced":
            return f"the light calendar marker moves to {p['light']}"
        case "EclipseTriggered":
            return "an eclipse is coming" + (" (the final one)" if p["final"] else "")
        case "EclipseScored":
            lines = "; ".join(f"seat {s['seat']} +{s['total']}" for s in p["scores"])
            return f"eclipse {p['eclipse']} scored: {lines}"
        case "SalaryPaid":
            return f"{seat} pays {p['paid']}/{p['owed']} cocoa salary, loses {p['vp_lost']} VP"
        case "TechnologyAcquired":
            return f"{seat} takes technology slot {p['slot']} (paid {p['gold_paid']} gold)"
        case "BuildingBuilt":
            return f"{seat} builds on the {p['row']} row of Nobles for {p['vp']} VP"
        case "PyramidTilePlaced":
            return (
                f"{seat} places a pyramid tile on level {p['level']} "
                f"({p['matches']} matching icons)"
            )
        case "DecorationPlaced":
            return f"{seat} places a decoration on the {p['side']} side, step {p['step']}"
        case "PyramidCompleted":
            return f"{seat} completes the pyramid: the next eclipse is the final one"
        case "AvenueAdvanced":
            return f"{seat} reaches step {p['step']} of the Avenue of the Dead"
        case "PyramidTrackAdvanced":
            return f"{seat} reaches step {p['step']} of the Pyramid track"
        case "DiscoveryClaimed":
            return f"{seat} claims discovery tile {p['tile']}"
        case "DiscoveryFlipped":
            return f"{seat} flips discovery tile {p['tile']} ({p['effect'].replace('_', ' ')})"
        case "DiscoveryDrawn":
            return f"discovery tile {p['tile']} is drawn for {_board(p['board'])}"
        case "StartingTilesRevealed":
            return "the starting tiles are revealed"
        case "TeotibotDiceRolled":
            return (
                f"Teotibot rolls {p['dice']} = {p['total']}: position {p['position']}, {p['tile']}"
            )
        case "TeotibotActionChosen":
            return f"Teotibot's {p['tile']} tile: {p['step']} ({p['reason']})"
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
            return "the order of the coming steps is updated"
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
    their sizes are shown).
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
    if seat is not None:
        data["your_legal_actions"] = legal_actions(state, seat)
    return data
