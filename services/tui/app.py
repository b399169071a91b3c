"""The terminal table: one screen for playing, watching and replaying any game.

``TableApp`` lays out the board parts and shows a :class:`~services.tui.backend.Frame`;
what it shows of the game comes from the game's :class:`~services.tui.kit.TableKit`
(the generic table, or a ruleset's own panels and words).
``LiveApp`` follows a game through WatchGame (playing a seat, or read-only);
``ReplayApp`` steps through a folded log (:class:`~services.tui.timeline.Timeline`).
"""

from __future__ import annotations

import asyncio
import contextlib
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
from services.engine.domain.errors import NotAuthorized, RuleViolation, VersionConflict
from services.engine.domain.records import StoredEvent
from services.engine.domain.rulesets import RulesetRegistry
from services.tui.backend import Frame, Session
from services.tui.kit import Hotkey, TableKit, kit_for
from services.tui.timeline import Timeline
from services.tui.widgets.actions import ActionList, Choice, group_choices
from services.tui.widgets.common import Panel
from services.tui.widgets.confirm import ConfirmScreen
from services.tui.widgets.log import EventLog
from services.tui.widgets.scoring import ResultScreen
from services.tui.words import refusal_words, seat_colour, seat_label

log = structlog.get_logger("teoti.tui")

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
    """The table: board parts, seats (and a game's other panels), the choices and the log.

    ``kit`` is the game's (see :func:`~services.tui.kit.kit_for`); a :class:`LiveApp`
    made without one installs the kit of its first frame's ruleset (:meth:`install`).

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
        Binding("e", "show_scoring", "scoring"),
        Binding("b", "view('board')", "board"),
        Binding("s", "view('info')", "seats"),
        Binding("l", "view('log')", "log"),
    ]
    TITLE = "teoti"
    SENDS_ACTIONS = False
    """True for a table that can send the seat's actions (the kit's hot keys show)."""

    def __init__(self, kit: TableKit | None = None) -> None:
        super().__init__()
        self.frame: Frame | None = None
        self.message: Text = Text()
        self.scorings: list[Mapping[str, Any]] = []
        """Payloads of the scoring events seen so far (the kit's ``scoring_events``)."""
        self.you: int | None = None
        self.mode = "watching"
        self.kit: TableKit | None = None
        self._composed_kit = kit
        if kit is not None:
            self._use_kit(kit)

    def compose(self) -> ComposeResult:
        """Layout: the kit's panels (or none yet), the choices and the log."""
        kit = self._composed_kit
        yield Static(id="status")
        yield Static(id="too-small")
        with Horizontal(id="body"):
            with VerticalScroll(id="board"):
                yield from kit.board_panels() if kit else ()
            with Vertical(id="side"):
                with VerticalScroll(id="info"):
                    yield from kit.info_panels() if kit else ()
                yield ActionList(id="actions")
                event_log = EventLog(id="log")
                event_log.kit = kit
                yield event_log
        yield Footer()

    def _use_kit(self, kit: TableKit) -> None:
        """Take ``kit``'s title, footer labels and hot keys."""
        self.kit = kit
        self.title = kit.title
        # Textual's bindings are per class; a kit relabels (or hides, see check_action)
        # the scoring key and adds its hot keys, keeping the footer's order.
        bindings = self._bindings.key_to_bindings
        if "e" in bindings:
            bindings["e"] = [Binding("e", "show_scoring", kit.scoring_label or "scoring")]
        for hotkey in kit.hotkeys:
            bindings[hotkey.key] = [Binding(hotkey.key, f"hotkey('{hotkey.key}')", hotkey.label)]
        with contextlib.suppress(Exception):  # before mount there is nothing to refresh
            self.refresh_bindings()

    async def install(self, kit: TableKit) -> None:
        """Use ``kit`` on a running table: mount its panels and take its words."""
        if self.kit is not None:
            return
        self._use_kit(kit)
        self.log_panel.kit = kit
        await self.query_one("#board").mount_all(kit.board_panels())
        await self.query_one("#info").mount_all(kit.info_panels())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the scoring key for a game without scorings, and the kit's hot keys on a
        table that never sends actions (a replay)."""
        if action == "show_scoring":
            return self.kit is not None and bool(self.kit.scoring_events)
        if action == "hotkey":
            return self.SENDS_ACTIONS
        return True

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

    @property
    def closed(self) -> bool:
        """True once the table is closing or closed. Textual removes the widgets before
        it cancels the workers, so a worker resuming from an await (a frame, an event, a
        reply) may find no ``#status`` to update: it must then drop what it brings."""
        return not self.is_running

    def say(self, text: str, style: str = "") -> None:
        """Show a one-line message under the status (refusals, notices); nothing once
        the table is :attr:`closed`."""
        if self.closed:
            return
        self.message = Text(text, style=style)
        self._render_status()

    def show(self, frame: Frame) -> None:
        """Show ``frame`` on every panel of the kit (nothing once :attr:`closed`)."""
        if self.closed:
            return
        self.frame = frame
        state = frame.view.state
        names = frame.names
        for panel in self.query(Panel):
            panel.you = self.you
            panel.to_act = tuple(frame.view.seats_to_act)
            panel.show(state, names)
        self._render_status()
        self._render_choices()

    def _decision_words(self, view: GameView) -> str:
        return self.kit.decision_words(view, self.you, self.names) if self.kit else ""

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
        """Let the kit preview the highlighted choice (e.g. a pyramid tile)."""
        action = message.choice.action if message.choice is not None else {}
        if self.kit is not None:
            self.kit.on_highlight(self, action)

    def action_show_scoring(self) -> None:
        """Show the last scoring again."""
        kit = self.kit
        if kit is None or not kit.scoring_events:
            return
        if self.scorings:
            self.push_screen(
                ResultScreen(kit.scoring_body(self.scorings[-1], self.names), "scoring")
            )
        else:
            self.say(f"No {kit.scoring_label or 'scoring'} has been scored yet.")

    def final_body(self) -> RenderableType:
        """The kit's end-of-game pop-up (final scores, and e.g. every scoring's breakdown)."""
        assert self.frame is not None and self.kit is not None
        return self.kit.final_body(self.frame.view, self.names, self.scorings)

    def _hotkey(self, key: str) -> Hotkey | None:
        return next((h for h in self.kit.hotkeys if h.key == key), None) if self.kit else None

    def action_hotkey(self, key: str) -> None:
        """A hot key on a table with no seat to act for."""
        if self._hotkey(key) is not None:
            self.say("No seat here to act for.", "yellow")


RESIGNED_WORDS = {
    "game_ended": "the game is over",
    "forfeited": "you are out and a bot makes your moves",
    "taken_over": "a bot plays your seat to the end",
}
"""What the table says after a resignation, by its outcome."""


class LiveApp(TableApp):
    """A running game, live from WatchGame: playing ``session.seat`` or read-only.

    ``R`` resigns the seat after a confirmation (not in the footer: a key that ends a
    game should not sit among the everyday ones; ``teoti play --help`` names it)."""

    SENDS_ACTIONS = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "resign", "resign", show=False),
    ]

    def __init__(
        self,
        session: Session,
        note: str = "",
        kit: TableKit | None = None,
        registry: RulesetRegistry | None = None,
    ) -> None:
        """``kit`` defaults to the kit of the game's ruleset, loaded from ``registry``
        (default: the shipped rulesets) when the first frame arrives."""
        super().__init__(kit)
        self.registry = registry
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
        frame = await self.session.frame()
        if self.kit is None:
            await self.install(kit_for(frame.view.ruleset, self.registry))
        self.show(frame)
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
        if self.closed:
            return
        self.log_panel.add(event, self.names)
        kit = self.kit
        if kit is not None and event.type in kit.scoring_events:
            self.scorings.append(event.payload)
            if not self.session.read_only:
                self.push_screen(
                    ResultScreen(kit.scoring_body(event.payload, self.names), "scoring")
                )
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
            if finished and self.stream_ended and not self.final_shown and not self.closed:
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
        if not frame.legal or self.kit is None:
            waiting = "game over" if frame.view.finished else "waiting for the other seats"
            self.actions.set_choices(f"Your choices ({waiting})", [])
            return
        grouped = group_choices(frame.legal, frame.view.state, self.you, self.kit)
        self.actions.set_choices("Your choices (arrows, Enter)", grouped)
        self.actions.focus()

    async def on_action_list_chosen(self, message: ActionList.Chosen) -> None:
        """Send the chosen action."""
        self.run_worker(self._submit(message.choice), group="submit", exclusive=True)

    def action_hotkey(self, key: str) -> None:
        """Send the kit's hot-key action (e.g. a free action); the server says if not."""
        hotkey = self._hotkey(key)
        if hotkey is not None:
            choice = Choice(dict(hotkey.action), hotkey.words, "free")
            self.run_worker(self._submit(choice), group="submit", exclusive=True)

    def action_resign(self) -> None:
        """Ask, then resign the seat (docs/events.md, "Leaving a game")."""
        if self.session.read_only or self.frame is None:
            self.say("Watching: you have no seat to resign.", "yellow")
            return
        if self.frame.view.finished:
            self.say("The game is over: there is nothing to resign.", "yellow")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._resign(), group="submit", exclusive=True)
            else:
                self.say("You play on.", "italic")

        question = "Resign this game? In a 2-player or solo game it ends and you lose;"
        question += " at a bigger table you are out (ranked last) and a bot plays your moves."
        self.push_screen(ConfirmScreen(question), answered)

    async def _resign(self) -> None:
        try:
            outcome = await self.session.resign()
        except RuleViolation as refused:
            self.say(refusal_words(refused.rule, refused.message, "resign"), "bold red")
        except NotAuthorized as error:
            log.warning("resign_not_authorized", error=str(error))
            self.say("Not allowed: the server does not accept this seat's token.", "bold red")
        else:
            words = RESIGNED_WORDS.get(outcome, outcome)
            self.say(f"You resigned: {words}.", "bold")
        self._dirty.set()

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

    def __init__(self, timeline: Timeline, kit: TableKit | None = None) -> None:
        """``kit`` defaults to the kit of the log's ruleset (from the timeline's registry)."""
        super().__init__(kit or kit_for(timeline.ruleset_name, timeline.registry))
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
        log = self.log_panel
        log.reset()
        self.frame = Frame(step.view)
        shown = self.timeline.events[: step.version]
        scoring = self.kit.scoring_events if self.kit else frozenset()
        self.scorings = [e.payload for e in shown if e.type in scoring]
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
        """To the next/previous milestone (the kit's, e.g. an eclipse, or the game end)."""
        is_milestone = self.kit.is_milestone if self.kit else None
        self.goto(self.timeline.next_milestone(self.version, direction > 0, is_milestone))

    def action_goto_start(self) -> None:
        """To the set-up game."""
        self.goto(self.timeline.first_version)

    def action_goto_end(self) -> None:
        """To the last event."""
        self.goto(self.timeline.last_version)
