"""The terminal table: one screen for playing, watching and replaying a game.

``TableApp`` lays out the board parts and shows a :class:`~services.tui.backend.Frame`.
``LiveApp`` follows a game through WatchGame (playing a seat, or read-only);
``ReplayApp`` steps through a folded log (:class:`~services.tui.timeline.Timeline`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

import structlog
from rich.console import Group, RenderableType
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.widgets import Footer, Static

from services.client import GameView
from services.engine.errors import NotAuthorized, RuleViolation, VersionConflict
from services.engine.store.records import StoredEvent
from services.tui.backend import Frame, Session
from services.tui.timeline import Timeline
from services.tui.widgets.actions import ActionList, Choice, group_choices
from services.tui.widgets.log import EventLog
from services.tui.widgets.offers import DiscoveriesPanel, OffersPanel
from services.tui.widgets.pyramid import PyramidPanel, placement_of
from services.tui.widgets.rondel import RondelPanel
from services.tui.widgets.scoring import ResultScreen, render_eclipse, render_final
from services.tui.widgets.seats import SeatsPanel
from services.tui.widgets.teotibot import TeotibotPanel
from services.tui.widgets.tracks import TracksPanel
from services.tui.words import refusal_words, seat_colour, seat_label

log = structlog.get_logger("teoti.tui")

PAY_UNLOCK: dict[str, Any] = {"type": "pay_unlock"}
MIN_SIZE = (80, 24)
"""Smallest window (columns, rows) the table is laid out for."""
WIDE = 150
"""From this many columns the board and the rest stand side by side."""
VIEWS = ("board", "info", "log")
"""What the stacked layout can show above the choices."""


def too_small_words(width: int, height: int) -> str:
    """The message shown instead of the table in a window smaller than MIN_SIZE."""
    return (
        f"This window is {width}x{height}; the table needs at least "
        f"{MIN_SIZE[0]}x{MIN_SIZE[1]} (columns x rows). Enlarge the window (or use a "
        "smaller font); q quits."
    )


RESUME_DELAY_S = 1.0
LOG_TAIL = 200
"""Events a replay step writes into the log (the most recent ones)."""


class TableApp(App[None]):
    """The table: board parts, seats and offers, the choices and the log.

    Wide windows (at least :data:`WIDE` columns) show the board on the left and the
    rest on the right. Smaller ones stack one view (board, seats and offers, or the log:
    keys ``b``, ``s``, ``l``) above the choices, which stay on screen at any size from
    :data:`MIN_SIZE` up. Below that, a message asks for a larger window.
    """

    CSS = """
    #status { height: auto; max-height: 6; padding: 0 1; background: $boost; }
    #too-small { display: none; padding: 1 2; }
    #body { layout: horizontal; height: 1fr; }
    #board { width: 86; }
    #side { width: 1fr; }
    #info { height: auto; max-height: 60%; }
    ActionList { height: 3fr; min-height: 6; }
    EventLog { height: 2fr; }

    #body.narrow { layout: vertical; }
    #body.narrow #board { width: 100%; height: 1fr; }
    #body.narrow #side { width: 100%; height: 45%; }
    #body.narrow #info { display: none; max-height: 100%; height: 1fr; }
    #body.narrow EventLog { display: none; height: 1fr; }
    #body.narrow ActionList { height: 1fr; min-height: 3; }
    #body.narrow.view-info #board, #body.narrow.view-log #board { display: none; }
    #body.narrow.view-info #side, #body.narrow.view-log #side { height: 1fr; }
    #body.narrow.view-info #info { display: block; }
    #body.narrow.view-log EventLog { display: block; }
    #body.narrow.view-info ActionList, #body.narrow.view-log ActionList { height: 45%; }

    .too-small #body { display: none; }
    .too-small #too-small { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit"),
        Binding("e", "show_eclipse", "eclipse"),
        Binding("b", "view('board')", "board"),
        Binding("s", "view('info')", "seats"),
        Binding("l", "view('log')", "log"),
    ]
    TITLE = "Teotihuacan: City of Gods"

    def __init__(self) -> None:
        super().__init__()
        self.frame: Frame | None = None
        self.message: Text = Text()
        self.eclipses: list[Mapping[str, Any]] = []
        self.you: int | None = None
        self.mode = "watching"

    def compose(self) -> ComposeResult:
        """Layout."""
        yield Static(id="status")
        yield Static(id="too-small")
        with Horizontal(id="body"):
            with VerticalScroll(id="board"):
                yield RondelPanel(id="rondel")
                yield TracksPanel(id="tracks")
                yield PyramidPanel(id="pyramid")
                yield DiscoveriesPanel(id="discoveries")
                yield TeotibotPanel(id="teotibot")
            with Vertical(id="side"):
                with VerticalScroll(id="info"):
                    yield SeatsPanel(id="seats")
                    yield OffersPanel(id="offers")
                yield ActionList(id="actions")
                yield EventLog(id="log")
        yield Footer()

    @on(events.Mount)
    def _fit_on_mount(self) -> None:
        """Fit the layout to the window it starts in."""
        self.fit(self.size)

    def on_resize(self, event: events.Resize) -> None:
        """Fit the layout to the new window size."""
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Choose the wide, stacked or too-small layout for a ``size`` window."""
        small = size.width < MIN_SIZE[0] or size.height < MIN_SIZE[1]
        self.screen_stack[0].set_class(small, "too-small")
        self.query_one("#too-small", Static).update(
            Text(too_small_words(size.width, size.height), style="bold")
        )
        body = self.query_one("#body")
        body.set_class(size.width < WIDE, "narrow")
        if not body.has_class("view-info", "view-log"):
            body.add_class("view-board")

    def action_view(self, view: str) -> None:
        """Stacked layout: show ``view`` (board, info or log) above the choices."""
        body = self.query_one("#body")
        for name in VIEWS:
            body.set_class(name == view, f"view-{name}")

    @property
    def names(self) -> tuple[str, ...]:
        """Seat names of the shown game."""
        return self.frame.names if self.frame else ()

    @property
    def log_panel(self) -> EventLog:
        """The event log."""
        return self.query_one(EventLog)

    @property
    def actions(self) -> ActionList:
        """The list of choices."""
        return self.query_one(ActionList)

    def say(self, text: str, style: str = "") -> None:
        """Show a one-line message under the status (refusals, notices)."""
        self.message = Text(text, style=style)
        self._render_status()

    def show(self, frame: Frame) -> None:
        """Show ``frame`` on every board part."""
        self.frame = frame
        state = frame.view.state
        names = frame.names
        self.query_one(SeatsPanel).you = self.you
        for panel in (
            RondelPanel,
            TracksPanel,
            PyramidPanel,
            DiscoveriesPanel,
            TeotibotPanel,
            SeatsPanel,
            OffersPanel,
        ):
            self.query_one(panel).show(state, names)
        self._render_status()
        self._render_choices()

    def _decision_words(self, view: GameView) -> str:
        if view.finished:
            return "The game is over."
        waiting = view.state.get("waiting_for") or {}
        seat = waiting.get("seat")
        decision = waiting.get("decision", "")
        if seat is None:
            return ""
        who = "You choose" if seat == self.you else f"{seat_label(self.names, seat)} chooses"
        return f"{who}: {decision}"

    def _render_status(self) -> None:
        if self.frame is None:
            self.query_one("#status", Static).update(Text("connecting..."))
            return
        view = self.frame.view
        head = Text()
        head.append(f"game {view.game_id}  v{view.version}  ", style="bold")
        head.append(self.mode)
        if self.you is not None:
            head.append(" as ")
            head.append(
                seat_label(self.names, self.you),
                style=f"bold {seat_colour(self.you, len(self.names))}",
            )
            head.append(f" (seat {self.you})")
        lines: list[RenderableType] = [head, Text(self._decision_words(view), style="bold")]
        lines.append(self.message)
        self.query_one("#status", Static).update(Group(*lines))

    def _render_choices(self) -> None:
        """Subclasses fill the action list."""

    def on_action_list_highlighted(self, message: ActionList.Highlighted) -> None:
        """Preview a highlighted pyramid tile choice on the pyramid."""
        action = message.choice.action if message.choice is not None else {}
        self.query_one(PyramidPanel).show_preview(placement_of(action))

    def action_show_eclipse(self) -> None:
        """Show the last eclipse's scoring again."""
        if self.eclipses:
            self.push_screen(ResultScreen(render_eclipse(self.eclipses[-1], self.names), "eclipse"))
        else:
            self.say("No eclipse has been scored yet.")

    def final_body(self) -> RenderableType:
        """Final scores plus every eclipse's breakdown."""
        assert self.frame is not None
        parts: list[RenderableType] = [render_final(self.frame.view.state, self.names)]
        parts += [render_eclipse(payload, self.names) for payload in self.eclipses]
        return Group(*parts)


