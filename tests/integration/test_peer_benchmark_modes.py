"""The peer benchmark's teoti-only modes run end to end with no error (issue 16): many
concurrent games through one gateway on shared client connections, and ``teoti serve``;
and the engine-only benchmark's window. Small and short here; the real figures come from
running the benchmarks themselves."""

from __future__ import annotations

import re
import socket

import pytest

from benchmarks.peer_benchmark import main


@pytest.mark.slow
def test_many_games_on_shared_connections_play_without_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["--many-games", "12", "--connections", "3", "--seconds", "1", "--reps", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "redis at redis://127.0.0.1:" in out  # split: Redis is a network service
    assert "errors: 0 in all" in out
    assert _moves(out, 12) > 0


@pytest.mark.slow
def test_the_serve_deployment_is_measured_like_the_split_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            *("--teoti-only", "--deployment", "serve", "--matches", "2"),
            *("--seconds", "1", "--reps", "1", "--stream-and-unary"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "redis at unix://" in out  # serve's own Redis is on a Unix socket, as a newcomer's
    assert "server CPU ms/move" in out
    assert _moves(out, 2) > 0  # on the Play stream
    assert _moves(out, 2, "teoti-unary") > 0  # a SubmitAction call per move


def _moves(out: str, games: int, system: str = "teoti") -> int:
    """The moves counted in the report's line for ``system``'s window of ``games`` games."""
    found = re.search(rf" {system} x{games}\s+(\d+) moves", out)
    assert found, out
    return int(found.group(1))


async def test_the_engine_move_benchmark_counts_moves_and_their_cpu(redis_url: str) -> None:
    from benchmarks.engine_move_benchmark import window

    cpu_us, moves_per_s = await window(redis_url, 3, 0.3)
    assert 0 < cpu_us < 100_000
    assert moves_per_s > 0


async def test_the_redis_transport_benchmark_measures_both_transports() -> None:
    from benchmarks.redis_transport_benchmark import measure

    tcp, unix = await measure(False, 200), await measure(True, 200)
    assert (tcp.transport, unix.transport) == ("tcp", "unix")
    assert tcp.wall > 0 and unix.wall > 0 and tcp.cpu >= 0 and unix.cpu >= 0


async def test_the_split_move_benchmark_counts_moves_and_their_cpu(redis_url: str) -> None:
    from collections import Counter

    from benchmarks.split_move_benchmark import window

    errors: Counter[str] = Counter()
    cpu_us, moves_per_s = await window(redis_url, 3, 0.3, errors)
    assert not errors
    assert 0 < cpu_us < 100_000
    assert moves_per_s > 0


async def test_the_split_move_benchmark_plays_an_exact_count_and_counts_refusals(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    from collections import Counter
    from typing import Any

    from benchmarks.split_move_benchmark import play_games, split_path
    from services.engine.domain.errors import RuleViolation

    errors: Counter[str] = Counter()
    tally = [0]
    async with split_path(redis_url) as path:
        await play_games(path, errors, asyncio.Event(), tally, limit=25)
        assert (tally[0], sum(errors.values())) == (25, 0)

        async def refused(*_args: Any, **_kwargs: Any) -> Any:
            raise RuleViolation("not_your_turn", "refused for the test")

        # The engine refuses the next move (the servicer's own methods are its business).
        monkeypatch.setattr(path[1], "submit_action", refused)
        await play_games(path, errors, asyncio.Event(), tally, limit=26)
    assert tally[0] == 25  # the refused move is not counted as played
    assert errors == Counter({"9: not_your_turn: refused for the test": 1})


@pytest.mark.parametrize("depth", ["redis", "engine", "gateway"])
async def test_the_floor_benchmark_answers_at_its_depth(redis_url: str, depth: str) -> None:
    import redis.asyncio as aioredis

    from benchmarks.floor_benchmark import STREAM_KEY, floor_services, run_floor

    store = aioredis.Redis.from_url(redis_url)
    await store.delete(STREAM_KEY)
    with floor_services(redis_url, depth) as (port, pids):
        cell = await run_floor(port, pids, None, 2, 0.3, 1, b"m" * 300)
    assert cell.errors == 0, cell.error_kinds
    assert cell.moves > 0 and cell.p50_ms is not None
    assert cell.server_cpu_s > 0
    appended = await store.xlen(STREAM_KEY)
    await store.delete(STREAM_KEY)
    await store.aclose()
    if depth == "redis":
        # Every answered round trip was appended first (the warm-up's ones too).
        assert appended >= cell.moves
    else:
        assert appended == 0


def test_the_floor_benchmark_refuses_an_unknown_depth() -> None:
    from benchmarks.floor_benchmark import floor_services

    with (
        pytest.raises(ValueError, match="depth must be one of"),
        floor_services("redis://x", "disk"),
    ):
        pass


def test_the_floor_benchmark_says_so_when_its_engine_cannot_start() -> None:
    from benchmarks.floor_benchmark import floor_services

    with socket.socket() as probe:  # a port no Redis listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        pytest.raises(RuntimeError, match="engine died while starting"),
        floor_services(f"redis://127.0.0.1:{port}/0"),
    ):
        pass


@pytest.mark.parametrize(
    "bad",
    [
        ["--matches", "0"],
        ["--matches", "1,,2"],
        ["--reps", "0"],
        ["--seconds", "0"],
        ["--bytes", "-5"],
        ["--bytes", "2000000"],
        ["--depths", "disk"],
    ],
)
def test_the_floor_benchmark_refuses_bad_arguments(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks.floor_benchmark import main as floor_main

    with pytest.raises(SystemExit) as raised:
        floor_main(["--teoti-only", *bad])
    assert raised.value.code == 2
    assert "error:" in capsys.readouterr().err
