"""What the engine counts as it works, as plain integers (issue 34, metrics).

Incrementing an int attribute is the cheapest count there is (tens of nanoseconds): the
domain stays free of any metrics library, and the process's metrics endpoint reads these
fields when Prometheus scrapes (services.metrics.samplers.engine_tallies)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class EngineTallies:
    """Counts since the engine started; they only grow."""

    moves_appended: int = 0
    """SubmitAction commands that appended events (a duplicate command id appends none)."""
    events_appended: int = 0
    """Events those moves appended (the move's own, its turn's system events, a reveal)."""
    append_conflicts: int = 0
    """Appends of a move the store refused because the log had moved on."""
    append_retries: int = 0
    """Moves decided again on a fresh load after such a conflict (no expected version)."""
