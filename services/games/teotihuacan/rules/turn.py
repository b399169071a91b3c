"""A seat's turn: unlock or move a worker, then one action on the destination board.

RULES.md §2 (turn structure, free unlock, paying 3 cocoa to unlock) and §3 (movement,
collect cocoa, main action, worship), with the movement discovery tiles of §4:

- ``{"type": "move", "worker": w, "steps": s}``: the ordinary move.
- ``double_move`` active: ``{"type": "move", "worker": w, "steps": s, "with_workers": [w2]}``
  also moves the listed unlocked workers of the same board to the same destination; each
  extra worker spends one active double-move (stacked tiles move more workers). To keep the
  list finite and free of duplicates, ``with_workers`` is sorted and every id in it is
  greater than ``worker``.
- ``teleport`` active: ``{"type": "teleport", "worker": w, "board": b}`` to any action
  board, the worker's own included (D15: a full lap, which passes the Palace), with
  ``"with_workers"`` too when a double-move is active as well (the effects combine, §4).

Every moved worker is one of "the moved worker(s)" of the board action (cost X).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Final

from services.engine.domain.ruleset import RuleViolation

from .components import PALACE, components
from .context import Context
from .flow import Action, free_action, task_rules
from .solo.seat import is_teotibot
from .state import NOT_IN_PLAY, GameState, Player
from .tasks import BoardAction, Salary, TakeTurn, Task, board_action_task, end_turn_task
from .technologies import owns_technology

MAX_STEPS: Final = 3
UNLOCK_COST: Final = 3
DOUBLE_MOVE: Final = "double_move"
TELEPORT: Final = "teleport"


# --- main actions are registered per board by their own modules ---------------------


@dataclass(frozen=True, slots=True)
class MainAction:
    """How one board's main action checks it can be carried out, and resolves.

    ``possible(state, seat, board, cost)`` is True when the seat can pay ``cost`` cocoa and
    everything the action needs (RULES.md §3: a main action that cannot be carried out
    can't be chosen). ``resolve(ctx, task, cost)`` pays and resolves it. ``refusal`` (same
    arguments as ``possible``) may name the rule that makes the action impossible (§9).
    """

    possible: Callable[[GameState, int, int, int], bool]
    resolve: Callable[[Context, BoardAction, int], None]
    refusal: Callable[[GameState, int, int, int], RuleViolation | None] | None = None


MAIN_ACTIONS: Final[dict[int, MainAction]] = {}


def main_action(board: int) -> Callable[[MainAction], MainAction]:
    """Register the main action of printed board ``board``."""

    def register(action: MainAction) -> MainAction:
        MAIN_ACTIONS[board] = action
        return action

    return register


# --- worship is registered by its module too ------------------------------------------

WorshipOptions = Callable[[GameState, BoardAction], list[Action]]
WorshipResolve = Callable[[Context, BoardAction, Action], None]
_WORSHIP: Final[list[tuple[WorshipOptions, WorshipResolve]]] = []


def register_worship(options: WorshipOptions, resolve: WorshipResolve) -> None:
    """Install the worship rules (RULES.md §3, Worship)."""
    _WORSHIP[:] = [(options, resolve)]


# --- helpers --------------------------------------------------------------------------


Neutral = tuple[tuple[int, int], ...]
CostArguments = tuple[tuple[Player, ...], Neutral, int, int, tuple[int, ...]]

_LAST_COST: Final[list[tuple[CostArguments, int]]] = []
"""The last answer of :func:`action_cost` with its arguments: the board action's options
and its resolution (the next decision) ask the same of the same players and neutral
workers, tuples shared unchanged by the states in between. The memo holds them, so their
identity can't be reused while it is remembered."""


