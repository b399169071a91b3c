"""The decision loop: legal actions of the top task, applying one, and running the rest.

Each task kind has *rules*: ``options(state, task)`` lists the actions the seat may take
(None for a step that needs no choice) and ``resolve(ctx, task, action)`` carries it out.
After an action, every following step that needs no choice (or has exactly one legal
option) resolves at once, so the agenda always stops at a real decision.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from services.engine.domain.ruleset import DomainEvent, RuleViolation

from .context import Context
from .frozen import replace
from .state import GameState
from .tasks import Task

Action = dict[str, Any]
OptionsFn = Callable[[GameState, Any], list[Action] | None]
ResolveFn = Callable[[Context, Any, Action | None], None]
ExplainFn = Callable[[GameState, Any, Action], RuleViolation | None]
SeatsFn = Callable[[GameState, Any], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class TaskRules:
    """How one task kind lists its options and resolves."""

    options: OptionsFn
    resolve: ResolveFn
    decision: str
    rule: str
    explain: ExplainFn | None = None
    seats: SeatsFn | None = None
    always_asks: bool = False


FreeOptionsFn = Callable[[GameState, int, Task], list[Action]]
FreeApplyFn = Callable[[Context, int, Action], None]


@dataclass(frozen=True, slots=True)
class FreeAction:
    """A free action (RULES.md §2): taken at the seat's own decisions, beside its options."""

    options: FreeOptionsFn
    apply: FreeApplyFn
    rule: str
    holds_single_option: bool


_RULES: Final[dict[type[Task], TaskRules]] = {}
_FREE_ACTIONS: Final[dict[str, FreeAction]] = {}


def no_choice(state: GameState, task: Any) -> None:
    """``options`` of a step that needs no decision: it resolves on its own."""
    return None


def task_rules(
    task_type: type[Task],
    *,
    options: OptionsFn,
    decision: str,
    rule: str,
    explain: ExplainFn | None = None,
    seats: SeatsFn | None = None,
    always_asks: bool = False,
) -> Callable[[ResolveFn], ResolveFn]:
    """Register the rules of ``task_type``; decorates its resolve function.

    ``decision`` names the decision in game terms; ``rule`` is the RULES.md section cited
    when an action is refused there; ``explain`` may name a more precise broken rule.
    ``seats`` makes it a simultaneous decision (e.g. secret starting-tile choices): it
    lists the seats still to decide; ``options`` and ``resolve`` then receive the task with
    ``seat`` set to the deciding seat, and resolve is called once more with ``action``
    None (and ``seat`` -1) when no seat is left. ``always_asks`` makes the loop wait for
    the seat's own command even when there is a single option (a bot's turn, which must
    be its own command in the log).
    ``options`` must not read ``state.agenda`` (the task is passed in): the options
    listed when the agenda stopped at a task are reused for the next state, which differs
    only by its agenda.
    """

    def register(resolve: ResolveFn) -> ResolveFn:
        _RULES[task_type] = TaskRules(options, resolve, decision, rule, explain, seats, always_asks)
        return resolve

    return register


def free_action(
    action_type: str, options: FreeOptionsFn, rule: str, *, holds_single_option: bool
) -> Callable[[FreeApplyFn], FreeApplyFn]:
    """Register a free action of ``action_type`` (RULES.md §2; e.g. paying to unlock,
    flipping a discovery tile, §4); decorates its ``apply``.

    ``options(state, seat, task)`` lists the legal actions of that type while ``task`` waits
    for ``seat``; ``apply(ctx, seat, action)`` carries one out (it may push tasks, which
    resolve before the waiting task). ``rule`` is cited when one is refused. With
    ``holds_single_option``, while the seat has such an action available a single legal
    option of its waiting task is not applied automatically, so the seat can still act
    first (e.g. flip before a forced power-up).
    """

    def register(apply: FreeApplyFn) -> FreeApplyFn:
        _FREE_ACTIONS[action_type] = FreeAction(options, apply, rule, holds_single_option)
        return apply

    return register


def free_actions(state: GameState, seat: int, task: Task) -> list[Action]:
    """The free actions ``seat`` may take while ``task`` waits for it."""
    if task.seat != seat:
        return []
    return [action for free in _FREE_ACTIONS.values() for action in free.options(state, seat, task)]


