"""Clocks of every game: time controls, seat clocks folded from the log, timeout plans.

- :mod:`.time_control`: what CreateGame chooses (base + increment, a per-move deadline,
  the timeout policy) and its validation.
- :mod:`.seat_clocks`: the engine events that record clocks (docs/events.md, "Clocks")
  and the :class:`~.seat_clocks.ClockState` folded from them.
- :mod:`.engine_clock`: the clock events an append adds, and the timeouts due now.

The loop appending those timeouts when a deadline passes is the engine process's
:mod:`services.engine.entrypoints.timekeeper` (it claims deadlines from a store and
waits out outages: I/O, so not in the domain).
"""
