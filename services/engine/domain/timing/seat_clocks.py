"""Seat clocks as the public log records them, and the state folded from them.

Engine events (the ruleset never sees them; fields in docs/events.md, "Clocks"):

- ``ClockStarted`` v1 ``{base_ms, increment_ms, move_deadline_ms, timeout_policy}``: the
  game's time control, in the creation append right after the ruleset's setup events.
- ``ClocksUpdated`` v1 ``{charged: [{seat, used_ms}], clocks: [{seat, remaining_ms,
  running_since_ms, deadline_ms}]}``: the last event of every append of a clocked game
  (its creation included) while it runs: who was charged how long, and each seat's clock
  afterwards. Times are ms since the Unix epoch from the engine's clock, the same clock
  that stamps ``recorded_at``, so an auditor can recompute every figure from the log.
- ``SeatTimedOut`` v1 ``{seat, deadline_ms, timeout_policy}``: the seat's deadline passed
  with no move (appended by the timekeeper), followed in the same append by
- ``SeatTakenOver`` v1 ``{seat}`` (a bot plays it from now on) or ``SeatForfeited`` v1
  ``{seat}`` (ranked last; a zombie bot makes its remaining moves); either also comes
  alone, without ``SeatTimedOut``, when the seat's tournament player withdrew (the
  policy applied at once, issue 30 item 4), and
- ``SeatReclaimed`` v1 ``{seat}``: the player of a taken-over seat moved again; first
  event of that move's append.

Clock rules (how the engine computes ``ClocksUpdated``): a human-controlled seat's clock
runs while the ruleset waits for it. When a running seat acts, or stops being waited for,
it is charged the time since its clock started (``used_ms``); base time drops by it (not
below 0) and an acting seat gains the increment. A seat still to act after the append
keeps its start time unless it was the one acting (its next decision starts now). A
seat's deadline is ``running_since_ms + remaining_ms`` (base time) and at most
``running_since_ms + move_deadline_ms`` (per-move deadline). Seats played by a bot (bot
seats, taken over, forfeited) have no running clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy

CLOCK_STARTED = "ClockStarted"
CLOCKS_UPDATED = "ClocksUpdated"
SEAT_TIMED_OUT = "SeatTimedOut"
SEAT_TAKEN_OVER = "SeatTakenOver"
SEAT_FORFEITED = "SeatForfeited"
SEAT_RECLAIMED = "SeatReclaimed"
CLOCK_EVENTS = frozenset(
    {CLOCK_STARTED, CLOCKS_UPDATED, SEAT_TIMED_OUT, SEAT_TAKEN_OVER, SEAT_FORFEITED, SEAT_RECLAIMED}
)


def epoch_ms(moment: datetime) -> int:
    """``moment`` (timezone-aware) as whole ms since the Unix epoch."""
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's clock.

    Attributes:
        remaining_ms: base time left (None: the time control has no base time).
        running_since_ms: when its current decision started (None: not running).
        deadline_ms: when it times out (None: not running).
    """

    remaining_ms: int | None = None
    running_since_ms: int | None = None
    deadline_ms: int | None = None

    def to_json(self, seat: int) -> dict[str, Any]:
        """Payload form (an item of ``ClocksUpdated.clocks``)."""
        return {
            "seat": seat,
            "remaining_ms": self.remaining_ms,
            "running_since_ms": self.running_since_ms,
            "deadline_ms": self.deadline_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatClock:
        """Inverse of :meth:`to_json`."""

        def opt(key: str) -> int | None:
            value = data.get(key)
            return None if value is None else int(value)

        return cls(opt("remaining_ms"), opt("running_since_ms"), opt("deadline_ms"))


@dataclass(frozen=True, slots=True)
class ClockState:
    """The clocks of a game, folded from its clock events.

    Attributes:
        control: the game's time control.
        clocks: one per seat, by seat index.
        taken_over: seats a bot plays after a timeout (BOT_TAKEOVER), until reclaimed.
        forfeited: seats that forfeited, in the order they did (the first ranks last).
    """

    control: TimeControl
    clocks: tuple[SeatClock, ...]
    taken_over: frozenset[int] = frozenset()
    forfeited: tuple[int, ...] = ()

    @classmethod
    def start(cls, control: TimeControl, seats: int) -> ClockState:
        """Clocks of a game just created (none running yet)."""
        remaining = control.base_ms if control.base_ms else None
        return cls(control, tuple(SeatClock(remaining) for _ in range(seats)))

    def bot_controlled(self) -> frozenset[int]:
        """Human seats a bot plays now (taken over or forfeited)."""
        return self.taken_over | frozenset(self.forfeited)

    def next_deadline(self) -> int | None:
        """The earliest deadline of a running clock (ms), or None if none runs."""
        deadlines = [c.deadline_ms for c in self.clocks if c.deadline_ms is not None]
        return min(deadlines) if deadlines else None

    def due(self, now_ms: int) -> list[int]:
        """Seats whose running clock's deadline is at or before ``now_ms``."""
        return [
            seat
            for seat, c in enumerate(self.clocks)
            if c.deadline_ms is not None and c.deadline_ms <= now_ms
        ]

    def may_reclaim(self) -> bool:
        """True if a taken-over seat may be reclaimed: its base time ran out at the
        timeout, so only an increment (or no base time at all) leaves time to play."""
        return not self.control.base_ms or self.control.increment_ms > 0

    def apply(self, event: DomainEvent) -> ClockState:
        """This state with one clock event (other than ClockStarted) folded in."""
        payload = event.payload
        if event.type == CLOCKS_UPDATED:
            clocks = list(self.clocks)
            for item in payload["clocks"]:
                clocks[int(item["seat"])] = SeatClock.from_json(item)
            return replace(self, clocks=tuple(clocks))
        seat = int(payload.get("seat", -1))
        if event.type == SEAT_TAKEN_OVER:
            return replace(self, taken_over=self.taken_over | {seat})
        if event.type == SEAT_FORFEITED:
            return replace(
                self, taken_over=self.taken_over - {seat}, forfeited=(*self.forfeited, seat)
            )
        if event.type == SEAT_RECLAIMED:
            return replace(self, taken_over=self.taken_over - {seat})
        return self  # SeatTimedOut: its consequences are the events that follow it

    def to_json(self) -> dict[str, Any]:
        """Stored snapshot form."""
        return {
            "control": self.control.to_json(),
            "clocks": [c.to_json(seat) for seat, c in enumerate(self.clocks)],
            "taken_over": sorted(self.taken_over),
            "forfeited": list(self.forfeited),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClockState:
        """Inverse of :meth:`to_json`. Raises KeyError/ValueError/TypeError."""
        return cls(
            TimeControl.from_json(data["control"]),
            tuple(SeatClock.from_json(c) for c in data["clocks"]),
            frozenset(int(s) for s in data["taken_over"]),
            tuple(int(s) for s in data["forfeited"]),
        )

    def updated(
        self,
        now_ms: int,
        to_act: Iterable[int],
        human: Sequence[bool],
        actor: int | None = None,
        reclaimed: bool = False,
        timed_out: frozenset[int] = frozenset(),
    ) -> DomainEvent:
        """The ``ClocksUpdated`` event closing an append made at ``now_ms`` (see the
        module's clock rules).

        Args:
            now_ms: the append's time (its ``recorded_at``).
            to_act: seats the ruleset waits for after the append (empty once it ended).
            human: per seat, True if a person plays it after the append.
            actor: the seat whose move this append is (None: no seat moved).
            reclaimed: the actor reclaimed its seat in this append (it is not charged
                and gains the increment).
            timed_out: seats timing out in this append: charged to zero, not running.
        """
        waiting = set(to_act)
        control = self.control
        charged: list[dict[str, int]] = []
        clocks: list[dict[str, Any]] = []
        for seat, clock in enumerate(self.clocks):
            remaining = clock.remaining_ms
            since = clock.running_since_ms
            runs = seat in waiting and human[seat] and seat not in timed_out
            moved = seat == actor
            was_running = since is not None
            if since is not None and (moved or not runs):
                used = max(0, now_ms - since)
                charged.append({"seat": seat, "used_ms": used})
                if remaining is not None:
                    remaining = 0 if seat in timed_out else max(0, remaining - used)
                since = None
            if moved and remaining is not None and (was_running or reclaimed):
                remaining += control.increment_ms
            if not runs:
                clocks.append(SeatClock(remaining).to_json(seat))
                continue
            start = now_ms if since is None else since
            limits = [start + remaining] if remaining is not None else []
            if control.move_deadline_ms:
                limits.append(start + control.move_deadline_ms)
            clocks.append(SeatClock(remaining, start, min(limits)).to_json(seat))
        return DomainEvent(CLOCKS_UPDATED, {"charged": charged, "clocks": clocks})


def clock_started(control: TimeControl) -> DomainEvent:
    """The game's time control, recorded at creation."""
    return DomainEvent(CLOCK_STARTED, control.to_json())


def timeout_events(seat: int, deadline_ms: int, policy: TimeoutPolicy) -> list[DomainEvent]:
    """``SeatTimedOut`` and the policy's event for ``seat``."""
    follow = SEAT_TAKEN_OVER if policy is TimeoutPolicy.BOT_TAKEOVER else SEAT_FORFEITED
    return [
        DomainEvent(
            SEAT_TIMED_OUT,
            {"seat": seat, "deadline_ms": deadline_ms, "timeout_policy": policy.value},
        ),
        DomainEvent(follow, {"seat": seat}),
    ]


def withdrawal_event(seat: int, policy: TimeoutPolicy) -> DomainEvent:
    """The policy's event for ``seat`` whose player withdrew (no ``SeatTimedOut``: no
    deadline passed; the same event a timeout appends after it)."""
    return timeout_events(seat, 0, policy)[1]


def seat_reclaimed(seat: int) -> DomainEvent:
    """The player of a taken-over seat plays it again."""
    return DomainEvent(SEAT_RECLAIMED, {"seat": seat})


def fold_clock(state: ClockState | None, event: DomainEvent, seats: int) -> ClockState | None:
    """``state`` with the clock event ``event`` folded in (ClockStarted starts it).
    Raises ValueError for another clock event before ClockStarted."""
    if event.type == CLOCK_STARTED:
        return ClockState.start(TimeControl.from_json(event.payload), seats)
    if state is None:
        raise ValueError(f"{event.type} before ClockStarted")
    return state.apply(event)