def _holds_single_option(state: GameState, task: Task) -> bool:
    """Whether a free action that holds single options is available to ``task``'s seat."""
    return any(
        free.options(state, task.seat, task)
        for free in _FREE_ACTIONS.values()
        if free.holds_single_option
    )


def rules_of(task: Task) -> TaskRules:
    """The rules of ``task``'s kind. Raises KeyError for an unregistered kind."""
    return _RULES[type(task)]


def pending_task(state: GameState) -> Task | None:
    """The task the game waits on, or None once the game has ended."""
    if state.phase == "ended" or not state.agenda:
        return None
    return state.agenda[-1]


def seats_to_act(state: GameState) -> tuple[int, ...]:
    """Seats whose decision the game waits for (several for a simultaneous decision)."""
    return _decision(state)[2]


Decision = tuple[Task | None, TaskRules | None, tuple[int, ...]]
"""The pending task of a state, its kind's rules and the seats it waits for (None, None,
() once the game has ended)."""

_NO_DECISION: Final[Decision] = (None, None, ())


def _decision(state: GameState) -> Decision:
    """The pending decision of ``state``, remembered for the last state asked (states are
    immutable): a caller asks the seats to act, then their legal actions, then applies one,
    and each needed the same task, rules and seats (two generic attribute reads of the
    dict-backed state and a registry look-up each time)."""
    known = _MEMO.decision
    if known is not None and known[0] is state:
        return known[1]
    task = pending_task(state)
    if task is None:
        decision = _NO_DECISION
    else:
        rules = _RULES[type(task)]
        decision = (task, rules, _seats_of(state, task, rules))
    _MEMO.decision = (state, decision)
    return decision


def _seats_of(state: GameState, task: Task, rules: TaskRules) -> tuple[int, ...]:
    """:func:`seats_to_act` once the pending ``task`` and its ``rules`` are known."""
    seats = rules.seats
    return seats(state, task) if seats is not None else (task.seat,)


def _as_seat(task: Task, seat: int) -> Task:
    return replace(task, seat=seat) if rules_of(task).seats is not None else task


class _Memo:
    """What the last decisions already computed, by state identity (states are immutable).

    ``legal``: the legal actions last listed, for (state, seat). A caller typically lists
    the legal actions of a state and then applies one of them, and ``apply`` must check
    the action against that same list: remembering it computes it once instead of twice.

    ``options``: the options of the pending task of the state ``apply`` just returned.
    ``run_until_decision`` stops at a task because of its options, computed on the state
    before ``AgendaUpdated``; that event changes only the agenda, which options never read
    (see :func:`task_rules`), so listing the new state's legal actions reuses them.

    ``decision``: the pending task, its rules and seats of the last state asked (see
    :func:`_decision`).
    """

    __slots__ = ("decision", "legal", "options")

    def __init__(self) -> None:
        self.decision: tuple[GameState, Decision] | None = None
        self.legal: tuple[GameState, int, list[Action]] | None = None
        self.options: tuple[GameState, list[Action]] | None = None


