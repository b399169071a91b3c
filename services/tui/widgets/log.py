"""Recent events in plain words (the game kit's: ruleset descriptions with seat names)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import RichLog

from services.engine.domain.records import StoredEvent

if TYPE_CHECKING:
    from services.tui.kit import TableKit

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
        self.kit: TableKit | None = None
        """The game's words; the app sets it before the first event."""

    def on_mount(self) -> None:
        """Title."""
        self.border_title = "What happened"

    def add(self, event: StoredEvent, names: Sequence[str]) -> None:
        """Log one event (the kit's bookkeeping events are left out)."""
        kit = self.kit
        if kit is None:
            raise RuntimeError("EventLog.kit is not set")
        if event.type in kit.quiet_events:
            return
        line = kit.event_words(event.to_domain(), names)
        self.recent.append(line)
        self.write(Text(f"{event.version:>5} {line}", style=kit.highlight.get(event.type, "")))

    def reset(self) -> None:
        """Forget everything (a replay stepping backwards)."""
        self.recent.clear()
        self.clear()