def action_cost(state: GameState, board: int, seat: int, moved: tuple[int, ...]) -> int:
    """X of RULES.md §3: distinct colours of unlocked workers on ``board``, moved ones excluded."""
    players = state.players
    neutral = state.neutral_workers
    if _LAST_COST:
        (last_players, last_neutral, last_board, last_seat, last_moved), cost = _LAST_COST[0]
        if (
            last_players is players
            and last_neutral is neutral
            and last_board == board
            and last_seat == seat
            and last_moved == moved
        ):
            return cost
    cost = _colours_on(players, neutral, board, seat, moved)
    _LAST_COST[:] = [((players, neutral, board, seat, moved), cost)]
    return cost


def _colours_on(
    players: tuple[Player, ...],
    neutral: Neutral,
    board: int,
    seat: int,
    moved: tuple[int, ...],
) -> int:
    """:func:`action_cost` from the state's players and neutral workers."""
    colours = 0
    for other_seat, player in enumerate(players):
        excluded = moved if other_seat == seat else ()
        for worker_id, worker in enumerate(player.workers):
            if worker.board == board and not worker.locked and worker_id not in excluded:
                colours += 1
                break  # one worker is enough to count the colour
    # Neutral colours are numbered after the seats, so they never double-count a seat.
    if neutral:
        colours += len({colour for colour, at in neutral if at == board})
    return colours


def own_workers_on(state: GameState, seat: int, board: int) -> list[int]:
    """Ids of ``seat``'s unlocked workers on ``board`` (the moved ones included)."""
    return [
        worker_id
        for worker_id, worker in enumerate(state.players[seat].workers)
        if worker.board == board and not worker.locked and worker.board != NOT_IN_PLAY
    ]


def destination(state: GameState, board: int, steps: int) -> int:
    """Board reached by moving ``steps`` positions clockwise from ``board``."""
    # state.board_at(state.position(board) + steps), without two calls into the
    # interpreted state class for every move
    rondel = state.rondel
    return rondel[(rondel.index(board) + steps) % len(rondel)]


def teleport_steps(state: GameState, start: int, target: int) -> int:
    """Positions a teleport travels clockwise from ``start`` to ``target`` (1..8): a full lap
    when the worker teleports to its own board (D15), so it goes onto the Palace."""
    laps = len(state.rondel)
    return (state.position(target) - state.position(start)) % laps or laps


def passes_palace(state: GameState, board: int, steps: int) -> bool:
    """True if a move of ``steps`` from ``board`` goes onto or past the Palace (position 1)."""
    # any(state.board_at(state.position(board) + k) == PALACE for k in 1..steps), without
    # calls into the interpreted state class for every move
    rondel = state.rondel
    start = rondel.index(board)
    laps = len(rondel)
    return any(rondel[(start + k) % laps] == PALACE for k in range(1, steps + 1))


# --- take a turn ----------------------------------------------------------------------


def _companions(state: GameState, seat: int, worker_id: int) -> list[list[int]]:
    """Sorted lists of extra workers a double move may take along with ``worker_id``."""
    player = state.players[seat]
    extra = player.active_effects.count(DOUBLE_MOVE)
    if not extra:  # the usual case, asked for every movable worker at every turn
        return []
    board = player.workers[worker_id].board
    others = [
        other
        for other, worker in enumerate(player.workers)
        if other > worker_id and worker.in_play and not worker.locked and worker.board == board
    ]
    return [list(group) for k in range(1, extra + 1) for group in combinations(others, k)]


def _turn_options(state: GameState, task: TakeTurn) -> list[Action]:
    player = state.players[task.seat]
    movable = [
        w
        for w, worker in enumerate(player.workers)
        if worker.board != NOT_IN_PLAY and not worker.locked  # Worker.in_play, inlined
    ]
    if not player.active_effects:  # no double move or teleport: the usual turn
        return list(_plain_turn_options(tuple(movable)))
    return listed_turn_options(state, task.seat, movable)


