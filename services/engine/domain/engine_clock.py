"""The clock events the engine adds to its appends (creation, moves, timeouts).

Pure functions of a game and the append's time: the engine calls them while building an
append, and the timekeeper to build a timeout. Each returns the events to add and the
game's next deadline, which the store writes in the same atomic append (see
``services.engine.adapters.deadlines``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.engine.domain.errors import InvalidArgument, RuleViolation
from services.engine.domain.game import GameSnapshot
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.records import Deadline
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.timing.seat_clocks import (
    ClockState,
    clock_started,
    seat_reclaimed,
    timeout_events,
    withdrawal_event,
)
from services.engine.domain.timing.time_control import TimeControl


@dataclass(frozen=True, slots=True)
class ClockPlan:
    """Clock events of one append.

    Attributes:
        before: events to put before the move's own (a reclaim).
        after: events closing the append (``ClocksUpdated``).
        clock: the clocks once the append is folded.
        deadline: what the store must set (None: an unclocked game, leave it).
    """

    before: list[DomainEvent] = field(default_factory=list)
    after: list[DomainEvent] = field(default_factory=list)
    clock: ClockState | None = None
    deadline: Deadline | None = None


NO_CLOCK = ClockPlan()


def _human(seats: Sequence[SeatSpec], clock: ClockState) -> list[bool]:
    taken = clock.bot_controlled()
    return [seat.kind is SeatKind.HUMAN and i not in taken for i, seat in enumerate(seats)]


def _close(
    clock: ClockState,
    seats: Sequence[SeatSpec],
    to_act: Sequence[int],
    now_ms: int,
    before: list[DomainEvent],
    **charge: Any,
) -> ClockPlan:
    update = clock.updated(now_ms, to_act, _human(seats, clock), **charge)
    after = clock.apply(update)
    return ClockPlan(before, [update], after, Deadline(after.next_deadline()))


def creation_plan(control: TimeControl | None, snapshot: GameSnapshot, now_ms: int) -> ClockPlan:
    """``ClockStarted`` and the first ``ClocksUpdated`` of a game created at ``now_ms``
    (``snapshot``: the game after its setup events); NO_CLOCK without a time control."""
    if control is None:
        return NO_CLOCK
    clock = ClockState.start(control, len(snapshot.seats))
    plan = _close(clock, snapshot.seats, snapshot.seats_to_act(), now_ms, [])
    return ClockPlan([], [clock_started(control), *plan.after], plan.clock, plan.deadline)


def check_seat(snapshot: GameSnapshot, seat: int, is_bot: bool) -> bool:
    """Whether a move of ``seat`` reclaims it (a person moving for a taken-over seat).

    Raises RuleViolation ``seat_forfeited`` (a person moving for a forfeited seat: on
    time, withdrawn or resigned), ``seat_resigned`` (a person moving for a seat handed to
    a bot by its resignation) or ``reclaim_not_allowed`` (the time control leaves a
    reclaimed seat no time: base time without increment).
    """
    control = snapshot.control
    if is_bot or not 0 <= seat < len(snapshot.seats):
        return False
    if seat in control.forfeited:
        if seat in control.resigned:
            raise RuleViolation(
                "seat_forfeited", f"seat {seat} resigned; a bot makes its remaining moves"
            )
        raise RuleViolation("seat_forfeited", f"seat {seat} forfeited on time; a bot plays it")
    if seat not in control.taken_over:
        return False
    if seat in control.resigned:
        raise RuleViolation(
            "seat_resigned", f"seat {seat} resigned and was handed to a bot for good"
        )
    clock = snapshot.clock
    if clock is not None and not clock.may_reclaim():
        raise RuleViolation(
            "reclaim_not_allowed",
            f"seat {seat} ran out of time and its time control adds none per move: a bot "
            "plays it to the end",
        )
    return True


def move_plan(
    snapshot: GameSnapshot, seat: int, reclaim: bool, after: GameSnapshot, now_ms: int
) -> ClockPlan:
    """Clock events of ``seat``'s move on ``snapshot`` at ``now_ms`` (``after``: the game
    once the move's own events are folded); for an unclocked game only a reclaim's
    ``SeatReclaimed`` (its seat was claimed for a bot), else NO_CLOCK."""
    if snapshot.clock is None:
        return ClockPlan([seat_reclaimed(seat)]) if reclaim else NO_CLOCK
    clock = snapshot.clock
    before: list[DomainEvent] = []
    if reclaim:
        before.append(seat_reclaimed(seat))
        clock = clock.apply(before[0])
    to_act = () if after.is_terminal() else after.seats_to_act()
    return _close(clock, snapshot.seats, to_act, now_ms, before, actor=seat, reclaimed=reclaim)


def timeout_plan(snapshot: GameSnapshot, now_ms: int) -> ClockPlan:
    """The timeout of every seat of ``snapshot`` whose deadline passed by ``now_ms``
    (``SeatTimedOut`` + the policy's event each, then ``ClocksUpdated``); NO_CLOCK if
    none is due (or the game is unclocked or over)."""
    clock = snapshot.clock
    if clock is None or snapshot.is_terminal():
        return NO_CLOCK
    due = clock.due(now_ms)
    if not due:
        return NO_CLOCK
    events: list[DomainEvent] = []
    for seat in due:
        deadline = clock.clocks[seat].deadline_ms
        assert deadline is not None
        for event in timeout_events(seat, deadline, clock.control.policy):
            events.append(event)
            clock = clock.apply(event)
    return _close(
        clock, snapshot.seats, snapshot.seats_to_act(), now_ms, events, timed_out=frozenset(due)
    )


def withdrawal_plan(snapshot: GameSnapshot, seat: int, now_ms: int) -> ClockPlan:
    """``seat``'s player withdrew (a tournament's WithdrawPlayer, issue 30 item 4): the
    game's timeout policy applied to the seat at ``now_ms``, as a timeout would, but
    without ``SeatTimedOut`` (no deadline passed): ``SeatForfeited`` or
    ``SeatTakenOver``, then ``ClocksUpdated`` (the seat's running clock is charged and
    stops; a bot plays it from now on). NO_CLOCK if there is nothing to settle: an
    unclocked game (clock events need ``ClockStarted``), one that ended, a bot seat, or
    a seat a bot already plays. Raises InvalidArgument for a seat the game lacks."""
    if not 0 <= seat < len(snapshot.seats):
        raise InvalidArgument(f"seat {seat} is not a seat of this game")
    clock = snapshot.clock
    if clock is None or snapshot.is_terminal():
        return NO_CLOCK
    if snapshot.seats[seat].kind is not SeatKind.HUMAN or seat in clock.bot_controlled():
        return NO_CLOCK
    event = withdrawal_event(seat, clock.control.policy)
    clock = clock.apply(event)
    return _close(clock, snapshot.seats, snapshot.seats_to_act(), now_ms, [event])
