"""The services' event loop (services/event_loop.py): uvloop when installed, asyncio's
when TEOTI_EVENT_LOOP=asyncio, and either runs a coroutine to its result."""

from __future__ import annotations

import asyncio

import pytest
import uvloop

from services.event_loop import loop_factory, run_service


async def _loop_type() -> type[asyncio.AbstractEventLoop]:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop())


def test_services_run_on_uvloop_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEOTI_EVENT_LOOP", raising=False)
    assert loop_factory() is uvloop.new_event_loop
    assert issubclass(run_service(_loop_type()), uvloop.Loop)


def test_the_standard_loop_can_be_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEOTI_EVENT_LOOP", "asyncio")
    assert loop_factory() is None
    assert not issubclass(run_service(_loop_type()), uvloop.Loop)
