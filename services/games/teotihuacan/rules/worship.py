"""Worship on boards 1, 2, 3, 4 and 7 (RULES.md §3, Worship; §7 advanced_worship; D11).

The worker is locked on the worship space; another colour's worker there is displaced
to that board's general area (paying 1 cocoa, or gaining 1 with advanced worship).
Then the seat uses the space's ability, claims the discovery tile at that board's worship
area (paying its cost), or pays 1 cocoa more for both in either order. The Palace's
ability (its royal tile, :mod:`.royal`) is mandatory there: no discovery-only mode.

Action: ``{"type": "worship", "space": k, "mode": m}`` with ``m`` one of ``"ability"``,
``"discovery"``, ``"ability_then_discovery"``, ``"discovery_then_ability"``.

- All cocoa for displacing and for "both" is paid first; an active free-cocoa-payment
  tile covers all of it and the cocoa of the royal tile's trades on the Palace (D11; the
  discovery tile's own cost is not a worship payment and is paid).
- ``"discovery"`` and ``"discovery_then_ability"`` are listed only when the tile's cost is
  in hand after those cocoa payments.
- ``"ability_then_discovery"`` is listed whenever a tile is there and the cocoa for both can
  be paid: what the ability gains may pay for the tile (rulebook Common Questions,
  EXAMPLE 1), and so may tiles flipped meanwhile, so the engine can't know beforehand. The
  claim afterwards is its own decision (``ClaimDiscovery``): claim if affordable, or
  decline (§4: unable or unwilling → not claimed).
"""

from __future__ import annotations

from typing import Final

from .components import PALACE, components
from .context import Context
from .discovery import NO_TILE, ClaimDiscovery, claim, tile_cost, worship_tile
from .flow import Action
from .main_action import FREE_COCOA_PAYMENT, has_effect, use_effect
from .reads import amount
from .royal import RoyalAbility
from .solo.displacement import relocate_bot_worker
from .solo.seat import is_teotibot
from .state import GameState, Player
from .tasks import BoardAction, Task, temple_steps_task
from .turn import register_worship, workers_still_there

DISPLACE_COCOA: Final = 1
BOTH_COCOA: Final = 1
WORSHIP_ABILITY_BOARDS: Final = frozenset({PALACE, 2, 3, 4, 7})
ABILITY, DISCOVERY = "ability", "discovery"
ABILITY_FIRST, DISCOVERY_FIRST = "ability_then_discovery", "discovery_then_ability"
BOTH_MODES: Final = frozenset({ABILITY_FIRST, DISCOVERY_FIRST})


def displacement_cost(state: GameState, task: BoardAction, space: int) -> int | None:
    """Cocoa change for the seat to take worship ``space`` (negative: pays), or None if barred.

    Empty space: 0. Another colour's worker: -1 (advanced worship: +1). The seat's own
    worker: barred (advanced worship: allowed, 0).
    """
    occupant = worship_occupant(state, task.board, space)
    return _displacement(
        None if occupant is None else occupant[0], task.seat, state.options.advanced_worship
    )


def _displacement(occupant: int | None, seat: int, advanced: bool) -> int | None:
    """:func:`displacement_cost` given the seat locked on the space (None: empty)."""
    if occupant is None:
        return 0
    if occupant == seat:
        return 0 if advanced else None
    return DISPLACE_COCOA if advanced else -DISPLACE_COCOA


def worship_occupant(state: GameState, board: int, space: int) -> tuple[int, int] | None:
    """``GameState.worship_occupant`` (seat, worker id locked on the space, or None) as a
    compiled function: the method runs in the interpreter, entered from here at every
    worship."""
    for seat, player in enumerate(state.players):
        for worker_id, worker in enumerate(player.workers):
            if worker.locked and worker.board == board and worker.space == space:
                return seat, worker_id
    return None


def _occupants(state: GameState, board: int) -> dict[int, int]:
    """Seat locked on each occupied worship space of ``board`` (what
    ``GameState.worship_occupant`` finds, for every space in one pass)."""
    found: dict[int, int] = {}
    for seat, player in enumerate(state.players):
        for worker in player.workers:
            if worker.locked and worker.board == board and worker.space not in found:
                found[worker.space] = seat
    return found


def worship_payments(state: GameState, seat: int, change: int, mode: str) -> tuple[int, int]:
    """(cocoa paid, cocoa gained) before the worship resolves (D11: a free cocoa payment
    tile covers every payment of the worship)."""
    return _payments(change, mode, has_effect(state, seat, FREE_COCOA_PAYMENT))


