"""Entry points behind ``teoti play``, ``teoti watch`` and ``teoti replay --step``.

Each takes the gateway address (the CLI starts an embedded server when none is given),
builds the session and runs the full-screen app until the person quits.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import structlog

from services.client import SeatInfo, TeotiClient
from services.engine.errors import NotAuthorized
from services.engine.rulesets import RulesetRegistry
from services.engine.store.records import StoredEvent
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


async def seat_for_token(client: TeotiClient, game_id: str, token: str, seat: int | None) -> int:
    """The seat ``token`` holds in ``game_id``; claims an open seat with it if none.

    ``seat`` picks which open seat to claim (default: the first open one). Raises
    LookupError when the token holds no seat and no seat is open.
    """
    view = await client.get_game(game_id)
    # The server never shows token hashes: ask for each claimed human seat's own view.
    for index, info in enumerate(view.seats):
        if info.kind == "human" and not info.open:
            with contextlib.suppress(NotAuthorized):
                await client.get_game(game_id, index, token)
                return index
    open_seats = [i for i, info in enumerate(view.seats) if info.open]
    if seat is not None and seat not in open_seats:
        raise LookupError(f"seat {seat} of game {game_id} is not open")
    if not open_seats:
        raise LookupError(f"game {game_id}: this token holds no seat and no seat is open")
    chosen = seat if seat is not None else open_seats[0]
    await client.join_game(game_id, chosen, "Player", token)
    return chosen


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
) -> int:
    """Create a game against bots (solo if the server has it) or join one, and play it."""
    async with TeotiClient(target) as client:
        if join:
            index = await seat_for_token(client, join, token, seat)
            session = Session(client, join, index, token)
            note = f"Joined game {join} at seat {index}."
        else:
            game = await create_game(client, name, players, solo, options)
            session = Session(client, game.game_id, game.seat, game.token, game.solo)
            note = (
                "Solo game against Teotibot."
                if game.solo
                else "This server has no solo mode yet: playing against bot seats."
            )
        await LiveApp(session, note).run_async()
    return 0


async def watch(target: str, game_id: str | None, players: int = 2) -> int:
    """Watch ``game_id`` live (read-only); without one, start an all-bot game to watch."""
    async with TeotiClient(target) as client:
        if game_id is None:
            bots = [SeatInfo("bot", f"Bot {i + 1}") for i in range(players)]
            created = await client.create_game(bots)
            game_id = created.game_id
        else:
            await client.get_game(game_id)  # an unknown id fails here, before the screen opens
        await LiveApp(Session(client, game_id), f"Watching game {game_id}.").run_async()
    return 0


async def replay(target: str, game_id: str, registry: RulesetRegistry) -> int:
    """Step through ``game_id``'s log, folded locally with the ruleset."""
    async with TeotiClient(target) as client:
        events = await client.events(game_id)
    return await replay_log(game_id, events, registry)


async def replay_log(game_id: str, events: list[StoredEvent], registry: RulesetRegistry) -> int:
    """Step through ``events`` (a whole log, e.g. from ``teoti export``), folded locally."""
    await ReplayApp(Timeline(game_id, events, registry)).run_async()
    return 0
