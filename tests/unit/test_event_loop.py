"""The services' event loop (services/event_loop.py): uvloop when installed, asyncio's
when TEOTI_EVENT_LOOP=asyncio, and either runs a coroutine to its result."""

from __future__ import annotations

import asyncio
import gc

import pytest
import uvloop

from services.event_loop import GC_THRESHOLDS, gc_thresholds, loop_factory, run_service


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


async def _thresholds() -> tuple[int, int, int]:
    return gc.get_threshold()


def test_services_collect_with_their_thresholds_and_restore_the_previous(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TEOTI_GC_THRESHOLDS", raising=False)
    before = gc.get_threshold()
    assert run_service(_thresholds()) == GC_THRESHOLDS
    assert gc.get_threshold() == before
    monkeypatch.setenv("TEOTI_GC_THRESHOLDS", "700,10,10")
    assert run_service(_thresholds()) == (700, 10, 10)
    assert gc.get_threshold() == before


@pytest.mark.parametrize("text", ["x", "1,2,3,4", "-1", "5,,6"])
def test_malformed_gc_thresholds_are_refused(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("TEOTI_GC_THRESHOLDS", text)
    with pytest.raises(ValueError, match="TEOTI_GC_THRESHOLDS"):
        gc_thresholds()
