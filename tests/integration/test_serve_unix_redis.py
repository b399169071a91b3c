"""``teoti serve`` without a Redis URL runs its embedded Redis on a Unix socket in its data
folder (issue 16): only this OS user can reach the games' hidden records. A real serve
process plays a Nim game on it; the socket and folder are mode 0700 (a second OS user
cannot be simulated here), the logs give the socket's URL, and the Redis has no TCP port.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import redis.asyncio as aioredis

from services.client import SeatInfo, TeotiClient
from tests.serve_process import Served, serving, wait_for
from tests.web_serve import ROOT, free_port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``teoti serve`` on the data folder ``tmp_path/redis``, once it serves."""
    with serving(tmp_path / "redis", tmp_path / "serve.log") as started:
        yield started


async def test_serve_plays_on_a_redis_only_its_user_can_reach(served: Served) -> None:
    socket_path = served.data / "redis.sock"
    url = f"unix://{socket_path}?db=0"
    started = wait_for(served.log, "embedded_redis_started", served.process)
    assert (started["url"], started["data_dir"]) == (url, str(served.data))
    assert wait_for(served.log, "serving", served.process)["redis"] == url
    assert stat.S_IMODE(served.data.stat().st_mode) == 0o700
    assert stat.S_ISSOCK(socket_path.stat().st_mode)
    assert stat.S_IMODE(socket_path.stat().st_mode) == 0o700
    raw = aioredis.Redis.from_url(url, decode_responses=True)
    try:
        assert await raw.config_get("port") == {"port": "0"}  # no TCP listener at all
    finally:
        await raw.aclose()

    async with TeotiClient(f"127.0.0.1:{served.port}") as client:
        created = await client.create_game(
            [SeatInfo("human", "a"), SeatInfo("human", "b")], "nim", {"max_take": 3}
        )
        seat, moves = 0, 0
        while True:
            moved = await client.play(created.game_id, seat, created.seat_tokens[seat], {"take": 1})
            moves += 1
            if moved.game.finished:
                break
            seat = moved.game.seats_to_act[0]
        assert 10 <= moves <= 20  # the pile is 10..20 stones, one taken a move
        verified = await client.verify(created.game_id)
        assert verified.ok, verified

    served.process.send_signal(signal.SIGTERM)
    code = await asyncio.to_thread(served.process.wait, 30)
    assert code == 0, served.log.read_text()[-2000:]
    assert not socket_path.exists()  # the embedded Redis stopped with serve


def _serve_fails(*extra: str) -> tuple[int, str]:
    """Run ``teoti serve`` expected to stop at once: (exit code, stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER_NODES")}
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", "serve", "--port", str(free_port()), *extra],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=60,
    )
    return done.returncode, done.stderr.decode()


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
def test_a_data_folder_too_deep_for_a_socket_serves_on_a_private_one(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 110)  # a deep checkout: DATA_DIR/redis.sock would not fit
    with serving(deep, tmp_path / "serve.log") as served:
        started = wait_for(served.log, "embedded_redis_started", served.process)
        assert started["data_dir"] == str(deep)
        socket_path = Path(unquote(urlsplit(started["url"]).path))
        assert socket_path.parent != deep
        assert stat.S_IMODE(socket_path.parent.stat().st_mode) == 0o700
        assert stat.S_ISSOCK(socket_path.stat().st_mode)
        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(30) == 0, served.log.read_text()[-2000:]
    assert not socket_path.parent.exists()  # the private folder went with the server


def test_a_second_serve_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    from services.embedded_redis import EmbeddedRedis

    with EmbeddedRedis(tmp_path, persist=True, unix_socket=True):  # as a first serve holds it
        code, err = _serve_fails("--web-port", "0", "--data-dir", str(tmp_path))
    assert code == 2, err
    assert "in use by another teoti server" in err and len(err.strip().splitlines()) == 1, err
