"""Teotihuacan's table: the rondel, tracks, pyramid, discoveries, Teotibot, seats and
offers panels, the eclipse pop-ups and the unlock key (RULES.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from textual.app import App

from services.client import GameView, LegalMove
from services.engine.domain.ruleset import DomainEvent
from services.games.teotihuacan.tui import words
from services.games.teotihuacan.tui.offers import DiscoveriesPanel, OffersPanel
from services.games.teotihuacan.tui.pyramid import PyramidPanel, placement_of
from services.games.teotihuacan.tui.rondel import RondelPanel
from services.games.teotihuacan.tui.scoring import render_eclipse, render_final
from services.games.teotihuacan.tui.seats import SeatsPanel
from services.games.teotihuacan.tui.teotibot import TeotibotPanel
from services.games.teotihuacan.tui.tracks import TracksPanel
from services.tui.kit import Hotkey, TableKit
from services.tui.widgets.common import Panel
from services.tui.words import seat_label

PAY_UNLOCK: dict[str, Any] = {"type": "pay_unlock"}


class TeotihuacanKit(TableKit):
    """The rich Teotihuacan table (the generic one plus the game's own panels)."""

    scoring_label = "eclipse"
    score_unit = "VP"  # victory points, the rulebook's own word
    scoring_events = frozenset({"EclipseScored"})
    hotkeys = (Hotkey("u", PAY_UNLOCK, "pay 3 cocoa to unlock all workers", "unlock (3 cocoa)"),)
    free_actions = words.FREE_ACTIONS
    quiet_events = words.QUIET_EVENTS | {"GameCreated", "SeatJoined"}
    highlight = {
        "EclipseScored": "bold yellow",
        "EclipseTriggered": "bold red",
        "GameEnded": "bold",
    }
    milestones = frozenset({"EclipseScored", "GameEnded", "EclipseTriggered", "RoundEnded"})

    def board_panels(self) -> list[Panel]:
        """Rondel, tracks, pyramid, discoveries and (solo) Teotibot."""
        return [
            RondelPanel(id="rondel"),
            TracksPanel(id="tracks"),
            PyramidPanel(id="pyramid"),
            DiscoveriesPanel(id="discoveries"),
            TeotibotPanel(id="teotibot"),
        ]

    def info_panels(self) -> list[Panel]:
        """Seats and the offers (technologies, royal tiles, temple bonuses)."""
        return [SeatsPanel(id="seats"), OffersPanel(id="offers")]

    def decision_words(self, view: GameView, you: int | None, names: Sequence[str]) -> str:
        """``"You choose: a worker to move"`` from the view's ``waiting_for``."""
        if view.finished:
            return "The game is over."
        waiting = view.state.get("waiting_for") or {}
        seat = waiting.get("seat")
        decision = waiting.get("decision", "")
        if seat is None:
            return ""
        who = "You choose" if seat == you else f"{seat_label(names, seat)} chooses"
        return f"{who}: {decision}"

    def action_words(self, move: LegalMove, state: Mapping[str, Any], seat: int | None) -> str:
        """Enriched with boards, tiles and destinations from the view."""
        return words.action_words(move.action, state, seat)

    def group_of(self, action: Mapping[str, Any]) -> str:
        """Headings such as "Move a worker", "On the destination board"."""
        return words.group_of(action)

    def event_words(self, event: DomainEvent, names: Sequence[str]) -> str:
        """The log line (Teotibot's rolls and discovery tiles in words)."""
        return words.event_words(event, names)

    def scoring_body(self, payload: Mapping[str, Any], names: Sequence[str]) -> RenderableType:
        """An eclipse's scoring per seat."""
        return render_eclipse(payload, names)

    def final_body(
        self, view: GameView, names: Sequence[str], scorings: Sequence[Mapping[str, Any]]
    ) -> RenderableType:
        """Final scores (with cocoa and the tiebreak) plus every eclipse's breakdown."""
        parts: list[RenderableType] = [render_final(view.state, names)]
        parts += [render_eclipse(payload, names) for payload in scorings]
        return Group(*parts)

    def final_scores(self, view: GameView) -> list[int]:
        """VP per seat."""
        return [int(vp) for vp in view.scores] or [
            int(p.get("vp", 0)) for p in view.state.get("players", [])
        ]

    def on_highlight(self, app: App[None], action: Mapping[str, Any]) -> None:
        """Preview a highlighted pyramid tile choice on the pyramid."""
        app.query_one(PyramidPanel).show_preview(placement_of(action))
