"""A yes/no pop-up over the table, for a step that cannot be undone (resigning)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask ``question``; ``y`` answers True, ``n`` or Escape False (the default: a stray
    key never confirms)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 64; height: auto; border: thick $error; background: $surface; padding: 1 2;
    }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        """The question and the keys that answer it."""
        with Vertical():
            yield Static(Text(self.question, style="bold"))
            yield Static(Text("y: yes    n / Escape: no, back to the table", style="dim"))

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)
