"""Clocks of every game: time controls, seat clocks folded from the log, the timekeeper.

- :mod:`.time_control`: what CreateGame chooses (base + increment, a per-move deadline,
  the timeout policy) and its validation.
- :mod:`.seat_clocks`: the engine events that record clocks (docs/events.md, "Clocks")
  and the :class:`~.seat_clocks.ClockState` folded from them.
- :mod:`.timekeeper`: the loop appending timeouts when a deadline passes.
"""
