"""The real stack (gateway + engine + bot worker on a real Redis) for the terminal client,
and helpers to drive it like a person: wait for the screen to settle, read what it shows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from services.app import Stack, StoreSettings, all_in_one
from services.cli import commands
from services.client import TeotiClient
from services.tui import launch
from services.tui.app import LiveApp
from services.tui.capture import screen_text

SCREEN = (170, 52)


@pytest.fixture
async def stack(redis_url: str, key_prefix: str) -> AsyncIterator[Stack]:
    """The whole service in this process (as ``teoti play`` embeds it)."""
    async with all_in_one(redis_url, store=StoreSettings(key_prefix)) as running:
        yield running


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[TeotiClient]:
    """A client of the stack's gateway."""
    async with TeotiClient(f"127.0.0.1:{stack.port}") as c:
        yield c


@pytest.fixture
def quiet_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """main() runs in this process: no process-wide logging set-up, files under tmp."""
    monkeypatch.setattr(commands, "configure_logging", lambda level: None)
    monkeypatch.setattr(launch, "log_to_file", lambda path, level="INFO": None)
    monkeypatch.chdir(tmp_path)


def my_turn(app: LiveApp) -> bool:
    """True when the person may choose (the game not over, the choices settled)."""
    return bool(
        app.frame
        and app.frame.legal
        and app.settled
        and app.actions.highlighted_choice is not None
        and not app.frame.view.finished
    )


async def until(pilot: Pilot[None], condition: Callable[[], bool], within_s: float = 60.0) -> None:
    """Let the app run until ``condition()``; fails with the screen if it never holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("timed out; the screen shows:\n" + screen_text(pilot.app))
        await pilot.pause(0.02)


def row_of(screen: str, marker: str) -> str:
    """The first screen line containing ``marker``."""
    for line in screen.splitlines():
        if marker in line:
            return line
    raise AssertionError(f"{marker!r} not on screen:\n{screen}")
