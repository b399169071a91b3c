"""How Teotibot powers up, moves, and makes the choices a seat would make (RULES.md §8).

"Bot conventions" of §8, each a small function that emits ordinary events:

- power-up: the highest-power eligible worker; ties for highest: the one furthest
  clockwise from the Palace; ties for lowest: the one nearest clockwise from the Palace
  (then the lower worker id, so the choice is always defined);
- "advance" a worker: power <= 3 → next board clockwise; 4-5 → skip one board; the Palace
  (1) is never counted nor entered;
- "any temple": the one where the bot is highest among those it can advance; ties blue,
  red, green; blue-temple resources: the one it has fewest of; ties gold, stone, wood;
- ascension: Avenue +1 (no discovery claim), back to the Palace at power 1, always 5 VP,
  the calendar on its first ascension of the turn;
- it takes printed temple rewards, never discovery tiles (only Mask Collection takes one).

Decision: "a worker on <board>" means an UNLOCKED worker there (the general area): the
locked worker sits on a worship space, and a success must power that worker up, which
only unlocked workers can be.
"""

from __future__ import annotations

from ..calendar import advance_calendar
from ..components import MAX_POWER, PALACE, TEMPLES
from ..context import Context
from ..state import GameState
from ..temples import can_advance, grant_step_reward
from ..tracks import advance_avenue

ASCENSION_VP = 5
FALLBACK_COCOA = 5
FAR_MOVE_POWER = 4
"""Workers of this power or more skip one board when advanced."""
RESOURCE_TIE_ORDER = ("gold", "stone", "wood")


def unlocked_workers(state: GameState, seat: int, board: int = 0) -> list[int]:
    """Ids of ``seat``'s unlocked workers in play (on ``board`` unless it is 0)."""
    return [
        worker_id
        for worker_id, worker in enumerate(state.players[seat].workers)
        if worker.in_play and not worker.locked and (board == 0 or worker.board == board)
    ]


def highest_worker(state: GameState, seat: int, workers: list[int]) -> int | None:
    """Highest power; ties: furthest clockwise from the Palace, then lowest id."""
    if not workers:
        return None
    player = state.players[seat]

    def key(w: int) -> tuple[int, int, int]:
        return (player.workers[w].power, state.position(player.workers[w].board), -w)

    return max(workers, key=key)


def lowest_worker(state: GameState, seat: int, workers: list[int]) -> int | None:
    """Lowest power; ties: nearest clockwise from the Palace, then lowest id."""
    if not workers:
        return None
    player = state.players[seat]
    return min(
        workers,
        key=lambda w: (player.workers[w].power, state.position(player.workers[w].board), w),
    )


def by_power_descending(state: GameState, seat: int) -> list[int]:
    """Unlocked workers, highest first with the ties of :func:`highest_worker` (Mastery)."""
    rest = unlocked_workers(state, seat)
    ordered: list[int] = []
    while rest:
        best = highest_worker(state, seat, rest)
        assert best is not None
        ordered.append(best)
        rest.remove(best)
    return ordered


def power_up(ctx: Context, seat: int, worker: int) -> None:
    """+1 power, or ascend past 5 (RULES.md §5 with the bot's conventions)."""
    power = ctx.state.players[seat].workers[worker].power
    if power < MAX_POWER:
        ctx.emit("WorkerPoweredUp", seat=seat, worker=worker, power=power + 1)
        return
    first_this_turn = not ctx.state.players[seat].ascended_this_turn
    avenue_step(ctx, seat)
    ctx.emit("WorkerAscended", seat=seat, worker=worker, board=PALACE)
    ctx.change_goods(seat, "ascension", vp=ASCENSION_VP)
    if first_this_turn:
        advance_calendar(ctx)


def advance_worker(ctx: Context, seat: int, worker: int) -> None:
    """Move the worker 1 board clockwise (power 4-5: 2 boards), never counting the Palace."""
    state = ctx.state
    current = state.players[seat].workers[worker]
    boards = 2 if current.power >= FAR_MOVE_POWER else 1
    position = state.position(current.board)
    while boards:
        position += 1
        if state.board_at(position) != PALACE:
            boards -= 1
    target = state.board_at(position)
    ctx.emit("WorkerMoved", seat=seat, worker=worker, from_board=current.board, to_board=target)


def power_up_and_advance(ctx: Context, seat: int, worker: int) -> None:
    """A success's ending: power the worker up, then advance it (from the Palace if it
    ascended: it is the same die, now at power 1)."""
    power_up(ctx, seat, worker)
    advance_worker(ctx, seat, worker)


def fallback(ctx: Context, seat: int) -> None:
    """Gain 5 cocoa, power up the lowest-power unlocked worker, advance it (§8)."""
    ctx.change_goods(seat, "teotibot_fallback", cocoa=FALLBACK_COCOA)
    worker = lowest_worker(ctx.state, seat, unlocked_workers(ctx.state, seat))
    if worker is not None:
        power_up_and_advance(ctx, seat, worker)


def avenue_step(ctx: Context, seat: int) -> None:
    """One Avenue step; the bot never claims the discovery tiles there (§8)."""
    advance_avenue(ctx, seat)  # the follow-up claim task is dropped on purpose


def any_temple(state: GameState, seat: int) -> str | None:
    """The temple the bot is highest on among those it can advance; ties blue, red, green."""
    player = state.players[seat]
    choices = [t for t in TEMPLES if can_advance(state, seat, t)]
    if not choices:
        return None
    return max(choices, key=lambda t: (player.temple(t), -TEMPLES.index(t)))


def fewest_resource(state: GameState, seat: int) -> str:
    """The resource the bot has fewest of; ties gold, stone, wood."""
    player = state.players[seat]
    return min(RESOURCE_TIE_ORDER, key=lambda r: (player.amount(r), RESOURCE_TIE_ORDER.index(r)))


def temple_step(ctx: Context, seat: int, temple: str) -> None:
    """One step on ``temple`` with the printed reward (never a discovery tile); nothing if
    the bot can't advance there."""
    if not can_advance(ctx.state, seat, temple):
        return
    step = ctx.state.players[seat].temple(temple) + 1
    ctx.emit("TempleAdvanced", seat=seat, temple=temple, step=step)
    for follow_up in grant_step_reward(ctx, seat, temple, step):
        for _ in range(getattr(follow_up, "count", 1)):  # blue temple: resource choices
            ctx.change_goods(seat, "temple_blue", **{fewest_resource(ctx.state, seat): 1})


def any_temple_step(ctx: Context, seat: int) -> None:
    """One step on the temple chosen by :func:`any_temple` (lost if none can advance)."""
    temple = any_temple(ctx.state, seat)
    if temple is not None:
        temple_step(ctx, seat, temple)
