"""Entry points behind ``teoti play``, ``teoti watch`` and ``teoti replay --step``.

Each takes the gateway address (the CLI starts an embedded server when none is given),
builds the session and runs the full-screen app until the person quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from services.client import SeatInfo, TeotiClient, TimeControl
from services.engine.domain.errors import NotAuthorized
from services.engine.domain.records import StoredEvent
from services.engine.domain.ruleset import RulesetInfo
from services.engine.domain.rulesets import RulesetRegistry
from services.proc_guard import ENDING_SIGNALS, on_ending_signals
from services.tui.app import LiveApp, ReplayApp
from services.tui.backend import Session, create_game
from services.tui.timeline import Timeline

DEFAULT_LOG_FILE = Path(".teoti/tui.log")


def log_to_file(path: Path = DEFAULT_LOG_FILE, level: str = "INFO") -> None:
    """Send structlog output to ``path`` so log lines never draw over the screen."""
    path.parent.mkdir(parents=True, exist_ok=True)
    numeric = logging.getLevelName(level.upper())
    handle = path.open("a", encoding="utf-8")  # kept open for the process
    logging.basicConfig(stream=handle, level=numeric, format="%(message)s", force=True)
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=handle),
        cache_logger_on_first_use=False,
    )


class SeatUnavailable(LookupError):
    """The seat asked for can't be played: taken by another token, or no seat is open."""


async def seat_for_token(
    client: TeotiClient, game_id: str, token: str, seat: int | None, name: str = "Player"
) -> tuple[int, str]:
    """The seat ``token`` holds in ``game_id`` and its token; claims an open seat if none.

    ``seat`` picks which open seat to claim (default: the first open one). Without a
    token a fresh one is made (and returned), so the caller can show and keep it.
    Raises SeatUnavailable when ``seat`` is taken and the token is not its own, or the
    token holds no seat and none is open; GameNotFound for an unknown game.
    """
    view = await client.get_game(game_id)
    if token:
        # The server never shows token hashes: ask for each claimed human seat's own view.
        for index, info in enumerate(view.seats):
            if info.kind == "human" and not info.open and seat in (None, index):
                with contextlib.suppress(NotAuthorized):
                    await client.get_game(game_id, index, token)
                    return index, token
    open_seats = [i for i, info in enumerate(view.seats) if info.open]
    if seat is not None and not 0 <= seat < len(view.seats):
        raise SeatUnavailable(f"game {game_id} has seats 0-{len(view.seats) - 1}, not {seat}")
    if seat is not None and seat not in open_seats:
        held_by = "this token is not its token" if token else "give its --token to play it"
        free = f"; open seats: {open_seats}" if open_seats else ""
        raise SeatUnavailable(f"seat {seat} of game {game_id} is taken ({held_by}){free}")
    if not open_seats:
        raise SeatUnavailable(f"game {game_id}: no seat is open and this token holds none")
    chosen = seat if seat is not None else open_seats[0]
    token = await client.join_game(game_id, chosen, name, token or secrets.token_hex(16))
    return chosen, token


@dataclass(frozen=True, slots=True)
class PlayedSeat:
    """What ``play`` leaves behind: the seat played and the game's standing at the end.

    Attributes:
        scores: (seat name, score) per seat, from the last frame shown (the game kit's
            ``final_scores``), counted in ``score_unit`` (the kit's, e.g. "VP").
    """

    game_id: str
    seat: int
    token: str
    name: str
    finished: bool
    scores: tuple[tuple[str, int], ...]
    score_unit: str = "points"


def _scores(app: LiveApp) -> tuple[bool, tuple[tuple[str, int], ...]]:
    frame = app.frame
    if frame is None:
        return False, ()
    finished = frame.view.finished
    points = app.kit.final_scores(frame.view) if app.kit else list(frame.view.scores)
    return finished, tuple(zip(frame.names, (int(vp) for vp in points), strict=False))


