"""The gateway passes what is left of its caller's deadline on to the engine call."""

from __future__ import annotations

import asyncio

from services.rpc import deadlines


class _Call:
    """The part of a grpc ServicerContext the deadline recorder reads."""

    def __init__(self, left: float | None) -> None:
        self._left = left

    def time_remaining(self) -> float | None:
        return self._left


async def _recorded(left: float | None, default: float) -> float:
    deadlines.record(_Call(left))
    return deadlines.timeout(default)


def test_a_sooner_caller_deadline_shortens_the_engine_timeout() -> None:
    assert 1.5 < asyncio.run(_recorded(2.0, 10.0)) <= 2.0


def test_without_a_caller_deadline_the_default_holds() -> None:
    assert asyncio.run(_recorded(None, 10.0)) == 10.0
    assert asyncio.run(_recorded(30.0, 10.0)) == 10.0


def test_an_expired_deadline_fails_the_engine_call_at_once() -> None:
    assert asyncio.run(_recorded(-1.0, 10.0)) == deadlines.MIN_TIMEOUT_S


def test_each_request_keeps_its_own_deadline() -> None:
    async def both() -> list[float]:
        return list(await asyncio.gather(_recorded(1.0, 10.0), _recorded(None, 10.0)))

    short, default = asyncio.run(both())
    assert short <= 1.0 and default == 10.0