class LiveApp(TableApp):
    """A running game, live from WatchGame: playing ``session.seat`` or read-only."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "pay_unlock", "unlock (3 cocoa)"),
    ]

    def __init__(self, session: Session, note: str = "") -> None:
        super().__init__()
        self.session = session
        self.you = session.seat
        self.mode = "watching (read-only)" if session.read_only else "playing"
        self.note = note
        self.stream_ended = False
        self.busy = False
        self.final_shown = False
        self._dirty = asyncio.Event()

    async def on_mount(self) -> None:
        """First frame, then follow the event stream and refresh on every burst."""
        self.show(await self.session.frame())
        if self.note:
            self.say(self.note, "italic")
        self.run_worker(self._follow(), group="follow")
        self.run_worker(self._refresh_loop(), group="refresh")

    async def _follow(self) -> None:
        """Follow WatchGame to the game's end, resuming after the last event on a drop."""
        last = 0
        while True:
            try:
                async for event in self.session.events(last):
                    last = event.version
                    self._on_event(event)
            except Exception as error:  # transport or server trouble: say so, resume
                log.warning("event_stream_interrupted", error=repr(error))
                self.say("Lost the connection to the game's events; reconnecting...", "yellow")
                await asyncio.sleep(RESUME_DELAY_S)
                continue
            break
        self.stream_ended = True
        self._dirty.set()

    def _on_event(self, event: StoredEvent) -> None:
        self.log_panel.add(event, self.names)
        if event.type == "EclipseScored":
            self.eclipses.append(event.payload)
            if not self.session.read_only:
                self.push_screen(ResultScreen(render_eclipse(event.payload, self.names), "eclipse"))
        self._dirty.set()

    async def _refresh_loop(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                self.show(await self.session.frame())
            except Exception as error:  # keep the last frame; the next event retries
                log.warning("refresh_failed", error=repr(error))
                self.say("Could not reach the server to refresh the table; retrying...", "yellow")
                await asyncio.sleep(RESUME_DELAY_S)
                self._dirty.set()
                continue
            # The frame (GetGame) can show the end before the stream has delivered the
            # last eclipses: the final scores wait for the stream's end, so they list all.
            finished = self.frame is not None and self.frame.view.finished
            if finished and self.stream_ended and not self.final_shown:
                self.final_shown = True
                self.push_screen(ResultScreen(self.final_body(), "final"))

    @property
    def settled(self) -> bool:
        """Nothing in flight: the screen shows the latest frame and nothing is sending."""
        return not self.busy and not self._dirty.is_set()

    def _render_choices(self) -> None:
        frame = self.frame
        if frame is None:
            return
        if self.session.read_only:
            self.actions.can_focus = False
            self.actions.set_choices("Watching (read-only)", [])
            return
        if self.busy:
            return
        if not frame.legal:
            waiting = "game over" if frame.view.finished else "waiting for the other seats"
            self.actions.set_choices(f"Your choices ({waiting})", [])
            return
        grouped = group_choices(frame.legal, frame.view.state, self.you)
        self.actions.set_choices("Your choices (arrows, Enter)", grouped)
        self.actions.focus()

    async def on_action_list_chosen(self, message: ActionList.Chosen) -> None:
        """Send the chosen action."""
        self.run_worker(self._submit(message.choice), group="submit", exclusive=True)

    def action_pay_unlock(self) -> None:
        """Free action: pay 3 cocoa to unlock all workers (the server says if not)."""
        choice = Choice(PAY_UNLOCK, "pay 3 cocoa to unlock all workers", "free")
        self.run_worker(self._submit(choice), group="submit", exclusive=True)

    async def _submit(self, choice: Choice) -> None:
        if self.session.read_only or self.frame is None:
            self.say("Watching: you have no seat here.", "yellow")
            return
        self.busy = True
        self.actions.set_choices("Sending...", [])
        try:
            await self.session.submit(choice.action, self.frame.version)
        except RuleViolation as refused:
            self.say(refusal_words(refused.rule, refused.message, choice.words), "bold red")
        except VersionConflict:
            self.say("The game moved on before your choice arrived; look again.", "yellow")
        except NotAuthorized as error:
            log.warning("submit_not_authorized", error=str(error))
            self.say("Not allowed: the server does not accept this seat's token.", "bold red")
        else:
            self.say(f"You: {choice.words}", "green")
        finally:
            self.busy = False
        self.show(await self.session.frame())


class ReplayApp(TableApp):
    """A game's log folded locally, stepped with the arrow keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "next event", priority=True),
        Binding("left,p", "step(-1)", "previous", priority=True),
        Binding("]", "milestone(1)", "next milestone", priority=True),
        Binding("[", "milestone(-1)", "previous milestone", priority=True),
        Binding("home", "goto_start", "start", priority=True),
        Binding("end", "goto_end", "end", priority=True),
    ]

    def __init__(self, timeline: Timeline) -> None:
        super().__init__()
        self.timeline = timeline
        self.version = timeline.first_version
        self.mode = "replay (left/right: step, [ ]: milestones)"

    def on_mount(self) -> None:
        """Show the set-up game; the (empty) choice list never takes the keys."""
        self.actions.can_focus = False
        self.goto(self.version)

    def goto(self, version: int) -> None:
        """Show the game right after ``version``; the log shows the events up to it."""
        step = self.timeline.step(version)
        self.version = step.version
        self.eclipses = []
        log = self.log_panel
        log.reset()
        self.frame = Frame(step.view)
        shown = self.timeline.events[: step.version]
        self.eclipses = [e.payload for e in shown if e.type == "EclipseScored"]
        for event in shown[-LOG_TAIL:]:
            log.add(event, self.names)
        self.show(Frame(step.view))
        self.say(f"version {step.version} of {self.timeline.last_version}", "italic")
        if step.view.finished and step.version == self.timeline.last_version:
            self.push_screen(ResultScreen(self.final_body(), "final"))

    def _render_choices(self) -> None:
        self.actions.set_choices("Replay (read-only)", [])

    def action_step(self, delta: int) -> None:
        """One event forwards or backwards."""
        self.goto(self.version + delta)

    def action_milestone(self, direction: int) -> None:
        """To the next/previous round end, eclipse or game end."""
        self.goto(self.timeline.next_milestone(self.version, direction > 0))

    def action_goto_start(self) -> None:
        """To the set-up game."""
        self.goto(self.timeline.first_version)

    def action_goto_end(self) -> None:
        """To the last event."""
        self.goto(self.timeline.last_version)
