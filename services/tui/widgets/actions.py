"""The decision at hand: the seat's legal actions, grouped and named in game terms.

Arrow keys move, Enter chooses. The game's kit names and groups them; its free actions
(e.g. an unlock) are listed last under their own heading whenever legal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from services.client import LegalMove

if TYPE_CHECKING:
    from services.tui.kit import TableKit

FREE_GROUP = "Free actions (any time in your turn)"


@dataclass(frozen=True, slots=True)
class Choice:
    """One listed action: what is sent and what is shown."""

    action: Mapping[str, Any]
    words: str
    group: str


def group_choices(
    legal: Sequence[LegalMove], view: Mapping[str, Any], seat: int | None, kit: TableKit
) -> list[tuple[str, list[Choice]]]:
    """Legal actions grouped by the kit's headings, in the server's order; free actions
    (``kit.free_actions``) last."""
    groups: dict[str, list[Choice]] = {}
    free: list[Choice] = []
    for move in legal:
        kind = str(move.action.get("type"))
        words = kit.action_words(move, view, seat)
        if kind in kit.free_actions:
            free.append(Choice(move.action, words, FREE_GROUP))
        else:
            group = kit.group_of(move.action)
            groups.setdefault(group, []).append(Choice(move.action, words, group))
    ordered = list(groups.items())
    if free:
        ordered.append((FREE_GROUP, free))
    return ordered


class ActionList(OptionList):
    """Legal actions; posts :class:`ActionList.Chosen` on Enter."""

    DEFAULT_CSS = """
    ActionList {
        height: 1fr;
        border: round $accent;
    }
    """

    class Chosen(Message):
        """The person chose ``choice``."""

        def __init__(self, choice: Choice) -> None:
            super().__init__()
            self.choice = choice

    class Highlighted(Message):
        """The cursor moved to ``choice`` (None: a heading or nothing)."""

        def __init__(self, choice: Choice | None) -> None:
            super().__init__()
            self.choice = choice

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Choice] = []
        self._by_id: dict[str, Choice] = {}

    def on_mount(self) -> None:
        """Title."""
        self.border_title = "Your choices"

    def set_choices(self, title: str, grouped: list[tuple[str, list[Choice]]]) -> None:
        """Replace the list; highlight the first action (not a heading)."""
        self.border_title = title
        self.clear_options()
        self.choices = []
        self._by_id = {}
        options: list[Option] = []
        first: int | None = None
        for group, choices in grouped:
            options.append(Option(Text(group, style="bold underline"), disabled=True))
            for choice in choices:
                option_id = f"a{len(self.choices)}"
                self.choices.append(choice)
                self._by_id[option_id] = choice
                if first is None:
                    first = len(options)
                # Text, not a str: labels such as "[g-br]" are tiles, never Rich markup.
                options.append(Option(Text(f"  {choice.words}"), id=option_id))
        self.add_options(options)
        self.highlighted = first

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Cursor moved: say which choice is under it (a kit may preview it)."""
        event.stop()
        self.post_message(self.Highlighted(self._by_id.get(event.option.id or "")))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on an action: post it."""
        event.stop()
        choice = self._by_id.get(event.option.id or "")
        if choice is not None:
            self.post_message(self.Chosen(choice))

    @property
    def highlighted_choice(self) -> Choice | None:
        """The action under the cursor."""
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return self._by_id.get(option.id or "")
