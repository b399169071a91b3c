"""Recent events in plain words (ruleset descriptions, seat names, Teotibot's rolls)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from rich.text import Text
from textual.widgets import RichLog

from services.engine.store.records import StoredEvent
from services.tui.words import QUIET_EVENTS, event_words

HIGHLIGHT = {"EclipseScored": "bold yellow", "EclipseTriggered": "bold red", "GameEnded": "bold"}
KEEP = 500


class EventLog(RichLog):
    """The log panel; ``recent`` keeps the plain lines (newest last) for tests and replays."""

    DEFAULT_CSS = """
    EventLog {
        height: 1fr;
        border: round $secondary;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(max_lines=KEEP, wrap=True, markup=False, **kwargs)  # type: ignore[arg-type]
        self.recent: deque[str] = deque(maxlen=KEEP)

    def on_mount(self) -> None:
        """Title."""
        self.border_title = "What happened"

    def add(self, event: StoredEvent, names: Sequence[str]) -> None:
        """Log one event (bookkeeping events are left out)."""
        if event.type in QUIET_EVENTS or event.type in ("GameCreated", "SeatJoined"):
            return
        line = event_words(event.to_domain(), names)
        self.recent.append(line)
        self.write(Text(f"{event.version:>5} {line}", style=HIGHLIGHT.get(event.type, "")))

    def reset(self) -> None:
        """Forget everything (a replay stepping backwards)."""
        self.recent.clear()
        self.clear()
