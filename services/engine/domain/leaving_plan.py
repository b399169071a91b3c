"""What a resignation or a claim for a bot appends (pure: a game and the append's time in,
events out), and the rules that refuse one.

Both return a :class:`~services.engine.domain.engine_clock.ClockPlan`: ``before`` holds
the leaving events (``SeatResigned`` / ``SeatClaimedForBot`` and the handover that
follows), ``after`` the ``ClocksUpdated`` closing the append of a clocked game, with the
deadline to set. The engine adds the secrets left and ``SeedRevealed`` between them when
a resignation ends the game (:meth:`~services.engine.domain.engine.Engine.resign_seat`).

Refusals (RuleViolation, FAILED_PRECONDITION, nothing appended; reason in brackets):

- ``game_over``: the game has ended.
- ``seat_out``: the seat resigned or forfeited already (ResignSeat).
- ``seat_is_bot``: a bot seat neither resigns nor is claimed (a bot plays it anyway).
- ``claim_own_seat``: a player claiming their own seat (resign instead).
- ``claimer_out``: the claiming seat is out of the game itself (forfeited, resigned).
- ``seat_played_by_bot``: the claimed seat is played by a bot already.
- ``seat_not_absent``: the claimed seat's clock has not run out and it is not absent
  (to act with no event appended for the absence time).

InvalidArgument (INVALID_ARGUMENT): a seat the game lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.engine.domain.engine_clock import ClockPlan
from services.engine.domain.errors import InvalidArgument, RuleViolation
from services.engine.domain.game import GameSnapshot
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.leaving import (
    ClaimReason,
    seat_claimed_for_bot,
    seat_resigned,
)
from services.engine.domain.records import Deadline
from services.engine.domain.ruleset import DomainEvent, Resignation, resignation_of
from services.engine.domain.timing.seat_clocks import (
    SEAT_FORFEITED,
    SEAT_TAKEN_OVER,
    ClockState,
    timeout_events,
)
from services.engine.domain.timing.time_control import TimeoutPolicy


def _check_seat(snapshot: GameSnapshot, seat: int, role: str) -> SeatSpec:
    if not 0 <= seat < len(snapshot.seats):
        raise InvalidArgument(
            f"{role} seat {seat} is not a seat of this game ({len(snapshot.seats)} seats)"
        )
    return snapshot.seats[seat]


def _check_running(snapshot: GameSnapshot) -> None:
    if snapshot.is_terminal():
        raise RuleViolation("game_over", "the game has ended: no seat can leave it now")


def _human(seats: Sequence[SeatSpec], clock: ClockState) -> list[bool]:
    taken = clock.bot_controlled()
    return [seat.kind is SeatKind.HUMAN and i not in taken for i, seat in enumerate(seats)]


def _close(
    snapshot: GameSnapshot,
    events: list[DomainEvent],
    now_ms: int,
    ends: bool,
    timed_out: frozenset[int] = frozenset(),
) -> ClockPlan:
    """``events`` as an append's plan: with the ``ClocksUpdated`` closing it in a clocked
    game (every seat's clock charged as the clock rules say; none runs once it ends)."""
    clock = snapshot.clock
    if clock is None:
        return ClockPlan(events)
    for event in events:
        clock = clock.apply(event)
    to_act = () if ends else snapshot.seats_to_act()
    update = clock.updated(now_ms, to_act, _human(snapshot.seats, clock), timed_out=timed_out)
    after = clock.apply(update)
    return ClockPlan(events, [update], after, Deadline(after.next_deadline()))


def resignation_plan(
    snapshot: GameSnapshot, seat: int, now_ms: int
) -> tuple[Resignation, ClockPlan]:
    """What ``seat`` resigning from ``snapshot`` at ``now_ms`` does
    (:func:`~services.engine.domain.ruleset.resignation_of`: the game's rule, else the
    platform default; GAME_ENDS whatever they say when no other person is still in, only
    bot seats) and the events recording it: ``SeatResigned`` then
    ``SeatForfeited`` (GAME_ENDS, SEAT_OUT) or ``SeatTakenOver`` (BOT_PLAYS), then the
    clocks. A taken-over seat may resign (its player still holds it). Raises
    InvalidArgument, RuleViolation (``game_over``, ``seat_out``, ``seat_is_bot``)."""
    spec = _check_seat(snapshot, seat, "resigning")
    _check_running(snapshot)
    if spec.kind is SeatKind.BOT:
        raise RuleViolation("seat_is_bot", f"seat {seat} is a bot seat: it cannot resign")
    control = snapshot.control
    if seat in control.forfeited or seat in control.resigned:
        raise RuleViolation(
            "seat_out", f"seat {seat} is out of the game already (resigned or forfeited)"
        )
    seats_in = control.seats_in(len(snapshot.seats))
    people_in = [
        s
        for s in seats_in
        if s != seat and snapshot.seats[s].kind is SeatKind.HUMAN and s not in control.resigned
    ]
    # The engine's bots never play on alone: with no other person in, the game ends
    # whatever the game's own rule (a person against house bots resigning loses).
    outcome = (
        resignation_of(snapshot.ruleset, snapshot.state, seat, seats_in)
        if people_in
        else Resignation.GAME_ENDS
    )
    follow = SEAT_TAKEN_OVER if outcome is Resignation.BOT_PLAYS else SEAT_FORFEITED
    events = [seat_resigned(seat, outcome), DomainEvent(follow, {"seat": seat})]
    return outcome, _close(snapshot, events, now_ms, outcome is Resignation.GAME_ENDS)


def claim_policy(snapshot: GameSnapshot, has_bot: bool) -> TimeoutPolicy:
    """What a claim does to the seat: the game's timeout policy if it has clocks, else a
    bot takes it over (the player may reclaim it with their next move) when the ruleset
    has its own bot, or it forfeits when only random play could stand in."""
    if snapshot.clock is not None:
        return snapshot.clock.control.policy
    return TimeoutPolicy.BOT_TAKEOVER if has_bot else TimeoutPolicy.FORFEIT


def claim_plan(
    snapshot: GameSnapshot,
    seat: int,
    claimed_by: int,
    now_ms: int,
    idle_since_ms: int,
    absence_ms: int,
    has_bot: bool,
) -> ClockPlan:
    """Seat ``claimed_by``'s player hands ``seat`` to a bot at ``now_ms``.

    Allowed when the seat's clock ran out (its deadline is at or before ``now_ms``:
    ``SeatClaimedForBot`` ``timed_out``, then ``SeatTimedOut`` and the policy's event, as
    the timekeeper would write them) or when it is absent: to act, with no event appended
    since ``idle_since_ms`` (the last event's ``recorded_at``) for at least
    ``absence_ms`` (``absent``, then the :func:`claim_policy` event). ``has_bot``: the
    ruleset has its own bot. Raises InvalidArgument, RuleViolation (``game_over``,
    ``claim_own_seat``, ``claimer_out``, ``seat_is_bot``, ``seat_played_by_bot``,
    ``seat_not_absent``)."""
    spec = _check_seat(snapshot, seat, "claimed")
    claimer = _check_seat(snapshot, claimed_by, "claiming")
    _check_running(snapshot)
    control = snapshot.control
    if seat == claimed_by:
        raise RuleViolation(
            "claim_own_seat", "a player cannot claim their own seat for a bot: resign instead"
        )
    if (
        claimer.kind is SeatKind.BOT
        or claimed_by in control.forfeited
        or claimed_by in control.resigned
    ):
        raise RuleViolation(
            "claimer_out", f"seat {claimed_by} is not a player's seat in the game any more"
        )
    if spec.kind is SeatKind.BOT:
        raise RuleViolation("seat_is_bot", f"seat {seat} is a bot seat: a bot plays it already")
    if seat in control.bot_controlled():
        raise RuleViolation("seat_played_by_bot", f"seat {seat} is played by a bot already")
    clock = snapshot.clock
    deadline = clock.clocks[seat].deadline_ms if clock is not None else None
    if clock is not None and deadline is not None and deadline <= now_ms:
        claimed = seat_claimed_for_bot(
            seat, claimed_by, ClaimReason.TIMED_OUT, idle_since_ms, absence_ms
        )
        events = [claimed, *timeout_events(seat, deadline, clock.control.policy)]
        return _close(snapshot, events, now_ms, False, frozenset({seat}))
    idle_ms = now_ms - idle_since_ms
    if seat not in snapshot.seats_to_act() or idle_ms < absence_ms:
        state = (
            "is not to act"
            if seat not in snapshot.seats_to_act()
            else (f"has been to act for {max(0, idle_ms) // 1000} s")
        )
        raise RuleViolation(
            "seat_not_absent",
            f"seat {seat} {state}: a seat may be claimed for a bot once its clock ran out, "
            f"or after {absence_ms // 1000} s to act with no event in the game",
        )
    policy = claim_policy(snapshot, has_bot)
    follow = SEAT_TAKEN_OVER if policy is TimeoutPolicy.BOT_TAKEOVER else SEAT_FORFEITED
    events = [
        seat_claimed_for_bot(seat, claimed_by, ClaimReason.ABSENT, idle_since_ms, absence_ms),
        DomainEvent(follow, {"seat": seat}),
    ]
    return _close(snapshot, events, now_ms, False)
