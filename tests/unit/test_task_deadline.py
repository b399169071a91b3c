"""TaskDeadline tells its own cancellation from any other, as asyncio.timeout does."""

from __future__ import annotations

import asyncio

import pytest

from services.task_deadline import TaskDeadline


async def _guarded(work_s: float, deadline_s: float, caller_gives_up: bool = False) -> str:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    when = loop.time() + deadline_s
    timer = TaskDeadline(loop, when, task)
    if caller_gives_up:
        loop.call_at(when, task.cancel)  # due together with the deadline: both cancel
    try:
        await asyncio.sleep(work_s)
        return "done"
    except asyncio.CancelledError:
        if timer.caused_cancellation():
            return "deadline"
        raise
    finally:
        timer.cancel()


async def test_work_within_the_deadline_is_not_touched() -> None:
    assert await _guarded(0.0, 5.0) == "done"


async def test_the_deadline_cancels_and_says_so() -> None:
    assert await _guarded(5.0, 0.01) == "deadline"
    assert asyncio.current_task() is not None  # the caller's task is not left cancelling


async def test_an_outside_cancellation_propagates_even_after_the_deadline_passed() -> None:
    loop = asyncio.get_running_loop()
    started = loop.create_future()

    async def cancelled_from_outside() -> str:
        started.set_result(None)
        return await _guarded(5.0, 5.0)

    task = asyncio.ensure_future(cancelled_from_outside())
    await started
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    with pytest.raises(asyncio.CancelledError):
        await asyncio.ensure_future(_guarded(5.0, 0.01, caller_gives_up=True))


async def test_a_cancelled_deadline_never_fires() -> None:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    timer = TaskDeadline(loop, loop.time() + 0.01, task)
    timer.cancel()
    await asyncio.sleep(0.03)
    assert not timer.expired
