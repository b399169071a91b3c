"""Pop-ups over the table: a scoring (a game's kit draws it) and the final result."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from services.tui.widgets.common import seat_mark


def render_result(
    scores: Sequence[int], ranking: Sequence[int], names: Sequence[str]
) -> RenderableType:
    """Final scores in ranking order (ties already broken by the rules) and the winner."""
    table = Table(title="Final scores", title_style="bold")
    for heading in ("place", "seat", "score"):
        table.add_column(heading, justify="left" if heading == "seat" else "right")
    for place, seat in enumerate(ranking, start=1):
        label = seat_mark(seat, len(names))
        label.append(f" {names[seat] if seat < len(names) else seat}")
        table.add_row(str(place), label, str(scores[seat]) if seat < len(scores) else "?")
    winner = names[ranking[0]] if ranking and ranking[0] < len(names) else "?"
    return Group(table, Text(f"{winner} wins!", style="bold green"))


class ResultScreen(ModalScreen[None]):
    """A pop-up with a scoring table; Enter or Escape closes it."""

    DEFAULT_CSS = """
    ResultScreen { align: center middle; }
    ResultScreen > Vertical {
        width: 96; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "close"),
        Binding("enter", "dismiss", "close"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, body: RenderableType, kind: str) -> None:
        super().__init__()
        self.body = body
        self.kind = kind

    def compose(self) -> ComposeResult:
        """The table and a hint."""
        with Vertical():
            yield Static(self.body, id="result-body", expand=True)
            yield Static(Text("Enter: back to the table", style="dim"))

    async def action_dismiss(self, result: None = None) -> None:
        """Close the pop-up."""
        self.dismiss(result)