async def run_until_quit(app: LiveApp | ReplayApp) -> None:
    """Run ``app``; SIGINT, SIGTERM and SIGHUP (a closed terminal) end it like ``q``, so
    the caller's clean-up (the embedded server) always runs."""
    on_ending_signals(asyncio.get_running_loop().add_signal_handler, app.exit)
    try:
        await app.run_async()
    finally:
        loop = asyncio.get_running_loop()
        for sig in ENDING_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)


async def play(
    target: str,
    *,
    name: str = "Player",
    players: int = 2,
    solo: bool = True,
    join: str | None = None,
    token: str = "",
    seat: int | None = None,
    options: Mapping[str, Any] | None = None,
    on_seat: Callable[[str, int, str], None] | None = None,
    ruleset: str = "",
    info: RulesetInfo | None = None,
    registry: RulesetRegistry | None = None,
    time_control: TimeControl | None = None,
) -> PlayedSeat:
    """Create a game of ``ruleset`` against bots (its solo mode, ``info.solo``, if it has
    one and ``solo``) or join one, and play it on the table of the game's kit (its
    ruleset from ``registry``, default the shipped ones).

    ``on_seat(game_id, seat, token)`` is called as soon as the seat is held, before the
    screen opens, so the seat is kept even if the session ends badly. ``time_control``:
    the clock of a new game's person (None: no clock).
    """
    async with TeotiClient(target) as client:
        if join:
            token_given = bool(token)
            index, token = await seat_for_token(client, join, token, seat, name)
            session = Session(client, join, index, token)
            made = "a new seat token" if not token_given else "your seat token"
            note = f"Joined game {join} at seat {index} with {made} (printed when you quit)."
        else:
            game = await create_game(
                client, name, players, solo, options, ruleset, info, time_control
            )
            session = Session(client, game.game_id, game.seat, game.token, game.solo)
            asked_solo = solo and info is not None and info.solo is not None
            note = _new_game_note(game.opponent if game.solo else "", asked_solo, players)
        if on_seat is not None:
            on_seat(session.game_id, int(session.seat or 0), session.token)
        app = LiveApp(session, note, registry=registry)
        await run_until_quit(app)
        finished, scores = _scores(app)
    return PlayedSeat(
        session.game_id,
        int(session.seat or 0),
        session.token,
        name,
        finished,
        scores,
        app.kit.score_unit if app.kit else "points",
    )


def _new_game_note(opponent: str, asked_solo: bool, players: int) -> str:
    if opponent:
        return f"Solo game against {opponent}."
    if asked_solo:
        return "This server has no solo mode: playing against a bot seat."
    bots = players - 1
    return f"Game against {bots} bot seat{'s' if bots != 1 else ''}."


async def watch(
    target: str,
    game_id: str | None,
    players: int = 2,
    ruleset: str = "",
    registry: RulesetRegistry | None = None,
) -> int:
    """Watch ``game_id`` live (read-only); without one, start an all-bot game of
    ``ruleset`` ("" = the server's default) with ``players`` seats to watch."""
    async with TeotiClient(target) as client:
        if game_id is None:
            bots = [SeatInfo("bot", f"Bot {i + 1}") for i in range(players)]
            created = await client.create_game(bots, ruleset=ruleset)
            game_id = created.game_id
        else:
            await client.get_game(game_id)  # an unknown id fails here, before the screen opens
        app = LiveApp(Session(client, game_id), f"Watching game {game_id}.", registry=registry)
        await run_until_quit(app)
    return 0


async def replay(target: str, game_id: str, registry: RulesetRegistry) -> int:
    """Step through ``game_id``'s log, folded locally with the ruleset."""
    async with TeotiClient(target) as client:
        events = await client.events(game_id)
    return await replay_log(game_id, events, registry)


async def replay_log(game_id: str, events: list[StoredEvent], registry: RulesetRegistry) -> int:
    """Step through ``events`` (a whole log, e.g. from ``teoti export``), folded locally."""
    await run_until_quit(ReplayApp(Timeline(game_id, events, registry)))
    return 0