def listed_turn_options(state: GameState, seat: int, movable: list[int]) -> list[Action]:
    """The options of ``seat``'s turn with its ``movable`` workers, listed in full (the
    active movement effects included; the short way of a turn without any must equal
    this, services/games/teotihuacan/tests/test_derived_tables.py)."""
    player = state.players[seat]
    teleport = TELEPORT in player.active_effects
    moves: list[Action] = []
    for worker_id in movable:
        groups = _companions(state, seat, worker_id)
        for steps in range(1, MAX_STEPS + 1):
            moves.append({"type": "move", "worker": worker_id, "steps": steps})
            if groups:
                moves.extend(
                    {"type": "move", "worker": worker_id, "steps": steps, "with_workers": group}
                    for group in groups
                )
        if teleport:  # D15: any action board, its own included
            for board in state.rondel:
                moves.append({"type": "teleport", "worker": worker_id, "board": board})
                moves.extend(
                    {"type": "teleport", "worker": worker_id, "board": board, "with_workers": g}
                    for g in groups
                )
    return [*moves, {"type": "unlock"}]


@cache
def _plain_turn_options(movable: tuple[int, ...]) -> tuple[Action, ...]:
    """The options of a turn without movement effects: each movable worker 1-3 steps, then
    the free unlock. At most 16 sets of movable workers, listed at every turn: built once
    (the action dicts are shared, read-only, like every listed action)."""
    moves: list[Action] = [
        {"type": "move", "worker": worker_id, "steps": steps}
        for worker_id in movable
        for steps in range(1, MAX_STEPS + 1)
    ]
    return (*moves, {"type": "unlock"})


def _explain_turn(state: GameState, task: TakeTurn, action: Action) -> RuleViolation | None:
    if "with_workers" in action and DOUBLE_MOVE not in state.players[task.seat].active_effects:
        return RuleViolation(
            "no_double_move",
            "RULES.md §4: moving several workers needs a flipped double-move discovery tile",
        )
    if action.get("type") != "move":
        return None
    workers = state.players[task.seat].workers
    worker_id, steps = action.get("worker"), action.get("steps")
    if not isinstance(worker_id, int) or not 0 <= worker_id < len(workers):
        return RuleViolation("unknown_worker", f"RULES.md §3: seat has no worker {worker_id!r}")
    if not workers[worker_id].in_play:
        return RuleViolation("worker_not_in_play", "RULES.md §1.2.2: that worker is not in play")
    if workers[worker_id].locked:
        return RuleViolation(
            "worker_locked", "RULES.md §3: a locked worker can't move; unlock it first"
        )
    if not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        return RuleViolation(
            "distance_out_of_range", f"RULES.md §3: move 1, 2 or 3 positions, not {steps!r}"
        )
    return None


@task_rules(
    TakeTurn,
    options=_turn_options,
    decision="a worker to move (or the free unlock)",
    rule="RULES.md §2-3",
    explain=_explain_turn,
)
def resolve_take_turn(ctx: Context, task: TakeTurn, action: Action | None) -> None:
    """Free unlock (ends the turn) or move a worker and choose its board action next."""
    assert action is not None
    seat = task.seat
    if action["type"] == "unlock":
        ctx.emit("WorkersUnlocked", seat=seat, cocoa_paid=0)
        ctx.push(end_turn_task(seat))
        return
    worker_id = int(action["worker"])
    start = ctx.state.players[seat].workers[worker_id].board
    if action["type"] == "teleport":
        target = int(action["board"])
        steps = teleport_steps(ctx.state, start, target)
        ctx.emit("DiscoveryEffectUsed", seat=seat, effect=TELEPORT)
    else:
        steps = int(action["steps"])
        target = destination(ctx.state, start, steps)
    moved = (worker_id, *(int(w) for w in action.get("with_workers", ())))
    for worker in moved:
        if worker != worker_id:
            ctx.emit("DiscoveryEffectUsed", seat=seat, effect=DOUBLE_MOVE)
        ctx.emit("WorkerMoved", seat=seat, worker=worker, from_board=start, to_board=target)
    # Technology #1 pays once per move, however many workers travel together.
    if owns_technology(ctx.state, seat, "palace_pass_cocoa") and passes_palace(
        ctx.state, start, steps
    ):
        ctx.change_goods(seat, "technology_palace_pass", cocoa=1)
    ctx.push(board_action_task(seat, target, moved), end_turn_task(seat))


