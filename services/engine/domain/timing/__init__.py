"""Clocks of every game, as data: time controls and the seat clocks folded from the log.

- :mod:`.time_control`: what CreateGame chooses (base + increment, a per-move deadline,
  the timeout policy) and its validation.
- :mod:`.seat_clocks`: the engine events that record clocks (docs/events.md, "Clocks")
  and the :class:`~.seat_clocks.ClockState` folded from them.

Folding a game (:mod:`services.engine.domain.game`) uses these, so nothing here imports
the game: what works on a folded game lives beside it in the domain,
:mod:`services.engine.domain.engine_clock` (the clock events an append adds, the timeouts
due now) and :mod:`services.engine.domain.clock_audit` (a log's clocks re-checked). The
loop appending timeouts when a deadline passes is the engine process's
:mod:`services.engine.entrypoints.timekeeper` (it claims deadlines from a store and waits
out outages: I/O, so not in the domain).
"""
