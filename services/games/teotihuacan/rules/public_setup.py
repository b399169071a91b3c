"""``GameSetUp`` v2: the opening state as an explicit public payload plus sealed parts.

The payload names every field itself (docs/events.md, "Teotihuacan"), so renaming a
``GameState`` field never changes the log's schema. Hidden information is sealed
(``DomainEvent.sealed``; the engine logs salted commitments and reveals them at the end):

- ``starting_hand:<seat>`` (seen by that seat): ``{"tiles": [...], "discoveries":
  [[starting tile, discovery tile], ...]}``, the 4 starting tiles dealt to the seat and
  the discovery tile dealt with each that has one (RULES.md §1.2.4).
- ``discovery_bag`` (seen by nobody): the sorted discovery tile ids left in the bag, which
  would otherwise tell which discovery tiles were dealt face down with starting tiles.
  Sealed only when starting tiles were dealt face down; otherwise (first game, draft)
  the bag is deducible from the face-up tiles and listed in clear (``discovery_bag``).

Folded without the sealed values (a public auditor), hidden tiles are ``NOT_A_TILE``
placeholders: the counts are right and every public view is the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.engine.domain.ruleset import DomainEvent, Sealed

from .components import NOT_A_TILE, components
from .options import GameOptions
from .state import GameState, Player, Worker, state_from_dict

GAME_SET_UP = "GameSetUp"
SETUP_VERSION = 2
DISCOVERY_BAG = "discovery_bag"


def hand_id(seat: int) -> str:
    """Secret id of the starting tiles dealt to ``seat``."""
    return f"starting_hand:{seat}"


def _pairs(values: Any) -> list[list[int]]:
    return [[int(a), int(b)] for a, b in values]


def _player_payload(player: Player) -> dict[str, Any]:
    return {
        "cocoa": player.cocoa,
        "wood": player.wood,
        "stone": player.stone,
        "gold": player.gold,
        "vp": player.vp,
        "avenue": player.avenue,
        "pyramid": player.pyramid,
        "temples": list(player.temples),
        "workers": [
            {"board": w.board, "power": w.power, "locked": w.locked, "space": w.space}
            for w in player.workers
        ],
        "technologies": list(player.technologies),
        "discoveries": list(player.discoveries),
        "masks": list(player.masks),
        "starting_tiles_dealt": len(player.starting_tiles),
    }


def setup_event(state: GameState) -> DomainEvent:
    """``GameSetUp`` v2 for the opening ``state`` (see the module doc)."""
    offer = set(state.starting_tile_offer)
    payload: dict[str, Any] = {
        "options": state.options.model_dump(),
        "players": [_player_payload(p) for p in state.players],
        "turn_order": list(state.turn_order),
        "current": state.current,
        "phase": state.phase,
        "rondel": list(state.rondel),
        "neutral_workers": _pairs(state.neutral_workers),
        "light": state.light,
        "dark": state.dark,
        "technologies": list(state.technologies),
        "royal_tiles": list(state.royal_tiles),
        "temple_bonus": list(state.temple_bonus),
        "pyramid_tiles": [list(t) for t in state.pyramid_tiles],
        "pyramid_offer": list(state.pyramid_offer),
        "pyramid_supply": list(state.pyramid_supply),
        "decoration_offer": list(state.decoration_offer),
        "decoration_supply": list(state.decoration_supply),
        "worship_discoveries": list(state.worship_discoveries),
        "avenue_discoveries": [list(s) for s in state.avenue_discoveries],
        "temple_discoveries": [[list(s) for s in t] for t in state.temple_discoveries],
        "discovery_bag_size": len(state.discovery_supply),
        "starting_tile_offer": list(state.starting_tile_offer),
        "starting_tile_offer_discoveries": [
            [tile, d]
            for tile, d in enumerate(state.starting_tile_discoveries)
            if tile in offer and d != NOT_A_TILE
        ],
        "teotibot_tiles": list(state.teotibot_tiles),
        "teotibot_set_aside": state.teotibot_set_aside,
        "teotibot_directions": list(state.teotibot_directions),
    }
    sealed: dict[str, Sealed] = {}
    if any(p.starting_tiles for p in state.players) and not state.starting_tile_offer:
        sealed[DISCOVERY_BAG] = Sealed(sorted(state.discovery_supply), ())
    else:
        payload[DISCOVERY_BAG] = sorted(state.discovery_supply)
    for seat, player in enumerate(state.players):
        if player.starting_tiles:
            dealt = [
                [tile, state.starting_tile_discoveries[tile]]
                for tile in player.starting_tiles
                if state.starting_tile_discoveries[tile] != NOT_A_TILE
            ]
            sealed[hand_id(seat)] = Sealed(
                {"tiles": list(player.starting_tiles), "discoveries": dealt}, (seat,)
            )
    return DomainEvent(GAME_SET_UP, payload, SETUP_VERSION, sealed)


def _player(data: Mapping[str, Any], hand: Mapping[str, Any] | None) -> Player:
    dealt = int(data["starting_tiles_dealt"])
    tiles = tuple(hand["tiles"]) if hand is not None else (NOT_A_TILE,) * dealt
    return Player(
        cocoa=data["cocoa"],
        wood=data["wood"],
        stone=data["stone"],
        gold=data["gold"],
        vp=data["vp"],
        avenue=data["avenue"],
        pyramid=data["pyramid"],
        temples=(data["temples"][0], data["temples"][1], data["temples"][2]),
        workers=tuple(Worker(**w) for w in data["workers"]),
        technologies=tuple(data["technologies"]),
        discoveries=tuple(data["discoveries"]),
        masks=tuple(data["masks"]),
        starting_tiles=tiles,
    )


def state_from_setup(event: DomainEvent) -> GameState:
    """The opening state of a ``GameSetUp`` v2 (hidden tiles as placeholders where the
    sealed values are not given)."""
    p = event.payload
    hands = {
        seat: event.sealed[hand_id(seat)].value
        for seat in range(len(p["players"]))
        if hand_id(seat) in event.sealed
    }
    dealt = p["starting_tile_offer"] or any(d["starting_tiles_dealt"] for d in p["players"])
    # Only the standard setup deals starting tiles (the first game has none at all).
    discoveries = [NOT_A_TILE] * (len(components().raw["starting_tiles"]) if dealt else 0)
    for tile, d in p["starting_tile_offer_discoveries"]:
        discoveries[tile] = d
    for hand in hands.values():
        for tile, d in hand["discoveries"]:
            discoveries[tile] = d
    bag = event.sealed.get(DISCOVERY_BAG)
    if bag is not None:
        supply = tuple(bag.value)
    elif DISCOVERY_BAG in p:  # not secret in this setup
        supply = tuple(p[DISCOVERY_BAG])
    else:
        supply = (NOT_A_TILE,) * int(p["discovery_bag_size"])
    return GameState(
        options=GameOptions.model_validate(p["options"]),
        players=tuple(_player(d, hands.get(i)) for i, d in enumerate(p["players"])),
        turn_order=tuple(p["turn_order"]),
        current=p["current"],
        phase=p["phase"],
        rondel=tuple(p["rondel"]),
        neutral_workers=tuple((int(c), int(b)) for c, b in p["neutral_workers"]),
        light=p["light"],
        dark=p["dark"],
        technologies=tuple(p["technologies"]),
        royal_tiles=tuple(p["royal_tiles"]),
        temple_bonus=tuple(p["temple_bonus"]),
        pyramid_tiles=tuple(
            (int(a), int(b), int(c), int(d), int(e)) for a, b, c, d, e in p["pyramid_tiles"]
        ),
        pyramid_offer=tuple(p["pyramid_offer"]),
        pyramid_supply=tuple(p["pyramid_supply"]),
        decoration_offer=tuple(p["decoration_offer"]),
        decoration_supply=tuple(p["decoration_supply"]),
        worship_discoveries=tuple(p["worship_discoveries"]),
        avenue_discoveries=tuple(tuple(s) for s in p["avenue_discoveries"]),
        temple_discoveries=tuple(tuple(tuple(s) for s in t) for t in p["temple_discoveries"]),
        discovery_supply=supply,
        starting_tile_offer=tuple(p["starting_tile_offer"]),
        starting_tile_discoveries=tuple(discoveries),
        teotibot_tiles=tuple(p["teotibot_tiles"]),
        teotibot_set_aside=p["teotibot_set_aside"],
        teotibot_directions=tuple(p["teotibot_directions"]),
    )


def upcast_setup(event: DomainEvent) -> DomainEvent:
    """``GameSetUp`` v1 ``{state: <whole state>}`` (old logs, hidden parts in clear, so
    public) as v2: the same state's explicit payload, its hidden parts given as sealed
    values (nothing to commit: they were never secret)."""
    if event.type != GAME_SET_UP or event.schema_version != 1:
        return event
    return setup_event(state_from_dict(dict(event.payload["state"])))
