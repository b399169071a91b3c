"""Discovery tiles: what they are, what they cost, and claiming them (RULES.md §4).

A tile is claimed by paying its cost (cocoa and resources in hand); "unable or unwilling
→ not claimed". Masks go to ``player.masks`` (scored at every eclipse); other tiles to
``player.discoveries`` until flipped (see :mod:`.flips`). A tile claimed at a worship area
is replaced at once from the bag (random draw recorded in ``DiscoveryDrawn``, D7).

Events:
    ``DiscoveryClaimed{seat, tile, source, cost}``: ``source`` is
        ``{"kind": "worship", "board": b}``, ``{"kind": "avenue", "step": s}`` or
        ``{"kind": "temple", "temple": t, "step": s}`` or
        ``{"kind": "starting_tile", "starting_tile": id}``; ``cost`` is the paid goods.
    ``DiscoveryDrawn{board, tile}``: the bag refilled a worship area (bag empty: no event).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .components import NOT_A_TILE, TEMPLES, components
from .context import Context
from .evolve import Payload, handles
from .flow import Action, task_rules
from .frozen import replace, with_player, without
from .reads import amount
from .state import GameState, Player
from .tasks import Task, register_task

NO_TILE: Final = -1
MASK: Final = "mask"
PAYABLE_GOODS: Final = ("cocoa", "wood", "stone", "gold")


def tile_data(tile: int) -> dict[str, Any]:
    """The ``discovery_tiles`` entry of ``tile`` (kind, cost, amount, temple, mask)."""
    data: dict[str, Any] = components().raw["discovery_tiles"][tile]
    return data


def tile_kind(tile: int) -> str:
    """Effect kind of ``tile``: ``mask``, ``vp``, ``double_move``, ..."""
    return str(tile_data(tile)["kind"])


def tile_cost(tile: int) -> dict[str, int]:
    """Goods paid to claim ``tile`` (may be empty)."""
    return dict(tile_data(tile)["cost"])


def can_pay(player: Player, tile: int) -> bool:
    """True if ``player`` holds the cost of ``tile`` (RULES.md §4)."""
    return all(amount(player, good) >= n for good, n in tile_cost(tile).items())


def claim(ctx: Context, seat: int, tile: int, source: dict[str, Any]) -> None:
    """Pay ``tile``'s cost and take it from ``source``; refill a worship area from the bag.

    The caller has checked :func:`can_pay`.
    """
    ctx.emit("DiscoveryClaimed", seat=seat, tile=tile, source=source, cost=tile_cost(tile))
    if source["kind"] == "worship":
        supply = ctx.state.discovery_supply
        if supply:
            drawn = supply[ctx.rng.randrange(len(supply))]
            ctx.emit("DiscoveryDrawn", board=source["board"], tile=drawn)


def worship_tile(state: GameState, board: int) -> int:
    """Discovery tile at ``board``'s worship area, or -1."""
    tiles = state.worship_discoveries
    return tiles[board] if board < len(tiles) else NO_TILE


@handles("DiscoveryClaimed")
def _discovery_claimed(state: GameState, payload: Payload) -> GameState:
    seat, tile, source = payload["seat"], payload["tile"], payload["source"]
    player = state.players[seat]
    paid = {good: amount(player, good) - n for good, n in payload["cost"].items()}
    if tile_kind(tile) == MASK:
        player = replace(player, masks=(*player.masks, tile), **paid)
    else:
        player = replace(player, discoveries=(*player.discoveries, tile), **paid)
    state = with_player(state, seat, player)
    if source["kind"] == "worship":
        worship = list(state.worship_discoveries)
        worship[source["board"]] = NO_TILE
        return replace(state, worship_discoveries=tuple(worship))
    if source["kind"] == "starting_tile":
        dealt = list(state.starting_tile_discoveries)
        dealt[source["starting_tile"]] = NO_TILE
        return replace(state, starting_tile_discoveries=tuple(dealt))
    if source["kind"] == "avenue":
        avenue = list(state.avenue_discoveries)
        avenue[source["step"]] = without(avenue[source["step"]], tile)
        return replace(state, avenue_discoveries=tuple(avenue))
    index = TEMPLES.index(source["temple"])
    steps = list(state.temple_discoveries[index])
    steps[source["step"]] = without(steps[source["step"]], tile)
    temples = list(state.temple_discoveries)
    temples[index] = tuple(steps)
    return replace(state, temple_discoveries=tuple(temples))


@handles("DiscoveryDrawn")
def _discovery_drawn(state: GameState, payload: Payload) -> GameState:
    worship = list(state.worship_discoveries)
    worship[payload["board"]] = payload["tile"]
    return replace(
        state,
        worship_discoveries=tuple(worship),
        discovery_supply=_drawn(state.discovery_supply, payload["tile"]),
    )


def _drawn(bag: tuple[int, ...], tile: int) -> tuple[int, ...]:
    """The bag less ``tile``; folded without the sealed bag, less one unknown tile."""
    return without(bag, tile if tile in bag else NOT_A_TILE)


# --- an optional claim: after a worship ability, or on Avenue steps 3, 6, 8 -------------


@dataclass(frozen=True, slots=True)
class ClaimDiscovery(Task):
    """Claim one discovery tile at a place, paying its cost, or none (RULES.md §3, §4).

    ``where`` is ``"worship"`` (the tile at ``board``'s worship area, after the ability of
    an ability-then-discovery worship), ``"avenue"`` (one of the tiles on Avenue
    ``step``) or ``"starting_tile"`` (the tile dealt with ``starting_tile``, §1.2.4).
    """

    where: str
    board: int = 0
    step: int = 0
    starting_tile: int = -1


register_task(ClaimDiscovery, "claim_discovery")


def _claimable(state: GameState, task: ClaimDiscovery) -> tuple[list[int], dict[str, Any]]:
    if task.where == "worship":
        tile = worship_tile(state, task.board)
        return ([tile] if tile != NO_TILE else []), {"kind": "worship", "board": task.board}
    if task.where == "starting_tile":
        tile = state.starting_tile_discoveries[task.starting_tile]
        source = {"kind": "starting_tile", "starting_tile": task.starting_tile}
        return ([tile] if tile != NO_TILE else []), source
    tiles = state.avenue_discoveries[task.step] if task.step < len(state.avenue_discoveries) else ()
    return sorted(set(tiles)), {"kind": "avenue", "step": task.step}


def _claim_options(state: GameState, task: ClaimDiscovery) -> list[Action]:
    tiles, _ = _claimable(state, task)
    player = state.players[task.seat]
    options: list[Action] = [
        {"type": "claim_discovery", "tile": t} for t in tiles if can_pay(player, t)
    ]
    return [*options, {"type": "decline_discovery"}] if options else []


@task_rules(
    ClaimDiscovery,
    options=_claim_options,
    decision="a discovery tile to claim (paying its cost) or none",
    rule="RULES.md §4",
)
def resolve_claim_discovery(ctx: Context, task: ClaimDiscovery, action: Action | None) -> None:
    """Claim the chosen tile, or decline."""
    assert action is not None
    if action["type"] == "claim_discovery":
        _, source = _claimable(ctx.state, task)
        claim(ctx, task.seat, int(action["tile"]), source)