def _payments(change: int, mode: str, free_payment: bool) -> tuple[int, int]:
    """:func:`worship_payments` given whether a free cocoa payment tile is active."""
    paid = max(0, -change) + (BOTH_COCOA if mode in BOTH_MODES else 0)
    if paid and free_payment:
        paid = 0
    return paid, max(0, change)


def _modes(state: GameState, task: BoardAction) -> list[str]:
    modes = [ABILITY]
    if worship_tile(state, task.board) == NO_TILE:
        return modes
    if task.board != PALACE:
        modes.append(DISCOVERY)
    return [*modes, ABILITY_FIRST, DISCOVERY_FIRST]


def _worship_options(state: GameState, task: BoardAction) -> list[Action]:
    if task.board not in WORSHIP_ABILITY_BOARDS:
        return []
    player = state.players[task.seat]
    tile = worship_tile(state, task.board)
    modes = _modes(state, task)
    # Asked at every board action: the occupants and the free payment are read once here.
    occupants = _occupants(state, task.board)
    free_payment = has_effect(state, task.seat, FREE_COCOA_PAYMENT)
    advanced = state.options.advanced_worship
    options: list[Action] = []
    for space in range(components().board(task.board).worship_spaces):
        change = _displacement(occupants.get(space), task.seat, advanced)
        if change is None:
            continue
        for mode in modes:
            paid, gained = _payments(change, mode, free_payment)
            left = player.cocoa + gained - paid
            if left < 0:
                continue
            if mode in (DISCOVERY, DISCOVERY_FIRST) and not _can_pay_with_cocoa(player, left, tile):
                continue
            options.append({"type": "worship", "space": space, "mode": mode})
    return options


def _can_pay_with_cocoa(player: Player, cocoa: int, tile: int) -> bool:
    """:func:`can_pay` as if the seat held ``cocoa`` cocoa (without copying the player)."""
    return all(
        (cocoa if good == "cocoa" else amount(player, good)) >= n
        for good, n in tile_cost(tile).items()
    )


def _ability(state: GameState, task: BoardAction, space: int, worker: int, free: bool) -> Task:
    """The space's ability; ``free``: this worship's free cocoa payment was spent (D11)."""
    if task.board == PALACE:  # N = the locked worker's power
        power = state.players[task.seat].workers[worker].power
        tile = state.royal_tiles[space]
        return RoyalAbility(seat=task.seat, tile=tile, power=power, free=free)
    temple = components().board(task.board).worship_temple or ""
    return temple_steps_task(task.seat, temple, 1)


def _resolve_worship(ctx: Context, task: BoardAction, action: Action) -> None:
    seat, space, mode = task.seat, int(action["space"]), str(action["mode"])
    change = displacement_cost(ctx.state, task, space)
    assert change is not None
    displace_paid = max(0, -change)
    both_paid = BOTH_COCOA if mode in BOTH_MODES else 0
    free = bool(displace_paid or both_paid) and has_effect(ctx.state, seat, FREE_COCOA_PAYMENT)
    if free:
        use_effect(ctx, seat, FREE_COCOA_PAYMENT)  # D11: covers the whole worship
        displace_paid = both_paid = 0
    ctx.change_goods(seat, "worship_displace", cocoa=max(0, change) - displace_paid)
    ctx.change_goods(seat, "worship_both", cocoa=-both_paid)
    occupant = worship_occupant(ctx.state, task.board, space)
    if occupant is not None and is_teotibot(ctx.state, occupant[0]):
        relocate_bot_worker(ctx, occupant[0], occupant[1], task.board)  # solo rules, §8
    elif occupant is not None:
        ctx.emit("WorkerDisplaced", seat=occupant[0], worker=occupant[1], board=task.board)
    worker = workers_still_there(ctx.state, task)[0]
    ctx.emit("WorkerLocked", seat=seat, worker=worker, board=task.board, space=space)
    ability = _ability(ctx.state, task, space, worker, free)
    source = {"kind": "worship", "board": task.board}
    if mode in (DISCOVERY, DISCOVERY_FIRST):
        claim(ctx, seat, worship_tile(ctx.state, task.board), source)
    if mode == ABILITY_FIRST:
        ctx.push(ability, ClaimDiscovery(seat=seat, where="worship", board=task.board))
    elif mode != DISCOVERY:
        ctx.push(ability)


register_worship(_worship_options, _resolve_worship)
