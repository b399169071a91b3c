"""The clock rules of ClockState.updated, by hand (no engine)."""

from __future__ import annotations

from services.engine.domain.timing.seat_clocks import ClockState, SeatClock
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy

LIVE = TimeControl(base_ms=60_000, increment_ms=2_000, move_deadline_ms=30_000)


def _after(state: ClockState, *args: object, **kwargs: object) -> ClockState:
    return state.apply(state.updated(*args, **kwargs))  # type: ignore[arg-type]


def test_simultaneous_seats_keep_their_start_until_they_act() -> None:
    start = ClockState.start(LIVE, 3)
    both = _after(start, 1_000, (0, 1), [True, True, False])
    assert both.clocks[0] == SeatClock(60_000, 1_000, 31_000)  # the move deadline is sooner
    assert both.clocks[2] == SeatClock(60_000)  # a bot seat: never running
    # Seat 0 acts at 4 s and is still to act (a second decision); seat 1 keeps waiting.
    later = _after(both, 4_000, (0, 1), [True, True, False], actor=0)
    assert later.clocks[0] == SeatClock(60_000 - 3_000 + 2_000, 4_000, 34_000)
    assert later.clocks[1] == SeatClock(60_000, 1_000, 31_000)
    # Seat 1 stops being waited for without acting: charged, no increment.
    done = _after(later, 9_000, (0,), [True, True, False])
    assert done.clocks[1] == SeatClock(60_000 - 8_000)
    update = later.updated(9_000, (0,), [True, True, False])
    assert update.payload["charged"] == [{"seat": 1, "used_ms": 8_000}]


def test_base_time_decides_the_deadline_once_it_is_the_shorter() -> None:
    state = ClockState(LIVE, (SeatClock(10_000),))
    running = _after(state, 0, (0,), [True])
    assert running.next_deadline() == 10_000 and running.due(10_000) == [0]
    assert running.due(9_999) == []


def test_a_timed_out_seat_is_charged_to_zero_and_stops() -> None:
    state = _after(ClockState.start(LIVE, 2), 0, (0,), [True, True])
    out = _after(state, 31_000, (0,), [False, True], timed_out=frozenset({0}))
    assert out.clocks[0] == SeatClock(0) and out.next_deadline() is None


def test_snapshot_form_round_trips() -> None:
    state = ClockState(
        TimeControl(move_deadline_ms=5_000, policy=TimeoutPolicy.FORFEIT),
        (SeatClock(None, 1, 5_001), SeatClock()),
        frozenset({1}),
        (0,),
    )
    assert ClockState.from_json(state.to_json()) == state
    assert state.bot_controlled() == {0, 1}