_MEMO: Final = _Memo()


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now (empty if it is not that seat's decision).

    Returns a new list each time, but the action dicts in it are shared with a cache of
    the last answer: treat them as read-only.
    """
    return list(_remembered_legal_actions(state, seat))


def _remembered_legal_actions(state: GameState, seat: int) -> list[Action]:
    """:func:`legal_actions` without the copy: the memo's own list, never to be changed."""
    entry = _MEMO.legal
    if entry is not None and entry[0] is state and entry[1] == seat:
        return entry[2]
    actions = _compute_legal_actions(state, seat)
    _MEMO.legal = (state, seat, actions)
    return actions


def _compute_legal_actions(state: GameState, seat: int) -> list[Action]:
    task, rules, waiting = _decision(state)
    if task is None or rules is None or seat not in waiting:
        return []
    known = _MEMO.options
    if known is not None and known[0] is state:
        actions = list(known[1])
    else:
        asked = replace(task, seat=seat) if rules.seats is not None else task
        actions = list(rules.options(state, asked) or [])
    actions.extend(free_actions(state, seat, task))
    return actions


def decide(
    state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
) -> list[DomainEvent]:
    """Events caused by ``seat`` taking ``action`` (RULES.md §9: refuse, or change).

    Raises:
        RuleViolation: see :func:`apply`.
    """
    return apply(state, seat, action, rng)[0]


def apply(
    state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
) -> tuple[list[DomainEvent], GameState]:
    """The events of ``seat`` taking ``action`` and the state they fold into.

    The state is the one the rules built while deciding, so callers need not fold the
    events again (folding them gives an equal state; the property tests check that).

    Raises:
        RuleViolation: the game has ended, it is not ``seat``'s decision, or the action is
            not among the legal actions (the message names the rule and the choices).
    """
    task, rules, waiting = _decision(state)
    if task is None or rules is None:
        raise RuleViolation("game_ended", "RULES.md §6.3: the game is over; no more actions")
    if seat not in waiting:
        raise RuleViolation(
            "not_your_turn",
            f"RULES.md §2: the game waits for seat(s) {list(waiting)} "
            f"({rules.decision}), not seat {seat}",
        )
    wanted = dict(action)
    legal = _remembered_legal_actions(state, seat)
    if wanted not in legal:
        raise explain_refusal(state, _as_seat(task, seat), wanted, legal)
    ctx = Context(state, rng)
    free = _FREE_ACTIONS.get(str(wanted.get("type")))
    if free is not None:
        free.apply(ctx, seat, wanted)
    else:
        ctx.agenda.pop()
        rules.resolve(ctx, replace(task, seat=seat) if rules.seats is not None else task, wanted)
    options = run_until_decision(ctx)
    ctx.write_agenda()
    if options is None:
        _MEMO.options = None
    else:
        # Stopped at the top task for its options: a seat's own (not simultaneous)
        # decision in a game still running, so the seats to act come without asking.
        _MEMO.options = (ctx.state, options)
        top = ctx.agenda[-1]
        _MEMO.decision = (ctx.state, (top, _RULES[type(top)], (top.seat,)))
    return ctx.events, ctx.state


def run_until_decision(ctx: Context) -> list[Action] | None:
    """Resolve agenda steps until one needs a real choice or the agenda is empty.

    Returns the options of the task it stopped at (None: no options were listed, e.g.
    the agenda is empty or a simultaneous decision waits).
    """
    agenda = ctx.agenda
    while agenda and ctx.state.phase != "ended":
        task = agenda[-1]
        rules = _RULES[type(task)]
        if rules.seats is not None:
            if rules.seats(ctx.state, task):
                return None
            agenda.pop()
            rules.resolve(ctx, task, None)
            continue
        options = rules.options(ctx.state, task)
        if options is None:
            agenda.pop()
            rules.resolve(ctx, task, None)
        elif not options:
            agenda.pop()  # nothing can be done: the step is lost (e.g. no temple can advance)
        elif (
            len(options) == 1
            and not rules.always_asks
            and not _holds_single_option(ctx.state, task)
        ):
            agenda.pop()
            rules.resolve(ctx, task, options[0])
        else:
            return options
    return None


def explain_refusal(
    state: GameState, task: Task, wanted: Action, legal: list[Action]
) -> RuleViolation:
    """A RuleViolation naming why ``wanted`` is refused at ``task``'s decision."""
    rules = rules_of(task)
    types = sorted({str(a["type"]) for a in legal})
    kind = wanted.get("type")
    if not isinstance(kind, str):
        return RuleViolation(
            "malformed_action",
            f"RULES.md §9: an action is a JSON object whose 'type' is a string; "
            f"the game waits for {rules.decision}: one of {types}",
        )
    if kind in _FREE_ACTIONS:
        return RuleViolation(
            "free_action_not_allowed",
            f"{_FREE_ACTIONS[kind].rule}: {wanted} is not possible now; possible: "
            f"{[a for a in legal if a['type'] == kind][:12]}",
        )
    if kind not in types:
        # A precise reason first (e.g. why a board's main action can't be chosen).
        precise = rules.explain(state, task, wanted) if rules.explain is not None else None
        if precise is not None:
            return precise
        return RuleViolation(
            "wrong_decision",
            f"{rules.rule}: the game waits for {rules.decision}; '{kind}' is not one of {types}",
        )
    if rules.explain is not None:
        precise = rules.explain(state, task, wanted)
        if precise is not None:
            return precise
    same_kind = [a for a in legal if a["type"] == kind]
    return RuleViolation(
        "illegal_choice",
        f"{rules.rule}: {wanted} is not allowed in {rules.decision}; "
        f"legal choices of that kind: {same_kind[:12]}",
    )
