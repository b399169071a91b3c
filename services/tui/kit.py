"""What the terminal table knows of one game, and where each game's own kit is found.

:class:`TableKit` is the generic table for any ruleset: the seat's JSON view (generic
panels), the legal actions in the ruleset's ``describe_action`` words (sent by the
server with each legal action), the log in its ``describe_event`` words, and whose turn
it is. A game may enrich it with its own kit, a subclass living in its folder
(``services/games/<name>/tui``) and named by its declaration (``GameDeclaration.tui_kit``,
an import string loaded only when that game is shown), so this module and the rest of the
generic table import no game's package (import-linter contract in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from rich.console import RenderableType
from textual.app import App

from services.client import GameView, LegalMove
from services.engine.domain.errors import UnknownRuleset
from services.engine.domain.ruleset import DomainEvent, Ruleset, info_of
from services.engine.domain.rulesets import RulesetRegistry, default_registry, load_object
from services.tui.widgets.common import Panel
from services.tui.widgets.scoring import render_result
from services.tui.widgets.view import SeatsView, ViewPanel
from services.tui.words import seat_label, with_seat_names, words_of

log = structlog.get_logger("teoti.tui")


@dataclass(frozen=True, slots=True)
class Hotkey:
    """A key that sends one action at once (e.g. a free action), shown in the footer.

    Attributes:
        key: the key, e.g. ``"u"``.
        action: the JSON action it sends (the server says if it is not possible now).
        words: the action in game words (shown when sent or refused).
        label: the footer's label.
    """

    key: str
    action: Mapping[str, Any]
    words: str
    label: str


class TableKit:
    """The generic table; subclass it (in ``services/games/<name>/``) to enrich it.

    Args:
        ruleset: the game's rules as the client holds them, for ``describe_event`` and
            the title (None when this client cannot load them: the log then shows event
            types).
        name: the ruleset's name.
    """

    scoring_label: str = ""
    """Footer label of the ``e`` key that shows the last scoring again ("" hides it)."""
    scoring_events: frozenset[str] = frozenset()
    """Event types that pop up a scoring (drawn by :meth:`scoring_body`)."""
    hotkeys: tuple[Hotkey, ...] = ()
    free_actions: frozenset[str] = frozenset()
    """Action types listed last, under ``actions.FREE_GROUP``."""
    quiet_events: frozenset[str] = frozenset({"GameCreated", "SeatJoined"})
    """Event types the log leaves out (bookkeeping)."""
    highlight: Mapping[str, str] = {}
    """Rich style of the log line of some event types."""
    milestones: frozenset[str] = frozenset()
    """Event types a replay's ``[``/``]`` stop at, besides the ruleset's own milestones."""
    score_unit: str = "points"
    """What the game's scores count, as said after a score ("12 points", "12 VP")."""

    def __init__(self, ruleset: Ruleset[Any] | None = None, name: str = "") -> None:
        self.ruleset = ruleset
        self.name = name or (ruleset.name if ruleset is not None else "game")
        self.title = info_of(ruleset).title if ruleset is not None else self.name

    def board_panels(self) -> list[Panel]:
        """The panels of the board column (new widgets each call)."""
        return [ViewPanel(id="view")]

    def info_panels(self) -> list[Panel]:
        """The panels beside the board (seats, offers...)."""
        return [SeatsView(id="seats")]

    def decision_words(self, view: GameView, you: int | None, names: Sequence[str]) -> str:
        """Whose decision the game waits for, e.g. ``"You choose"``."""
        if view.finished:
            return "The game is over."
        if not view.seats_to_act:
            return ""
        if you in view.seats_to_act:
            return "Your turn: choose below."
        waiting = ", ".join(seat_label(names, s) for s in view.seats_to_act)
        return f"Waiting for {waiting}."

    def action_words(self, move: LegalMove, state: Mapping[str, Any], seat: int | None) -> str:
        """A legal action in game words: the ruleset's ``describe_action`` (the server
        sends it with the action), else the local ruleset's, else its JSON type."""
        if move.description:
            return move.description
        if self.ruleset is not None:
            try:
                return self.ruleset.describe_action(move.action)
            except (KeyError, IndexError, TypeError, ValueError):
                pass
        return words_of(str(move.action.get("type", "action")))

    def group_of(self, action: Mapping[str, Any]) -> str:
        """Heading under which the choice list shows ``action`` (its type, in words)."""
        kind = words_of(str(action.get("type", "")))
        return kind[:1].upper() + kind[1:] if kind else "Choices"

    def event_words(self, event: DomainEvent, names: Sequence[str]) -> str:
        """One log line: the ruleset's ``describe_event`` with seat names for numbers."""
        text = event.type
        if self.ruleset is not None:
            try:
                text = self.ruleset.describe_event(event)
            except (KeyError, IndexError, TypeError, ValueError) as error:
                log.debug("describe_event_failed", type=event.type, error=repr(error))
        return with_seat_names(text, names)

    def is_milestone(self, event: DomainEvent) -> bool:
        """True for events a replay's milestone keys stop at."""
        if event.type in self.milestones:
            return True
        return self.ruleset is not None and bool(self.ruleset.is_milestone(event))

    def scoring_body(self, payload: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """The pop-up of a :attr:`scoring_events` event (the base kit has none)."""
        raise NotImplementedError

    def final_body(
        self, view: GameView, names: Sequence[str], scorings: Sequence[Mapping[str, Any]]
    ) -> RenderableType:
        """The end-of-game pop-up: scores in ranking order and the winner."""
        scores = list(view.scores)
        ranking = list(view.ranking) or sorted(range(len(scores)), key=lambda s: -scores[s])
        return render_result(scores, ranking, names)

    def final_scores(self, view: GameView) -> list[int]:
        """Each seat's score to print when the person leaves the table."""
        return [int(s) for s in view.scores]

    def on_highlight(self, app: App[None], action: Mapping[str, Any]) -> None:
        """The cursor moved to ``action`` in the choice list (e.g. preview it on a panel)."""


def kit_for(name: str, registry: RulesetRegistry | None = None) -> TableKit:
    """The table kit of ruleset ``name``: the one its declaration names
    (``GameDeclaration.tui_kit``) or the generic one.

    The ruleset comes from ``registry`` (default: the installed games); one this client
    cannot load still gets a generic table, whose log then shows event types.
    """
    if registry is None:
        registry = default_registry()
    ruleset: Ruleset[Any] | None
    try:
        ruleset = registry.get(name)
    except UnknownRuleset as error:
        log.warning("ruleset_not_available_here", ruleset=name, error=str(error))
        ruleset = None
    target = registry.declaration(name).tui_kit if ruleset is not None else None
    if target is None:
        return TableKit(ruleset, name)
    kit: TableKit = load_object(target)(ruleset, name)
    return kit