# --- the action on the destination board ----------------------------------------------


def workers_still_there(state: GameState, task: BoardAction) -> tuple[int, ...]:
    """The moved workers still unlocked on the destination board.

    A worker can leave before its action: a flipped power-up tile may make it ascend to
    the Palace. With none left the board action is lost (our reading; the rules are
    silent), so the agenda moves on.
    """
    workers = state.players[task.seat].workers
    board = task.board
    still = []
    for worker_id in task.workers:
        worker = workers[worker_id]
        if worker.board == board and not worker.locked:
            still.append(worker_id)
    return tuple(still)


def _board_action_options(state: GameState, task: BoardAction) -> list[Action]:
    if not workers_still_there(state, task):
        return []
    options: list[Action] = [{"type": "collect_cocoa"}]
    cost = action_cost(state, task.board, task.seat, task.workers)
    main = MAIN_ACTIONS.get(task.board)
    if main is not None and main.possible(state, task.seat, task.board, cost):
        options.append({"type": "main_action"})
    for worship_options, _ in _WORSHIP:
        options.extend(worship_options(state, task))
    return options


def _explain_board_action(
    state: GameState, task: BoardAction, action: Action
) -> RuleViolation | None:
    if action.get("type") != "main_action":
        return None
    main = MAIN_ACTIONS.get(task.board)
    if main is None or main.refusal is None:
        return None
    cost = action_cost(state, task.board, task.seat, task.workers)
    return main.refusal(state, task.seat, task.board, cost)


@task_rules(
    BoardAction,
    options=_board_action_options,
    decision="the action on the destination board (collect cocoa, main action or worship)",
    rule="RULES.md §3",
    explain=_explain_board_action,
)
def resolve_board_action(ctx: Context, task: BoardAction, action: Action | None) -> None:
    """Collect cocoa, the board's main action, or worship."""
    assert action is not None
    cost = action_cost(ctx.state, task.board, task.seat, task.workers)
    if action["type"] == "collect_cocoa":
        ctx.change_goods(task.seat, "collect_cocoa", cocoa=cost + 1)
    elif action["type"] == "main_action":
        MAIN_ACTIONS[task.board].resolve(ctx, task, cost)
    else:
        for _, resolve_worship in _WORSHIP:
            resolve_worship(ctx, task, action)


# --- free action: pay 3 cocoa to unlock ----------------------------------------------


def _pay_unlock_options(state: GameState, seat: int, task: Task) -> list[Action]:
    if state.phase != "turn" or state.current != seat or isinstance(task, Salary):
        return []
    player = state.players[seat]
    if player.cocoa < UNLOCK_COST:  # asked at every decision: the cheapest test first
        return []
    if is_teotibot(state, seat):
        return []  # Teotibot never unlocks (RULES.md §8)
    for worker in player.workers:
        if worker.locked:
            return [{"type": "pay_unlock"}]
    return []


@free_action(
    "pay_unlock",
    _pay_unlock_options,
    "RULES.md §2 (paying 3 cocoa to unlock needs a locked worker, 3 cocoa and your own "
    "normal turn)",
    holds_single_option=False,
)
def pay_to_unlock(ctx: Context, seat: int, action: Action) -> None:
    """RULES.md §2: during its own turn a seat may pay 3 cocoa to unlock all its workers."""
    ctx.emit("WorkersUnlocked", seat=seat, cocoa_paid=UNLOCK_COST)
    ctx.change_goods(seat, "unlock", cocoa=-UNLOCK_COST)


def board_name(board: int) -> str:
    """Display name of printed board ``board``."""
    return components().board(board).name
